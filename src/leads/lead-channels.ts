import { DEFAULT_CHATBOT_NAME } from "../config.ts";
import type { WriteBacks } from "../coordination/store-mark.ts";
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

/** A chatbot whose leads go to lead channels: its name in CHATBOTS and its bot_uid. */
export interface LeadChatbot {
  readonly name: string;
  /** None: a lone client given without it (tests): its set is the one of a version with one chatbot. */
  readonly botUid: string | undefined;
}

const ONE_CHATBOT: readonly LeadChatbot[] = [{ name: DEFAULT_CHATBOT_NAME, botUid: undefined }];

/**
 * One member per subscribed channel (`platform:id`), changed one atomic step at a time, so
 * admins subscribing at the same moment (on one process or several) never lose each other's
 * change. Only the bot's admins subscribe (docs/leads.md, "Leads"). Each chatbot's
 * set is kept under its bot_uid: a subscription stays with the chatbot it was made for,
 * whatever the order of CHATBOTS.
 */
const channelsKey = (botUid: string) => `leads:${botUid}:channels`;
/**
 * Where earlier versions kept their subscriptions: the set of a version with one chatbot (and,
 * in a version that kept them by name, the default chatbot's, whichever it was then), that
 * version's other chatbots' sets by name; before them a set, and the whole list as one value.
 * Then any Telegram chat's own admin could subscribe, and so anyone, in a private chat or a
 * group he created: those are not carried over. Slack's were a workspace admin's.
 */
const UNNAMED_KEY = "leads:channels";
const namedKey = (name: string) => `${UNNAMED_KEY}:${name}`;
const EARLIER_SET_KEY = "leads:subscribed";
const EARLIER_LIST_KEY = "leads:subscriptions";
/** The platform whose earlier subscriptions no bot admin vouched for. */
const UNVETTED_PLATFORM = "telegram";
/** Lead channels of one chatbot this process keeps a copy of at most, to write them back. */
const KEPT_CHANNELS = 1_000;

export type SubscriptionChange = "changed" | "unchanged" | "configured";

export interface LeadChannelsOptions {
  /** Tells the operator of the earlier subscriptions the upgrade does not keep. */
  log?: Logger | undefined;
  /** The deployment's chatbots, the default first. Default: one, as tests build it. */
  chatbots?: readonly LeadChatbot[];
  /** Where the subscriptions this process read or made are written back from should the store lose its data. */
  writeBacks?: WriteBacks | undefined;
}

/**
 * Where leads go: the channels named in the configuration, which get every chatbot's, plus
 * those an admin subscribed to a chatbot's with `/leads subscribe [name]` (kept in the
 * store, so they survive restarts).
 */
export class LeadChannels {
  readonly #store: KeyValueStore;
  readonly #configured: readonly LeadChannel[];
  readonly #log: Logger | undefined;
  readonly #chatbots: readonly LeadChatbot[];
  /** Each set as this process last read or changed it (set key → members). */
  readonly #copies = new Map<string, Set<string>>();
  #upgraded: Promise<void> | undefined;

  constructor(
    store: KeyValueStore,
    configured: readonly LeadChannel[],
    options: LeadChannelsOptions = {},
  ) {
    this.#store = store;
    this.#configured = configured;
    this.#log = options.log;
    this.#chatbots = options.chatbots ?? ONE_CHATBOT;
    options.writeBacks?.hold({ what: "lead channels", writeBack: () => this.#writeBack() });
  }

  /** Every lead channel, of any chatbot. */
  async all(): Promise<LeadChannel[]> {
    const sets = await Promise.all(this.#chatbots.map(({ name }) => this.#subscribed(name)));
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
    const names = this.#chatbots.map(({ name }) => name);
    if (this.#isConfigured(channel)) return names;
    const key = channelKeyOf(channel);
    const sets = await Promise.all(names.map((name) => this.#subscribed(name)));
    return names.filter((_, index) => sets[index]?.some((c) => channelKeyOf(c) === key));
  }

  /** `chatbot`: a name of the deployment's (none: the default chatbot). */
  async subscribe(channel: LeadChannel, chatbot?: string): Promise<SubscriptionChange> {
    if (this.#isConfigured(channel)) return "configured";
    await this.#upgrade();
    const key = this.#setKey(chatbot);
    const member = channelKeyOf(channel);
    const added = await this.#store.addToSet(key, member);
    this.#copyOf(key).add(member);
    return added ? "changed" : "unchanged";
  }

  /** `chatbot`: a name of the deployment's (none: every chatbot's). */
  async unsubscribe(channel: LeadChannel, chatbot?: string): Promise<SubscriptionChange> {
    if (this.#isConfigured(channel)) return "configured";
    await this.#upgrade();
    const names = chatbot === undefined ? this.#chatbots.map(({ name }) => name) : [chatbot];
    const member = channelKeyOf(channel);
    let removed = false;
    for (const name of names) {
      const key = this.#setKey(name);
      this.#copies.get(key)?.delete(member);
      if (await this.#store.removeFromSet(key, member)) removed = true;
    }
    return removed ? "changed" : "unchanged";
  }

  /** The set of `chatbot`'s subscribed channels (none: the default chatbot's). */
  #setKey(chatbot: string | undefined): string {
    const named = this.#chatbots.find(({ name }) => name === chatbot) ?? this.#chatbots[0];
    return named?.botUid === undefined ? UNNAMED_KEY : channelsKey(named.botUid);
  }

  #isConfigured(channel: LeadChannel): boolean {
    const key = channelKeyOf(channel);
    return this.#configured.some((c) => channelKeyOf(c) === key);
  }

  async #subscribed(chatbot: string): Promise<LeadChannel[]> {
    await this.#upgrade();
    const key = this.#setKey(chatbot);
    const members = await this.#store.setMembers(key);
    this.#copies.set(key, new Set(members.slice(0, KEPT_CHANNELS)));
    return members.flatMap((member) => {
      const channel = channelOfKey(member);
      return channel ? [channel] : [];
    });
  }

  #copyOf(key: string): Set<string> {
    let copy = this.#copies.get(key);
    if (!copy) {
      copy = new Set();
      this.#copies.set(key, copy);
    }
    return copy;
  }

  /** The store lost its data: every subscription this process knows goes back in. */
  async #writeBack(): Promise<number> {
    let written = 0;
    for (const [key, members] of this.#copies) {
      for (const member of members) {
        await this.#store.addToSet(key, member);
        written += 1;
      }
    }
    return written;
  }

  /**
   * Moves the subscriptions an earlier version stored into each chatbot's set, once per
   * process (tried again after a failure), but those no bot admin vouched for, which the
   * operator is told of: those of a version with one chatbot go to the default chatbot's, and
   * a chatbot's by name to that chatbot's. Adding is idempotent and the old keys go last, so
   * processes upgrading at once, or one killed half-way, lose nothing that is kept.
   */
  #upgrade(): Promise<void> {
    this.#upgraded ??= (async () => {
      await this.#upgradeUnvetted();
      for (const [index, chatbot] of this.#chatbots.entries()) {
        if (chatbot.botUid === undefined) continue;
        const from = index === 0 ? [namedKey(chatbot.name), UNNAMED_KEY] : [namedKey(chatbot.name)];
        const sets = await Promise.all(from.map((key) => this.#store.setMembers(key)));
        for (const member of new Set(sets.flat())) {
          await this.#store.addToSet(channelsKey(chatbot.botUid), member);
        }
        for (const [i, key] of from.entries()) if (sets[i]?.length) await this.#store.delete(key);
      }
    })().catch((error: unknown) => {
      this.#upgraded = undefined;
      throw error;
    });
    return this.#upgraded;
  }

  /** The first versions' subscriptions into the set of a version with one chatbot. */
  async #upgradeUnvetted(): Promise<void> {
    const [list, set] = await Promise.all([
      this.#store.get<unknown>(EARLIER_LIST_KEY),
      this.#store.setMembers(EARLIER_SET_KEY),
    ]);
    const earlier = [...legacyChannels(list), ...set.flatMap((m) => channelOfKey(m) ?? [])];
    if (list === undefined && earlier.length === 0) return;
    const dropped = earlier.filter((c) => c.platform === UNVETTED_PLATFORM).map((c) => c.id);
    for (const channel of earlier) {
      if (channel.platform === UNVETTED_PLATFORM) continue;
      await this.#store.addToSet(UNNAMED_KEY, channelKeyOf(channel));
    }
    await this.#store.delete(EARLIER_SET_KEY);
    await this.#store.delete(EARLIER_LIST_KEY);
    if (dropped.length > 0) {
      this.#log?.warn(
        { chats: dropped },
        "lead channels subscribed before only the bot's admins could are no longer lead channels: a bot admin sends /leads subscribe in each that should be, or lists it in LEADS_TELEGRAM_CHATS",
      );
    }
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
