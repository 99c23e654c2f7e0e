import type { Logger } from "../log.ts";
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
 * change. Only the bot's admins subscribe (README, "Leads: who may do what").
 */
const SUBSCRIBED_KEY = "leads:channels";
/**
 * Where earlier versions kept their subscriptions: a set, and before it the whole list as one
 * value. Then any Telegram chat's own admin could subscribe, and so anyone, in a private chat
 * or a group he created: those are not carried over. Slack's were a workspace admin's.
 */
const EARLIER_SET_KEY = "leads:subscribed";
const EARLIER_LIST_KEY = "leads:subscriptions";
/** The platform whose earlier subscriptions no bot admin vouched for. */
const UNVETTED_PLATFORM = "telegram";

export type SubscriptionChange = "changed" | "unchanged" | "configured";

/**
 * Where leads go: the channels named in the configuration, plus those an admin subscribed
 * with `/leads subscribe` (kept in the store, so they survive restarts).
 */
export class LeadChannels {
  readonly #store: KeyValueStore;
  readonly #configured: readonly LeadChannel[];
  readonly #log: Logger | undefined;
  #upgraded: Promise<void> | undefined;

  /** `log` tells the operator of the earlier subscriptions the upgrade does not keep. */
  constructor(store: KeyValueStore, configured: readonly LeadChannel[], log?: Logger) {
    this.#store = store;
    this.#configured = configured;
    this.#log = log;
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
   * again after a failure), but those no bot admin vouched for, which the operator is told
   * of. Adding is idempotent and the old keys go last, so processes upgrading at once, or one
   * killed half-way, lose nothing that is kept.
   */
  #upgrade(): Promise<void> {
    this.#upgraded ??= (async () => {
      const [list, set] = await Promise.all([
        this.#store.get<unknown>(EARLIER_LIST_KEY),
        this.#store.setMembers(EARLIER_SET_KEY),
      ]);
      const earlier = [...legacyChannels(list), ...set.flatMap((m) => channelOfKey(m) ?? [])];
      if (list === undefined && earlier.length === 0) return;
      const dropped = earlier.filter((c) => c.platform === UNVETTED_PLATFORM).map((c) => c.id);
      for (const channel of earlier) {
        if (channel.platform === UNVETTED_PLATFORM) continue;
        await this.#store.addToSet(SUBSCRIBED_KEY, channelKeyOf(channel));
      }
      await this.#store.delete(EARLIER_SET_KEY);
      await this.#store.delete(EARLIER_LIST_KEY);
      if (dropped.length > 0) {
        this.#log?.warn(
          { chats: dropped },
          "lead channels subscribed before only the bot's admins could are no longer lead channels: a bot admin sends /leads subscribe in each that should be, or lists it in LEADS_TELEGRAM_CHATS",
        );
      }
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
