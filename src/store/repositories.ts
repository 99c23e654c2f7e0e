import { z } from "zod";
import { isLanguageCode, type LanguageCode } from "../backend/languages.ts";
import type { Coordination } from "../coordination/port.ts";
import type { WriteBacks } from "../coordination/store-mark.ts";
import type { IncomingMessage } from "../ports.ts";
import { KeptRecords } from "./kept-records.ts";
import type { KeyValueStore } from "./types.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

// A thread idle this long starts a new conversation; answers renew it, at most once a day
// (an answer that keeps its conversation costs no write), so "idle" counts from a renewal up
// to a day before the thread's last answer.
const CONVERSATION_TTL_MS = 30 * DAY_MS;
const CONVERSATION_RENEW_MS = DAY_MS;
// Slack re-sends an event for up to ~1 hour and Telegram an update for about a day.
const DELIVERY_TTL_MS = 2 * DAY_MS;
// The threads' conversations this process keeps a copy of, to write back should the store lose
// its data (a few hundred bytes each).
const KEPT_CONVERSATIONS = 10_000;

const conversationKey = (threadKey: string) => `conv:${threadKey}`;
/** A thread's part in a hand-over (src/handover/handover-book.ts writes it). */
export function threadSideKey(threadKey: string): string {
  return `handover:thread:${threadKey}`;
}
const originKey = (conversationUid: string) => `conv-origin:${conversationUid}`;
const languageKey = (channelKey: string) => `lang:${channelKey}`;
const chatbotKey = (channelKey: string) => `chatbot:${channelKey}`;

const conversationOriginShape = z.object({
  /** The channel that carried it (IncomingMessage.channel). */
  channel: z.string(),
  /** IncomingMessage.origin of a question of it: that channel's JSON. */
  at: z.unknown(),
  /**
   * Its thread, that thread's channel and where a reply there goes (IncomingMessage.threadKey,
   * channelKey, replyPlace), for a person of the company to talk there (src/handover/). Absent
   * in records of an earlier version, and for a place no other process can reach.
   */
  thread: z.string().optional(),
  channelKey: z.string().optional(),
  replyPlace: z.unknown().optional(),
  /** The language the bot spoke to its asker in (a catalog code), for what it tells them later. */
  language: z.string().optional(),
  /** One person's chat with the bot (IncomingMessage.direct). */
  direct: z.boolean().optional(),
});

/** Where a conversation the bot carried is, for the lead cards of leads captured in it. */
export type ConversationOrigin = z.infer<typeof conversationOriginShape>;

/**
 * Where `message`'s conversation is, as it is kept with it (none where the channel tells no
 * origin): `language`, the one the bot speaks to its asker.
 */
export function conversationOrigin(
  message: IncomingMessage,
  language: string,
): ConversationOrigin | undefined {
  if (message.origin === undefined) return undefined;
  return {
    channel: message.channel,
    at: message.origin,
    thread: message.threadKey,
    channelKey: message.channelKey,
    replyPlace: message.replyPlace,
    language,
    ...(message.direct && { direct: true }),
  };
}

/**
 * Which chatbot conversation each thread continues (thread key → conversation_uid). Kept
 * records (see Ttl): memory pressure on Redis never takes a thread's conversation; and with
 * `writeBacks`, the conversations this process saved or answered in lately are written back
 * should the store lose its data.
 */
export class Conversations {
  readonly #kept: KeptRecords;
  /** Where the conversations saved lately are: written back with them. */
  readonly #origins: KeptRecords;

  constructor(
    readonly store: KeyValueStore,
    writeBacks?: WriteBacks,
  ) {
    this.#kept = new KeptRecords(store, {
      what: "conversations",
      max: KEPT_CONVERSATIONS,
      kept: true,
      writeBacks,
    });
    this.#origins = new KeptRecords(store, {
      what: "conversations' origins",
      max: KEPT_CONVERSATIONS,
      kept: true,
      writeBacks,
    });
  }

  /**
   * `botUid`: the chatbot the conversation belongs to (none: the default chatbot); `origin`:
   * where it is (ConversationOrigin), kept as long, so a lead captured in it says so.
   */
  async save(
    threadKey: string,
    conversationUid: string,
    botUid?: string,
    origin?: ConversationOrigin,
  ): Promise<void> {
    const saved: SavedConversation = { uid: conversationUid, savedAt: Date.now() };
    if (botUid !== undefined) saved.bot = botUid;
    const ttlMs = { keptMs: CONVERSATION_TTL_MS };
    const key = conversationKey(threadKey);
    const at = originKey(conversationUid);
    await this.store.setMany([
      { key, value: saved, ttlMs },
      ...(origin ? [{ key: at, value: origin, ttlMs }] : []),
    ]);
    this.#kept.note(key, saved, CONVERSATION_TTL_MS, saved.savedAt);
    if (origin) this.#origins.note(at, origin, CONVERSATION_TTL_MS, saved.savedAt);
  }

  /** Where conversation `conversationUid` is, when this bot carried it. */
  async origin(conversationUid: string): Promise<ConversationOrigin | undefined> {
    const parsed = conversationOriginShape.safeParse(
      await this.store.get(originKey(conversationUid)),
    );
    return parsed.success ? parsed.data : undefined;
  }

  /** The thread's conversation, as `context` read it, goes on without a save: a copy is kept. */
  inUse(threadKey: string, context: ThreadContext): void {
    const { conversationUid: uid, savedAt, conversationBot: bot } = context;
    if (uid === undefined || savedAt === undefined) return;
    const saved: SavedConversation = bot === undefined ? { uid, savedAt } : { uid, savedAt, bot };
    this.#kept.note(conversationKey(threadKey), saved, CONVERSATION_TTL_MS, savedAt);
  }

  /**
   * Whether an answer of chatbot `botUid` in `context`'s thread that names `conversationUid`
   * must save it.
   */
  static needsSaving(context: ThreadContext, conversationUid: string, botUid?: string): boolean {
    return (
      conversationUid !== context.conversationUid ||
      botUid !== context.conversationBot ||
      context.savedAt === undefined ||
      Date.now() - context.savedAt >= CONVERSATION_RENEW_MS
    );
  }

  async forget(threadKey: string): Promise<void> {
    this.#kept.forget(conversationKey(threadKey));
    await this.store.delete(conversationKey(threadKey));
  }
}

/** Per-channel settings an admin chose: the answer language, the chatbot. */
export class ChannelSettings {
  constructor(readonly store: KeyValueStore) {}

  async language(channelKey: string): Promise<LanguageCode | undefined> {
    return asLanguage(await this.store.get(languageKey(channelKey)));
  }

  /** `auto` removes the setting, so the deployment's default applies again. */
  async setLanguage(channelKey: string, code: LanguageCode): Promise<void> {
    if (code === "auto") await this.store.delete(languageKey(channelKey));
    else await this.store.set(languageKey(channelKey), code);
  }

  /** The name of the chatbot an admin chose for the channel (`/chatbot use`), if any. */
  async chatbot(channelKey: string): Promise<string | undefined> {
    return asText(await this.store.get(chatbotKey(channelKey)));
  }

  async setChatbot(channelKey: string, name: string): Promise<void> {
    await this.store.set(chatbotKey(channelKey), name);
  }
}

/** Platform deliveries already taken, so a redelivery is answered once. */
export class Deliveries {
  /** The latest deliveries this process took, oldest first: a second one costs no store call. */
  readonly #recent = new Set<string>();

  constructor(
    readonly store: Coordination,
    readonly owner: string,
  ) {}

  /**
   * True when this process took the delivery a moment ago (Slack sends a mention twice, as
   * app_mention and as message, to the same connection most often): no store call.
   */
  seenHere(channel: string, deliveryId: string): boolean {
    const key = `${channel}:${deliveryId}`;
    if (this.#recent.has(key)) return true;
    this.#recent.add(key);
    if (this.#recent.size > RECENT_DELIVERIES) {
      const [oldest] = this.#recent;
      if (oldest !== undefined) this.#recent.delete(oldest);
    }
    return false;
  }

  /** True for the first claim of this delivery across every process sharing the store. */
  claim(channel: string, deliveryId: string): Promise<boolean> {
    return this.store.claim(`delivery:${channel}:${deliveryId}`, this.owner, DELIVERY_TTL_MS);
  }
}

/** Deliveries a process remembers having taken itself. */
const RECENT_DELIVERIES = 10_000;

export interface ThreadContext {
  conversationUid: string | undefined;
  /** When the conversation was saved last (epoch ms; unknown for a record of an earlier version). */
  savedAt: number | undefined;
  language: LanguageCode | undefined;
  /** The bot_uid of the chatbot the conversation belongs to; none: the default chatbot. */
  conversationBot: string | undefined;
  /** The name of the chatbot an admin chose for the channel, for a new conversation. */
  chatbot: string | undefined;
  /** The thread's part in a hand-over, while a person of the company talks there. */
  handover?: ThreadSide | undefined;
  /**
   * A person of the company writes there on their own (a Telegram Business account's owner):
   * the chatbot stays out of the thread until the mark lapses (Bridge.keepQuiet).
   */
  quiet?: boolean;
}

/** The mark of a thread the chatbot stays out of for a while (ThreadContext.quiet). */
export function quietKey(threadKey: string): string {
  return `thread:quiet:${threadKey}`;
}

/**
 * A thread's conversation as stored (a bare uid in records of an earlier version; no `bot`
 * in those of a version with one chatbot, which are the default chatbot's).
 */
interface SavedConversation {
  uid: string;
  savedAt: number;
  bot?: string;
}

/** What a question needs from the store, read in one round trip. */
export async function readThreadContext(
  store: KeyValueStore,
  threadKey: string,
  channelKey: string,
): Promise<ThreadContext> {
  const [conversation, language, chatbot, handover, chatHandover, quiet] = await store.getMany([
    conversationKey(threadKey),
    languageKey(channelKey),
    chatbotKey(channelKey),
    threadSideKey(threadKey),
    // A hand-over of a thread of a direct chat covers the chat (HandoverBook.open).
    threadSideKey(channelKey),
    quietKey(threadKey),
  ]);
  // Most threads are in no hand-over: nothing to read then.
  const side = handover ?? chatHandover;
  return {
    ...savedConversationOf(conversation),
    language: asLanguage(language),
    chatbot: asText(chatbot),
    handover: side === undefined ? undefined : readThreadSide(side),
    ...(quiet !== undefined && { quiet: true }),
  };
}

type SavedPart = Pick<ThreadContext, "conversationUid" | "savedAt" | "conversationBot">;

function savedConversationOf(value: unknown): SavedPart {
  const none = { conversationUid: undefined, savedAt: undefined, conversationBot: undefined };
  if (typeof value === "string") return { ...none, conversationUid: value };
  const saved = value as Partial<SavedConversation> | undefined;
  if (typeof saved?.uid !== "string") return none;
  return {
    conversationUid: saved.uid,
    savedAt: typeof saved.savedAt === "number" ? saved.savedAt : undefined,
    conversationBot: asText(saved.bot),
  };
}

function asText(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function asLanguage(value: unknown): LanguageCode | undefined {
  return typeof value === "string" && isLanguageCode(value) ? value : undefined;
}

/**
 * A thread's part in a hand-over (src/handover/), as its context reads it with its
 * conversation (one read: a question in a thread with none costs no store call for it): the
 * customer's thread, where the chatbot is paused, or the seller's, under the lead's card.
 */
export const threadSide = z.object({
  side: z.enum(["customer", "seller"]),
  /** The lead's id. */
  lead: z.string(),
});
export type ThreadSide = z.infer<typeof threadSide>;

/** A thread's side as its context read it (a claim's JSON text, or a record). */
export function readThreadSide(value: unknown): ThreadSide | undefined {
  const parsed = threadSide.safeParse(typeof value === "string" ? safeJson(value) : value);
  return parsed.success ? parsed.data : undefined;
}

/** A stored JSON text's value; undefined for text that is none (a record of another shape). */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
