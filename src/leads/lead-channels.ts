import { DEFAULT_CHATBOT_NAME } from "../config.ts";
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
 * change. Only the bot's admins subscribe (README, "Leads: who may do what"). This set is
 * the default chatbot's, as it was when a deployment had one; each other chatbot's is this
 * key and its name (`leads:channels:sales`).
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
 * Where leads go: the channels named in the configuration, which get every chatbot's, plus
 * those an admin subscribed to a chatbot's with `/leads subscribe [name]` (kept in the
 * store, so they survive restarts).
 */
export class LeadChannels {
  readonly #store: KeyValueStore;
  readonly #configured: readonly LeadChannel[];
  readonly #log: Logger | undefined;
  /** The deployment's chatbots' names, the default first. */
  readonly #chatbots: readonly string[];
  #upgraded: Promise<void> | undefined;

  /** `log` tells the operator of the earlier subscriptions the upgrade does not keep. */
  constructor(
    store: KeyValueStore,
    configured: readonly LeadChannel[],
    log?: Logger,
    chatbots: readonly string[] = [DEFAULT_CHATBOT_NAME],
  ) {
    this.#store = store;
    this.#configured = configured;
    this.#log = log;
    this.#chatbots = chatbots;
  }

  /** Every lead channel, of any chatbot. */
  async all(): Promise<LeadChannel[]> {
    const sets = await Promise.all(this.#chatbots.map((chatbot) => this.#subscribed(chatbot)));
    return unique([...this.#configured, ...sets.flat()]);
  }

  /** The channels that get `chatbot`'s leads. */
  async of(chatbot: string): Promise<LeadChannel[]> {
    return unique([...this.#configured, ...(await this.#subscribed(chatbot))]);
  }

  async includes(channel: LeadChannel): Promise<boolean> {
    const key = channelKeyOf(channel);
    return (await this.all()).some((c) => channelKeyOf(c) === key);
  }

  /** The names of the chatbots whose leads `channel` gets, in the deployment's order. */
  async following(channel: LeadChannel): Promise<string[]> {
    if (this.#isConfigured(channel)) return [...this.#chatbots];
    const key = channelKeyOf(channel);
    const sets = await Promise.all(this.#chatbots.map((chatbot) => this.#subscribed(chatbot)));
    return this.#chatbots.filter((_, index) => sets[index]?.some((c) => channelKeyOf(c) === key));
  }

  /** `chatbot`: a name of the deployment's (none: the default chatbot). */
  async subscribe(channel: LeadChannel, chatbot?: string): Promise<SubscriptionChange> {
    if (this.#isConfigured(channel)) return "configured";
    await this.#upgrade();
    const added = await this.#store.addToSet(this.#setKey(chatbot), channelKeyOf(channel));
    return added ? "changed" : "unchanged";
  }

  /** `chatbot`: a name of the deployment's (none: every chatbot's). */
  async unsubscribe(channel: LeadChannel, chatbot?: string): Promise<SubscriptionChange> {
    if (this.#isConfigured(channel)) return "configured";
    await this.#upgrade();
    const names = chatbot === undefined ? this.#chatbots : [chatbot];
    let removed = false;
    for (const name of names) {
      if (await this.#store.removeFromSet(this.#setKey(name), channelKeyOf(channel))) {
        removed = true;
      }
    }
    return removed ? "changed" : "unchanged";
  }

  /** The set of `chatbot`'s subscribed channels; the default's is the one of a version with one. */
  #setKey(chatbot: string | undefined): string {
    const name = chatbot ?? this.#chatbots[0];
    return name === this.#chatbots[0] ? SUBSCRIBED_KEY : `${SUBSCRIBED_KEY}:${name}`;
  }

  #isConfigured(channel: LeadChannel): boolean {
    const key = channelKeyOf(channel);
    return this.#configured.some((c) => channelKeyOf(c) === key);
  }

  async #subscribed(chatbot: string): Promise<LeadChannel[]> {
    await this.#upgrade();
    const members = await this.#store.setMembers(this.#setKey(chatbot));
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

/** Each channel once, in the order first met. */
function unique(channels: readonly LeadChannel[]): LeadChannel[] {
  const byKey = new Map<string, LeadChannel>();
  for (const channel of channels) {
    const key = channelKeyOf(channel);
    if (!byKey.has(key)) byKey.set(key, channel);
  }
  return [...byKey.values()];
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
