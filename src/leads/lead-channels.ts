import type { KeyValueStore } from "../store/types.ts";

/** A channel that gets lead announcements: a platform and that platform's chat id. */
export interface LeadChannel {
  platform: string;
  id: string;
}

export function channelKeyOf(channel: LeadChannel): string {
  return `${channel.platform}:${channel.id}`;
}

/**
 * One member per subscribed channel (`platform:id`), changed one atomic step at a time, so
 * admins subscribing at the same moment (on one process or several) never lose each other's
 * change.
 */
const SUBSCRIBED_KEY = "leads:subscribed";
/**
 * Where earlier versions kept the whole list as one value, rewritten by each change (two
 * changes at once lost one). Moved into the set by the first use after the upgrade.
 */
const LEGACY_KEY = "leads:subscriptions";

export type SubscriptionChange = "changed" | "unchanged" | "configured";

/**
 * Where leads go: the channels named in the configuration, plus those an admin subscribed
 * with `/leads subscribe` (kept in the store, so they survive restarts).
 */
export class LeadChannels {
  readonly #store: KeyValueStore;
  readonly #configured: readonly LeadChannel[];
  #upgraded: Promise<void> | undefined;

  constructor(store: KeyValueStore, configured: readonly LeadChannel[]) {
    this.#store = store;
    this.#configured = configured;
  }

  async all(): Promise<LeadChannel[]> {
    const byKey = new Map(this.#configured.map((c) => [channelKeyOf(c), c]));
    for (const channel of await this.#subscribed()) byKey.set(channelKeyOf(channel), channel);
    return [...byKey.values()];
  }

  async includes(channel: LeadChannel): Promise<boolean> {
    const key = channelKeyOf(channel);
    return (await this.all()).some((c) => channelKeyOf(c) === key);
  }

  async subscribe(channel: LeadChannel): Promise<SubscriptionChange> {
    if (this.#isConfigured(channel)) return "configured";
    await this.#upgrade();
    const added = await this.#store.addToSet(SUBSCRIBED_KEY, channelKeyOf(channel));
    return added ? "changed" : "unchanged";
  }

  async unsubscribe(channel: LeadChannel): Promise<SubscriptionChange> {
    if (this.#isConfigured(channel)) return "configured";
    await this.#upgrade();
    const removed = await this.#store.removeFromSet(SUBSCRIBED_KEY, channelKeyOf(channel));
    return removed ? "changed" : "unchanged";
  }

  #isConfigured(channel: LeadChannel): boolean {
    const key = channelKeyOf(channel);
    return this.#configured.some((c) => channelKeyOf(c) === key);
  }

  async #subscribed(): Promise<LeadChannel[]> {
    await this.#upgrade();
    const members = await this.#store.setMembers(SUBSCRIBED_KEY);
    return members.flatMap((member) => {
      const channel = channelOfKey(member);
      return channel ? [channel] : [];
    });
  }

  /**
   * Moves the subscriptions an earlier version stored into the set, once per process (tried
   * again after a failure). Adding is idempotent and the old key goes last, so processes
   * upgrading at once, or one killed half-way, lose nothing.
   */
  #upgrade(): Promise<void> {
    this.#upgraded ??= (async () => {
      const legacy = await this.#store.get<unknown>(LEGACY_KEY);
      if (legacy === undefined) return;
      for (const channel of legacyChannels(legacy)) {
        await this.#store.addToSet(SUBSCRIBED_KEY, channelKeyOf(channel));
      }
      await this.#store.delete(LEGACY_KEY);
    })().catch((error: unknown) => {
      this.#upgraded = undefined;
      throw error;
    });
    return this.#upgraded;
  }
}

/** `platform:id` back into a channel; the platform is a channel name, which has no colon. */
function channelOfKey(member: string): LeadChannel | undefined {
  const colon = member.indexOf(":");
  if (colon <= 0 || colon === member.length - 1) return undefined;
  return { platform: member.slice(0, colon), id: member.slice(colon + 1) };
}

function legacyChannels(value: unknown): LeadChannel[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (v): v is LeadChannel =>
      typeof v === "object" &&
      v !== null &&
      typeof v.platform === "string" &&
      typeof v.id === "string",
  );
}
