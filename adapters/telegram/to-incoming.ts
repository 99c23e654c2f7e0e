import type { Message, MessageEntity, Update, User } from "grammy/types";
import { z } from "zod";
import { COMMAND_WORDS } from "../../src/bridge/commands.ts";
import type { WriteBacks } from "../../src/coordination/store-mark.ts";
import { KeptRecords } from "../../src/store/kept-records.ts";
import type { KeyValueStore } from "../../src/store/types.ts";
import { ANONYMOUS_ADMIN_BOT_ID } from "./limits.ts";

/** A kind of update, as allowed_updates names it. */
export type UpdateKind = Exclude<keyof Update, "update_id">;

/**
 * The updates the bot asks Telegram for (getUpdates and setWebhook alike): messages, the
 * presses of its buttons, and of Telegram's stop button on a draft; with Business mode on,
 * the accounts' connections and their chats' messages; with guest mode on, mentions in chats
 * the bot is not in. Edits, reactions, joins and the rest
 * are never sent to it. Each start names the list afresh, so a mode turned off needs no
 * cleanup: Telegram stops sending its updates.
 * https://core.telegram.org/bots/api#getupdates
 */
export function allowedUpdates(modes: { business: boolean; guest: boolean }): UpdateKind[] {
  const kinds: UpdateKind[] = ["message", "callback_query", "stopped_message_generation"];
  if (modes.business) kinds.push("business_connection", "business_message");
  if (modes.guest) kinds.push("guest_message");
  return kinds;
}

/** What the bot knows of itself, from getMe. */
export interface BotIdentity {
  id: number;
  username: string;
}

/** Where an answer goes and which conversation it belongs to. */
export interface Place {
  chatId: number;
  isPrivate: boolean;
  /** Forum topic to send into; undefined for the General topic and chats without topics. */
  topicId: number | undefined;
  /** The message the answer replies to (groups only: private chats need no quote). */
  replyTo: number | undefined;
  threadKey: string;
  /** Bot messages here start or continue a reply chain (groups without topics). */
  chained: boolean;
  /**
   * A Telegram Business account's private chat: the connection every call here names
   * (business_connection_id), as the bot acts on the account's behalf.
   */
  business?: string | undefined;
}

/** A message the bot should answer, read from a Telegram message. */
export interface Addressed {
  kind: "text";
  text: string;
  message: Message;
  /** Who wrote it, as admin lists name people (an anonymous admin: the chat's id). */
  authorId: string;
  /** Their name as Telegram shows it (an anonymous admin: the group's title). */
  authorName: string | undefined;
}

export type Reading = Addressed | { kind: "no-text"; message: Message } | undefined;

// Commands this bot knows; `/start` is what Telegram sends when a person opens the chat.
const OWN_COMMANDS = new Set([...COMMAND_WORDS, "start"]);

// Kinds of content a person can send that this bot cannot read.
const UNREADABLE = [
  "sticker",
  "photo",
  "document",
  "voice",
  "video",
  "video_note",
  "audio",
  "animation",
  "location",
  "contact",
  "poll",
  "dice",
  "venue",
  "story",
] as const;

const entityList = z
  .array(z.looseObject({ type: z.string(), offset: z.number(), length: z.number() }))
  .optional();

/**
 * The parts of a message read without asking whether they are there: its id, its date, its
 * chat, its author when it has one, and its text and entities when it has them. grammY passes
 * an update on as it came (from Telegram, or from whatever reached the webhook), unchecked; a
 * message lacking them is dropped like any other message the bot leaves alone, before
 * anything reads them. https://core.telegram.org/bots/api#message
 */
export const readableMessage = z.looseObject({
  message_id: z.number(),
  date: z.number(),
  chat: z.looseObject({ id: z.number(), type: z.string() }),
  from: z.looseObject({ id: z.number() }).nullish(),
  text: z.string().optional(),
  caption: z.string().optional(),
  entities: entityList,
  caption_entities: entityList,
});

/**
 * Decides whether a message is for the bot (docs/telegram.md, "What the bot answers"): every message in a private
 * chat; in groups and forum topics only mentions of the bot, replies to the bot and commands
 * (a `/cmd@OtherBot` is another bot's). Returns the question with the mention removed and
 * `/cmd@ThisBot` written as `/cmd`; undefined for messages to leave alone.
 */
export function readMessage(message: Message, me: BotIdentity): Reading {
  if (!readableMessage.safeParse(message).success) return undefined;
  if (!message.from || !writtenByPerson(message)) return undefined;
  const authorId = String(isAnonymousAdmin(message) ? message.chat.id : message.from.id);
  const raw = message.text ?? message.caption;
  const entities = message.entities ?? message.caption_entities ?? [];
  const isPrivate = message.chat.type === "private";
  if (raw === undefined) {
    const unreadable = UNREADABLE.some((key) => key in message);
    return isPrivate && unreadable ? { kind: "no-text", message } : undefined;
  }
  const command = leadingCommand(raw, entities);
  if (command?.target && command.target.toLowerCase() !== me.username.toLowerCase()) {
    return undefined;
  }
  if (!isPrivate) {
    const addressed =
      (command !== undefined && (command.target !== undefined || OWN_COMMANDS.has(command.name))) ||
      mentionsMe(raw, entities, me) ||
      repliesToMe(message, me);
    if (!addressed) return undefined;
  }
  let text = withoutMentions(raw, entities, me);
  if (command) {
    const name = command.name === "start" ? "help" : command.name;
    text = `/${name}${text.trimStart().slice(command.length)}`;
  }
  // Only the gap a removed mention leaves inside a line is closed: indentation stays.
  const tidied = text.replace(/(\S)[ \t]{2,}(?=\S)/g, "$1 ").trim();
  return { kind: "text", text: tidied, message, authorId, authorName: nameOf(message) };
}

/**
 * How a message's author is named: a chat that speaks (an anonymous admin, as the group; a
 * channel's post in its discussion group) by its title, a person by personName.
 */
export function nameOf(message: Message): string | undefined {
  const chat = message.sender_chat;
  if (chat && "title" in chat) return chat.title;
  return message.from && personName(message.from);
}

/**
 * How the bot names a person in what it writes ("stopped by …", "claimed by …"), the same
 * whether they typed or pressed: their @username, which names one account, else their name.
 */
export function personName(user: User): string {
  return user.username
    ? `@${user.username}`
    : [user.first_name, user.last_name].filter(Boolean).join(" ");
}

/**
 * Whether a person wrote the message: not a bot (the bot itself, another bot, a channel
 * speaking through "Channel_Bot"), not an inline bot's result a person picked (`via_bot`:
 * the bot wrote the words), not a channel post or its automatic copy in the discussion group.
 * An anonymous admin (GroupAnonymousBot on behalf of the group itself) is a person.
 */
function writtenByPerson(message: Message): boolean {
  if (message.is_automatic_forward || message.chat.type === "channel") return false;
  if (message.via_bot !== undefined) return false;
  return message.from?.is_bot !== true || isAnonymousAdmin(message);
}

function isAnonymousAdmin(message: Message): boolean {
  return message.from?.id === ANONYMOUS_ADMIN_BOT_ID && message.sender_chat?.id === message.chat.id;
}

interface LeadingCommand {
  name: string;
  target: string | undefined;
  /** Length of `/name@target` in the text. */
  length: number;
}

export function leadingCommand(
  text: string,
  entities: readonly MessageEntity[],
): LeadingCommand | undefined {
  const entity = entities.find((e) => e.type === "bot_command" && e.offset === 0);
  if (!entity) return undefined;
  const [name = "", target] = text.slice(1, entity.length).split("@");
  return { name: name.toLowerCase(), target, length: entity.length };
}

function mentionsMe(text: string, entities: readonly MessageEntity[], me: BotIdentity): boolean {
  return entities.some((e) => isMyMention(text, e, me));
}

function isMyMention(text: string, entity: MessageEntity, me: BotIdentity): boolean {
  if (entity.type === "text_mention") return entity.user.id === me.id;
  if (entity.type !== "mention") return false;
  const mention = text.slice(entity.offset, entity.offset + entity.length);
  return mention.toLowerCase() === `@${me.username.toLowerCase()}`;
}

/** A reply to the bot. */
function repliesToMe(message: Message, me: BotIdentity): boolean {
  return message.reply_to_message?.from?.id === me.id && !repliesToTopic(message);
}

/**
 * In a forum topic every message "replies" to the topic's first one: no reply a person chose.
 */
export function repliesToTopic(message: Message): boolean {
  const replied = message.reply_to_message;
  return (
    replied !== undefined &&
    (replied.forum_topic_created !== undefined ||
      (message.is_topic_message === true && replied.message_id === message.message_thread_id))
  );
}

/** The text without the mentions of this bot (the entities' offsets are the text's). */
export function withoutMentions(
  text: string,
  entities: readonly MessageEntity[],
  me: BotIdentity,
): string {
  const mine = entities
    .filter((e) => e.type === "mention" && isMyMention(text, e, me))
    .sort((a, b) => b.offset - a.offset);
  let result = text;
  for (const e of mine) result = result.slice(0, e.offset) + result.slice(e.offset + e.length);
  return result;
}

const CHAIN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** The chain messages whose record this process keeps a copy of, to write them back. */
const KEPT_CHAIN_MESSAGES = 10_000;
const chainKey = (chatId: number, messageId: number) => `telegram:chain:${chatId}:${messageId}`;

/** The thread a lead card's replies go on in (LeadAnnouncer.talkUnder): its chain's key. */
export function cardThreadKey(chatId: number, messageId: number): string {
  return `${telegramChannelKey(chatId)}:chain:${messageId}`;
}

/**
 * Reply chains in groups without topics. Each message of a chain (the questions and the bot's
 * answers) is stored as belonging to the chain's thread, so replying to any of them
 * continues that conversation; a mention that replies to nothing known starts a new chain.
 */
export class ReplyChains {
  readonly #kept: KeptRecords;

  /**
   * Kept records: memory pressure on Redis never breaks a chain. With `writeBacks`, the chain
   * messages this process read or wrote lately are written back should the store lose its data.
   */
  constructor(
    readonly store: KeyValueStore,
    writeBacks?: WriteBacks,
  ) {
    this.#kept = new KeptRecords(store, {
      what: "Telegram reply chains",
      max: KEPT_CHAIN_MESSAGES,
      kept: true,
      writeBacks,
    });
  }

  async threadOf(chatId: number, messageId: number): Promise<string | undefined> {
    const key = chainKey(chatId, messageId);
    const value = await this.store.get<unknown>(key);
    if (typeof value !== "string") return undefined;
    this.#kept.note(key, value, CHAIN_TTL_MS);
    return value;
  }

  async remember(chatId: number, messageId: number, threadKey: string): Promise<void> {
    const key = chainKey(chatId, messageId);
    await this.store.set(key, threadKey, { keptMs: CHAIN_TTL_MS });
    this.#kept.note(key, threadKey, CHAIN_TTL_MS);
  }
}

/**
 * Where the answer to `message` goes and which thread it belongs to:
 * - private chat: the chat (or the private topic it came from);
 * - forum: the topic; the General topic takes no message_thread_id on send;
 * - group without topics: the reply chain the message continues, or a new one.
 * (A reply in a supergroup without topics carries a message_thread_id too: it names the reply
 * thread, not a topic, so only `is_topic_message` counts.)
 */
export async function placeOf(
  message: Message,
  chains: ReplyChains,
  me?: BotIdentity,
): Promise<Place> {
  const chatId = message.chat.id;
  const base = telegramChannelKey(chatId);
  const topic = message.is_topic_message ? message.message_thread_id : undefined;
  const replied = message.reply_to_message?.message_id;
  // With the store down the message still goes on (as a new chain), so the bridge can tell
  // the person what is wrong rather than leave them without an answer.
  const chainOf = (id: number) => chains.threadOf(chatId, id).catch(() => undefined);
  // Where chats have no chains of their own (a private chat, a forum's topic), a reply to a
  // lead card, or to a line posted under one, goes on in the card's hand-over chain
  // (src/handover/, ReplyChains.remember of the card).
  const chained = message.chat.type !== "private" && message.chat.is_forum !== true;
  // A person's ephemeral message (a command only they and the bot see) has no message id: no
  // chain runs through it, and no reply can quote it.
  const ephemeral = ephemeralIdOf(message);
  const talked =
    !chained && replied !== undefined && me !== undefined && repliesToMe(message, me)
      ? await chainOf(replied)
      : undefined;
  if (message.chat.type === "private") {
    const threadKey = talked ?? (topic === undefined ? base : `${base}:topic:${topic}`);
    return {
      chatId,
      isPrivate: true,
      topicId: topic,
      replyTo: undefined,
      threadKey,
      chained: false,
    };
  }
  const replyTo = ephemeral === undefined ? message.message_id : undefined;
  if (message.chat.is_forum) {
    const threadKey = talked ?? `${base}:topic:${topic ?? "general"}`;
    return { chatId, isPrivate: false, topicId: topic, replyTo, threadKey, chained: false };
  }
  const known = replied === undefined ? undefined : await chainOf(replied);
  if (ephemeral !== undefined) {
    const threadKey = known ?? `${base}:chain:e${ephemeral}:${message.date}`;
    return { chatId, isPrivate: false, topicId: undefined, replyTo, threadKey, chained: false };
  }
  const threadKey = known ?? `${base}:chain:${message.message_id}`;
  await chains.remember(chatId, message.message_id, threadKey).catch(() => undefined);
  return { chatId, isPrivate: false, topicId: undefined, replyTo, threadKey, chained: true };
}

/** A person's ephemeral message's id (Bot API 10.3: its message_id is 0); else undefined. */
export function ephemeralIdOf(message: Message): number | undefined {
  return message.message_id === 0 ? message.ephemeral_message_id : undefined;
}

/**
 * Where a Telegram conversation is (IncomingMessage.origin): its chat, the chat's kind and
 * names as the message shows them, and the message.
 */
export const telegramOriginShape = z.object({
  chat: z.number(),
  type: z.enum(["private", "group", "supergroup", "channel"]),
  title: z.string().optional(),
  username: z.string().optional(),
  message: z.number(),
  /** In a private chat: the person's name. */
  asker: z.string().optional(),
  /** A Telegram Business account's chat with its customer (docs/telegram.md, "Telegram Business"). */
  business: z.boolean().optional(),
});
export type TelegramOrigin = z.infer<typeof telegramOriginShape>;

/** The lead card reads it back from the store with telegramOriginShape (lead-announcement.ts). */
export function originOf(message: Message): TelegramOrigin {
  const { chat, message_id } = message;
  const origin: TelegramOrigin = { chat: chat.id, type: chat.type, message: message_id };
  if ("title" in chat && chat.title) origin.title = chat.title;
  if ("username" in chat && chat.username) origin.username = chat.username;
  const name = chat.type === "private" ? nameOf(message) : undefined;
  if (name) origin.asker = name;
  return origin;
}

/** A Telegram chat as the core names it (its channel key, and the start of its threads' keys). */
export function telegramChannelKey(chatId: number | string): string {
  return `telegram:${chatId}`;
}
