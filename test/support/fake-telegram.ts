import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createFakeBusiness, type FakeBusiness } from "./fake-telegram-business.ts";
import { createFakeGuest, type FakeGuest } from "./fake-telegram-guest.ts";
import { type Bucket, FloodLimits, type Window } from "./flood-limits.ts";
import {
  EntityParseError,
  hasLoneSurrogate,
  type ParsedEntity,
  parseTelegramHtml,
} from "./telegram-html.ts";
import {
  detectEntities,
  findMentions,
  parseRichHtml,
  RichMessageError,
  type RichSummary,
} from "./telegram-rich.ts";

/**
 * A fake Telegram Bot API on 127.0.0.1 that keeps the rules a bot meets on the real one:
 * `/bot<token>/<method>` URLs, long polling with offsets (and 409 when another poller or a
 * webhook is in the way), HTML entities checked when `parse_mode` is HTML, the 4,096-character
 * limit, per-chat and per-group flood limits answered with 429 and `retry_after`, and the
 * edit errors ("message is not modified", "message to edit not found"). Bot API 10.1's rich
 * messages (sendRichMessage, sendRichMessageDraft, editMessageText with `rich_message`) are
 * read from their `html` as telegram-rich.ts says, drafts may show Telegram's stop button, and
 * inline buttons keep their style. It records every call, and keeps each chat's messages as a
 * person would see them.
 */

export type { Bucket, Window } from "./flood-limits.ts";

export interface FakeTelegramOptions {
  token?: string;
  botId?: number;
  botUsername?: string;
  /**
   * Flood limits (Telegram's FAQ): every chat about one call a second after a short burst, and
   * every group at most 20 calls in any minute.
   */
  limits?: { chat?: Bucket; group?: Window };
  /** Telegram answers whole seconds in `retry_after`; tests with scaled limits want exact ones. */
  exactRetryAfter?: boolean;
  /** false: `sendMessageDraft` answers 404 Not Found, as a Bot API server without it. */
  draftsAvailable?: boolean;
  /**
   * false: a Bot API server older than 10.1: sendRichMessage and sendRichMessageDraft answer
   * 404 Not Found, and editMessageText ignores `rich_message` as the unknown field it is.
   */
  richAvailable?: boolean;
  /** BotFather's guest mode is on for the bot: getMe says `supports_guest_queries`. */
  guestQueries?: boolean;
}

export interface User {
  id: number;
  is_bot: boolean;
  first_name: string;
  username?: string;
  /** The language the person set in Telegram (an IETF tag: `de`, `pt-br`). */
  language_code?: string;
}

export interface Chat {
  id: number;
  type: "private" | "group" | "supergroup";
  title?: string;
  first_name?: string;
  /** A private chat's person's @username, as Telegram gives it in the chat. */
  username?: string;
  is_forum?: true;
}

/** A message as the fake keeps it: what a person sees now, and how it got there. */
export interface StoredMessage {
  message_id: number;
  chat: Chat;
  from: User;
  /** The visible text (of a rich message: its plain reading, telegram-rich.ts). */
  text: string;
  /** A photo's caption, for a person's photo sent with one (its `text` is then ""). */
  caption?: string | undefined;
  /** The text as the bot sent it (HTML when parse_mode was HTML; a rich message's `html`). */
  raw: string;
  parseMode: string | undefined;
  entities: ParsedEntity[];
  /** The forum topic it is in (undefined: General topic, or not a forum). */
  threadId: number | undefined;
  /** What a non-forum supergroup reports as message_thread_id for a reply chain. */
  replyThreadId: number | undefined;
  replyTo: number | undefined;
  date: number;
  /** Every text it showed, first to last. */
  history: string[];
  deleted: boolean;
  forumTopicCreated?: { name: string };
  /** The inline keyboard under it, as the bot last set it (none: undefined). */
  replyMarkup?: InlineKeyboard | undefined;
  /** A rich message's tables, headings and counts (undefined: a classic text message). */
  rich?: RichSummary | undefined;
  /** A rich message's `rich_message` as its Message JSON carries it. */
  richMessage?: Record<string, unknown> | undefined;
}

/** An inline keyboard as the Bot API takes it. */
export interface InlineKeyboard {
  inline_keyboard: {
    text: string;
    callback_data?: string;
    /** Bot API 9.4: the button's colour. */
    style?: "danger" | "success" | "primary";
  }[][];
}

/** One showing of a draft in a private chat. */
export interface DraftFrame {
  /** What a person reads in it (of a rich draft: its plain reading). */
  text: string;
  entities: ParsedEntity[];
  /** A rich draft's structure (undefined: a classic sendMessageDraft). */
  rich?: RichSummary;
  /** It showed Telegram's stop button (`can_stop`). */
  canStop: boolean;
  keepOnStop: boolean;
  threadId: number | undefined;
}

export interface RecordedCall {
  method: string;
  /** Which bot process called, when it was given `apiRootFor(caller)`. */
  caller: string | undefined;
  params: Record<string, unknown>;
  /** performance.now() when the request arrived. */
  at: number;
  ok: boolean;
  errorCode?: number;
  description?: string;
}

export interface InjectedError {
  method: string;
  chatId?: number;
  errorCode: number;
  description: string;
  retryAfter?: number;
}

export interface FakeTelegram {
  /** The apiRoot to give grammY (no trailing slash). */
  readonly url: string;
  /** An apiRoot whose calls are recorded with `caller`, to tell bot processes apart. */
  apiRootFor(caller: string): string;
  readonly token: string;
  readonly bot: User;
  readonly calls: readonly RecordedCall[];
  /** 429 answers the fake gave. */
  readonly floodErrors: number;
  /** Calls that came while a retry_after the fake had given was still running. */
  readonly violations: number;
  draftsAvailable: boolean;
  /** Off: an older Bot API server, without rich messages (see FakeTelegramOptions). */
  richAvailable: boolean;
  /** On: every getUpdates answers 409, as when another instance polls with the token. */
  conflict: boolean;
  /** On: getUpdates never answers (a stalled connection). Off again: the held ones answer. */
  holdPolls: boolean;
  /** Cuts the connections of the getUpdates requests waiting now, as a proxy dropping them. */
  dropPolls(): void;
  user(id: number, firstName: string, username?: string): User;
  addChat(chat: Chat, members?: Record<number, MemberStatus>): Chat;
  setMember(chatId: number, userId: number, status: MemberStatus): void;
  /** Creates a forum topic; its id is the id of the service message that created it. */
  createTopic(chatId: number, name: string, creator: User): number;
  /** A person writes: queued for getUpdates and returned as an Update. */
  write(input: WriteInput): Update;
  /** An update as it would be queued, without queueing it (for webhook deliveries). */
  compose(input: WriteInput): Update;
  /**
   * An update of `kind` with this body as given, however malformed (what a client or a proxy
   * in front of a webhook might send), numbered as the fake numbers updates, not queued.
   */
  updateOf(kind: string, body: unknown): AnyUpdate;
  enqueue(update: Update | AnyUpdate): void;
  /**
   * An update that reaches the bot without the fake composing it (a recorded one): its chat
   * and its message now exist, as they would on Telegram, so the bot can reply to it.
   */
  receive(update: Record<string, unknown>): void;
  /** A person deletes a message. */
  deleteMessage(chatId: number, messageId: number): void;
  /**
   * A person presses a button under a message: a `callback_query` update queued for
   * getUpdates (unless `queue` is false, for webhook deliveries) and returned. `data` is sent
   * as given (a client may send anything); its query id is answerable once.
   */
  press(input: PressInput): PressUpdate;
  /** The answers to callback queries, by query id, in order (text and show_alert as sent). */
  readonly callbackAnswers: { queryId: string; text?: string; showAlert?: boolean }[];
  /** The reactions the bot set (setMessageReaction), in order. */
  readonly reactions: { chatId: number; messageId: number; emoji: string }[];
  /** Telegram Business: connected accounts, their customers' chats, the bot's calls in them. */
  readonly business: FakeBusiness;
  /** Guest mode: mentions of the bot in chats it is not in, and its answers there. */
  readonly guest: FakeGuest;
  /** The ephemeral messages the bot sent (Bot API 10.2), each seen by its receiver alone. */
  readonly ephemerals: EphemeralRecord[];
  /** The allowed_updates of the last getUpdates or setWebhook that named them. */
  readonly allowedUpdates: readonly string[] | undefined;
  /**
   * Whether Telegram would deliver an update of `kind` (`"stopped_message_generation"`) now:
   * the allowed_updates the bot last named hold it, or it named none or an empty list (every
   * kind but chat_member, message_reaction and message_reaction_count).
   */
  delivers(kind: string): boolean;
  /**
   * The person presses Telegram's stop button on a draft: a `stopped_message_generation`
   * update queued for getUpdates (which drops it unless `delivers` it) and returned, for
   * webhook deliveries. Throws in the test when the button is not there: the draft's last
   * showing had no `can_stop`, it was stopped already, the bot has sent a message in the chat
   * since, or 30 seconds have passed since it was last shown.
   */
  stopGeneration(chatId: number, draftId: number): StopUpdate;
  message(chatId: number, messageId: number): StoredMessage | undefined;
  /** The bot's messages in a chat (or one topic of it), oldest first, deleted ones left out. */
  botMessages(chatId: number, threadId?: number): StoredMessage[];
  /** Drafts shown in a private chat, by draft id: every visible text in order. */
  drafts(chatId: number): Map<number, string[]>;
  /** Drafts shown in a private chat, by draft id: every showing in order, stop button and all. */
  draftFrames(chatId: number): Map<number, DraftFrame[]>;
  callsTo(method: string, chatId?: number): RecordedCall[];
  commands(): Map<string, { command: string; description: string }[]>;
  webhook(): { url: string; secret: string | undefined } | undefined;
  /** The next matching call fails with this error. */
  failNext(error: InjectedError): void;
  /**
   * The next call `matches` accepts is done as Telegram does it, and its reply never comes, as
   * when the connection drops on the way back: resolves with the call once it was done.
   */
  holdReply(matches: (call: RecordedCall) => boolean): Promise<RecordedCall>;
  /** getUpdates requests waiting now. */
  readonly pendingPolls: number;
  close(): Promise<void>;
}

/**
 * What a recorded call gave a message or draft to show: an HTML message's `text`, a rich
 * message's `html` (undefined for a call with neither).
 */
export function markupOf(call: RecordedCall | undefined): string | undefined {
  const rich = jsonParam(call?.params.rich_message) as { html?: unknown } | undefined;
  const markup = rich?.html ?? call?.params.text;
  return typeof markup === "string" ? markup : undefined;
}

export type MemberStatus =
  | "creator"
  | "administrator"
  | "member"
  | "restricted"
  | "left"
  | "kicked";

export interface WriteInput {
  chat: number;
  from: User;
  text?: string;
  /** A message without text: a sticker. */
  sticker?: boolean;
  /** A photo with this caption instead of a text. */
  caption?: string;
  replyTo?: number;
  /**
   * The part of the replied-to message the person quoted (Telegram's TextQuote): it must be
   * in that message's text or caption, as Telegram's clients only quote what is there.
   */
  quote?: string;
  /** A forum topic id. */
  topic?: number;
  /** Sent by an anonymous admin on behalf of the group. */
  anonymousAdmin?: boolean;
  /**
   * An ephemeral message (Bot API 10.3: a command the menu marks `is_ephemeral`), seen by its
   * sender and the bot alone: message_id 0, an ephemeral_message_id, kept out of the chat.
   * `ephemeralAgeSeconds` dates it that far back.
   */
  ephemeral?: boolean;
  ephemeralAgeSeconds?: number;
}

export type Update = { update_id: number; message: Record<string, unknown> };

/** An update of any kind, its body unchecked. */
export type AnyUpdate = { update_id: number; [kind: string]: unknown };

/** An ephemeral message as the fake keeps it: its chat, its one reader, what it shows. */
export interface EphemeralRecord {
  chatId: number;
  receiverUserId: number;
  ephemeralMessageId: number;
  text: string;
  threadId: number | undefined;
}

/** A press of an inline keyboard button, as Telegram delivers it. */
export type PressUpdate = { update_id: number; callback_query: Record<string, unknown> };

/** A press of the stop button on a draft, as Telegram delivers it (Bot API 10.1). */
export type StopUpdate = {
  update_id: number;
  stopped_message_generation: { chat: Chat; message_thread_id?: number; draft_id: number };
};

export interface PressInput {
  chat: number;
  messageId: number;
  from: User;
  data: string;
}

const MAX_LENGTH = 4_096;
/** How long a person's ephemeral message may be replied to (EphemeralMessageParameters). */
const EPHEMERAL_REPLY_MS = 15_000;
/** "A temporary 30-second preview" (sendMessageDraft). */
const DRAFT_LIFETIME_MS = 30_000;
/** The kinds of update Telegram leaves out unless the bot names them in allowed_updates. */
const OPT_IN_UPDATES = ["chat_member", "message_reaction", "message_reaction_count"];
const ANONYMOUS_ADMIN: User = {
  id: 1_087_968_824,
  is_bot: true,
  first_name: "Group",
  username: "GroupAnonymousBot",
};

/** Not an answer: the request's connection is destroyed instead. */
class ConnectionCut extends Error {}

class ApiFailure extends Error {
  constructor(
    readonly errorCode: number,
    readonly description: string,
    readonly retryAfter?: number,
  ) {
    super(description);
  }
}

/** What a message shows, and what it was sent as. */
interface Content {
  text: string;
  raw: string;
  parseMode: string | undefined;
  entities: ParsedEntity[];
  rich?: RichSummary;
  richMessage?: Record<string, unknown>;
}

/** A draft's showings, and what tells whether its stop button is still there. */
interface DraftRecord {
  frames: DraftFrame[];
  /** performance.now() and the chat's sequence number when it was last shown. */
  shownAt: number;
  shownSeq: number;
  stopped: boolean;
}

interface Poll {
  resolve: () => void;
  fail: (failure: ApiFailure | ConnectionCut) => void;
  timer: NodeJS.Timeout | undefined;
}

export async function startFakeTelegram(options: FakeTelegramOptions = {}): Promise<FakeTelegram> {
  const token = options.token ?? "123456789:AAFakeTokenThatMustNeverBeLogged_xyz";
  const bot: User = {
    id: options.botId ?? 123_456_789,
    is_bot: true,
    first_name: "Chat Bridge",
    username: options.botUsername ?? "ChatBridgeBot",
  };
  const chatLimit = options.limits?.chat ?? { perMinute: 60, burst: 3 };
  const groupLimit = options.limits?.group ?? { limit: 20, windowMs: 60_000 };
  const chats = new Map<number, Chat>();
  const members = new Map<number, Map<number, MemberStatus>>();
  const messages = new Map<number, Map<number, StoredMessage>>();
  const nextMessageId = new Map<number, number>();
  const drafts = new Map<number, Map<number, DraftRecord>>();
  /** Per chat, the sequence number of the bot's last message: a draft shown before it is gone. */
  const lastSent = new Map<number, number>();
  let sequence = 0;
  const calls: RecordedCall[] = [];
  const queue: (Update | PressUpdate | StopUpdate | AnyUpdate)[] = [];
  const callbackAnswers: { queryId: string; text?: string; showAlert?: boolean }[] = [];
  const reactions: { chatId: number; messageId: number; emoji: string }[] = [];
  const ephemerals: EphemeralRecord[] = [];
  /** People's ephemeral messages to the bot, by `<chat>:<ephemeral id>`: who, and when (ms). */
  const incomingEphemerals = new Map<string, { from: number; at: number }>();
  let nextEphemeralId = 1;
  /** Callback queries sent and not answered yet: each is answerable once. */
  const openQueries = new Set<string>();
  let allowedUpdates: string[] | undefined;
  let nextQueryId = 5_000;
  const injected: InjectedError[] = [];
  const held: { matches: (call: RecordedCall) => boolean; done: (call: RecordedCall) => void }[] =
    [];
  const commands = new Map<string, { command: string; description: string }[]>();
  const floodLimits = new FloodLimits();
  const blockedUntil = new Map<number, number>();
  let webhook: { url: string; secret: string | undefined } | undefined;
  let nextUpdateId = 1_000;
  let floodErrors = 0;
  let violations = 0;
  let activePoll: Poll | undefined;
  const waiting = new Set<Poll>();

  const state = {
    draftsAvailable: options.draftsAvailable ?? true,
    richAvailable: options.richAvailable ?? true,
    conflict: false,
    holdPolls: false,
  };

  function chatOf(id: unknown): Chat {
    const chat = chats.get(Number(id));
    if (!chat) throw new ApiFailure(400, "Bad Request: chat not found");
    return chat;
  }

  function store(chatId: number): Map<number, StoredMessage> {
    let map = messages.get(chatId);
    if (!map) {
      map = new Map();
      messages.set(chatId, map);
    }
    return map;
  }

  /** The bot's own message that an edit names, refused as Telegram refuses it. */
  function toEdit(params: Record<string, unknown>): { chat: Chat; message: StoredMessage } {
    const chat = chatOf(params.chat_id);
    const message = store(chat.id).get(Number(params.message_id));
    if (!message || message.deleted)
      throw new ApiFailure(400, "Bad Request: message to edit not found");
    if (message.from.id !== bot.id)
      throw new ApiFailure(400, "Bad Request: message can't be edited");
    return { chat, message };
  }

  const notModified = () =>
    new ApiFailure(
      400,
      "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
    );

  function newMessageId(chatId: number): number {
    const id = nextMessageId.get(chatId) ?? 1;
    nextMessageId.set(chatId, id + 1);
    return id;
  }

  function wakePolls(): void {
    for (const poll of waiting) poll.resolve();
  }

  function flood(chat: Chat): void {
    const now = performance.now();
    const blocked = blockedUntil.get(chat.id) ?? 0;
    if (now < blocked) {
      violations++;
      throw tooMany(blocked - now);
    }
    let wait = floodLimits.take(`chat ${chat.id}`, chatLimit);
    if (wait === 0 && chat.type !== "private")
      wait = floodLimits.take(`group ${chat.id}`, groupLimit);
    if (wait > 0) {
      blockedUntil.set(chat.id, now + retrySeconds(wait) * 1000);
      throw tooMany(wait);
    }
  }

  function retrySeconds(waitMs: number): number {
    return options.exactRetryAfter
      ? Math.ceil(waitMs) / 1000
      : Math.max(1, Math.ceil(waitMs / 1000));
  }

  function tooMany(waitMs: number): ApiFailure {
    floodErrors++;
    const seconds = retrySeconds(waitMs);
    return new ApiFailure(429, `Too Many Requests: retry after ${Math.ceil(seconds)}`, seconds);
  }

  function parseText(params: Record<string, unknown>): Content {
    const raw = params.text;
    if (typeof raw !== "string") throw new ApiFailure(400, "Bad Request: message text is empty");
    utf8(raw);
    let parsed: { text: string; entities: ParsedEntity[] } = { text: raw, entities: [] };
    if (params.parse_mode === "HTML") {
      try {
        parsed = parseTelegramHtml(raw);
      } catch (error) {
        if (error instanceof EntityParseError) throw new ApiFailure(400, error.message);
        throw error;
      }
    } else if (params.parse_mode !== undefined) {
      throw new ApiFailure(400, "Bad Request: unsupported parse_mode");
    }
    if (parsed.text.trim() === "") throw new ApiFailure(400, "Bad Request: message text is empty");
    if (parsed.text.length > MAX_LENGTH)
      throw new ApiFailure(400, "Bad Request: message is too long");
    return { ...parsed, raw, parseMode: params.parse_mode as string | undefined };
  }

  /**
   * A `rich_message` as Telegram reads it (`draft`: a sendRichMessageDraft's). The wording of
   * the errors about its fields is the fake's own: Telegram documents none.
   */
  function parseRich(params: Record<string, unknown>, draft: boolean): Content {
    const input = jsonParam(params.rich_message) as Record<string, unknown> | undefined;
    if (typeof input !== "object" || input === null) {
      throw new ApiFailure(400, "Bad Request: rich message must be an object");
    }
    const given = ["html", "markdown", "blocks"].filter((field) => input[field] !== undefined);
    if (given.length !== 1) {
      throw new ApiFailure(
        400,
        "Bad Request: exactly one of html, markdown and blocks must be specified in the rich message",
      );
    }
    for (const field of ["markdown", "blocks", "media"]) {
      if (input[field] !== undefined) {
        throw new ApiFailure(
          501,
          `Not Implemented: the fake Bot API reads only rich_message.html, not rich_message.${field}`,
        );
      }
    }
    const html = input.html;
    if (typeof html !== "string") throw new ApiFailure(400, "Bad Request: rich message is empty");
    utf8(html);
    let parsed: ReturnType<typeof parseRichHtml>;
    try {
      parsed = parseRichHtml(html, { draft });
    } catch (error) {
      if (error instanceof RichMessageError) throw new ApiFailure(400, error.message);
      throw error;
    }
    const entities =
      input.skip_entity_detection === true
        ? parsed.entities
        : [...parsed.entities, ...detectEntities(parsed.text, parsed.entities)].sort(
            (a, b) => a.offset - b.offset || b.length - a.length,
          );
    return {
      text: parsed.text,
      raw: html,
      parseMode: undefined,
      entities,
      rich: parsed.rich,
      richMessage: { blocks: parsed.blocks, ...(input.is_rtl === true ? { is_rtl: true } : {}) },
    };
  }

  /** editMessageText's new content: exactly one of text and rich_message. */
  function editedContent(params: Record<string, unknown>): Content {
    // A server older than Bot API 10.1 ignores the field it does not know.
    if (!state.richAvailable || params.rich_message === undefined) return parseText(params);
    if (params.text !== undefined) {
      throw new ApiFailure(
        400,
        "Bad Request: exactly one of text and rich_message must be specified",
      );
    }
    return parseRich(params, false);
  }

  function threadFor(chat: Chat, params: Record<string, unknown>): number | undefined {
    const thread = params.message_thread_id;
    if (thread === undefined) return undefined;
    const topic = store(chat.id).get(Number(thread));
    if (!chat.is_forum || !topic?.forumTopicCreated) {
      throw new ApiFailure(400, "Bad Request: message thread not found");
    }
    return Number(thread);
  }

  function messageJson(message: StoredMessage, withReply = true): Record<string, unknown> {
    const json: Record<string, unknown> = {
      message_id: message.message_id,
      date: message.date,
      chat: message.chat,
      from: message.from,
    };
    if (message.forumTopicCreated) {
      json.forum_topic_created = { name: message.forumTopicCreated.name, icon_color: 7322096 };
    } else if (message.richMessage) {
      json.rich_message = message.richMessage;
    } else if (message.caption !== undefined) {
      json.photo = [{ file_id: "photo", file_unique_id: "photo", width: 90, height: 90 }];
      json.caption = message.caption;
      if (message.entities.length > 0) json.caption_entities = message.entities;
    } else if (message.text) {
      json.text = message.text;
      if (message.entities.length > 0) json.entities = message.entities;
    }
    if (message.threadId !== undefined) {
      json.message_thread_id = message.threadId;
      json.is_topic_message = true;
    } else if (message.replyThreadId !== undefined) {
      json.message_thread_id = message.replyThreadId;
    }
    if (message.from === ANONYMOUS_ADMIN) json.sender_chat = message.chat;
    if (withReply && message.replyTo !== undefined) {
      const replied = store(message.chat.id).get(message.replyTo);
      if (replied) json.reply_to_message = messageJson(replied, false);
    }
    return json;
  }

  /** The fields of a message that its content sets. */
  function shown(content: Content) {
    return {
      text: content.text,
      raw: content.raw,
      parseMode: content.parseMode,
      entities: content.entities,
      rich: content.rich,
      richMessage: content.richMessage,
    };
  }

  /** sendMessage and sendRichMessage: `read` gives the content, checked in Telegram's order. */
  /**
   * A message one member of a group sees alone. The bot may send one to any member who is not
   * a bot while it administers the group (without it, only in answer to that member's press or
   * ephemeral message, which this fake does not take); it stays out of the chat's history.
   * https://core.telegram.org/bots/api#ephemeralmessageparameters
   */
  function postEphemeral(
    params: Record<string, unknown>,
    read: (params: Record<string, unknown>) => Content,
  ): Record<string, unknown> {
    const chat = chatOf(params.chat_id);
    if (chat.type === "private") {
      throw new ApiFailure(400, "Bad Request: ephemeral messages can't be sent to this chat");
    }
    const parameters = params.ephemeral_message_parameters as { receiver_user_id?: unknown };
    const receiver = Number(parameters.receiver_user_id);
    const status = members.get(chat.id)?.get(receiver);
    const present = ["creator", "administrator", "member", "restricted"];
    if (!status || !present.includes(status))
      throw new ApiFailure(400, "Bad Request: user not found");
    const botStatus = members.get(chat.id)?.get(bot.id);
    const replying = (params.reply_parameters as { ephemeral_message_id?: unknown } | undefined)
      ?.ephemeral_message_id;
    if (replying !== undefined) {
      // "A reply to an ephemeral message must itself be an ephemeral message. An ephemeral
      // message may only be replied to within 15 seconds of being sent."
      const asked = incomingEphemerals.get(`${chat.id}:${Number(replying)}`);
      if (!asked || asked.from !== receiver) {
        throw new ApiFailure(400, "Bad Request: ephemeral message to be replied not found");
      }
      if (Date.now() - asked.at > EPHEMERAL_REPLY_MS) {
        throw new ApiFailure(400, "Bad Request: ephemeral message reply time expired");
      }
    } else if (botStatus !== "administrator" && botStatus !== "creator") {
      throw new ApiFailure(400, "Bad Request: not enough rights to send ephemeral messages");
    }
    const content = read(params);
    flood(chat);
    const record: EphemeralRecord = {
      chatId: chat.id,
      receiverUserId: receiver,
      ephemeralMessageId: ephemerals.length + 1,
      text: content.text,
      threadId: threadFor(chat, params),
    };
    ephemerals.push(record);
    return {
      message_id: 0,
      ephemeral_message_id: record.ephemeralMessageId,
      receiver_user: { id: receiver, is_bot: false, first_name: `user ${receiver}` },
      chat,
      from: bot,
      date: Math.floor(Date.now() / 1000),
      text: content.text,
    };
  }

  function post(
    params: Record<string, unknown>,
    read: (params: Record<string, unknown>) => Content,
  ): Record<string, unknown> {
    const chat = chatOf(params.chat_id);
    const thread = threadFor(chat, params);
    const content = read(params);
    const reply = params.reply_parameters as
      | { message_id?: number; allow_sending_without_reply?: boolean }
      | undefined;
    let replyTo: number | undefined;
    if (reply?.message_id !== undefined) {
      const replied = store(chat.id).get(reply.message_id);
      if (replied && !replied.deleted) replyTo = reply.message_id;
      else if (!reply.allow_sending_without_reply) {
        throw new ApiFailure(400, "Bad Request: message to be replied not found");
      }
    }
    const replyMarkup = keyboardOf(params.reply_markup);
    flood(chat);
    const repliedTopic = replyTo === undefined ? undefined : store(chat.id).get(replyTo)?.threadId;
    const message: StoredMessage = {
      message_id: newMessageId(chat.id),
      chat,
      from: bot,
      ...shown(content),
      threadId: thread ?? repliedTopic,
      replyThreadId: undefined,
      replyTo,
      date: Math.floor(Date.now() / 1000),
      history: [content.text],
      deleted: false,
      replyMarkup,
    };
    store(chat.id).set(message.message_id, message);
    // "The draft will still disappear … if the bot sends a message."
    lastSent.set(chat.id, ++sequence);
    return messageJson(message);
  }

  /**
   * sendMessageDraft and sendRichMessageDraft: refused as Telegram refuses them, then kept
   * as one more showing of the draft.
   */
  function showDraft(
    params: Record<string, unknown>,
    available: boolean,
    read: () => Content,
  ): true {
    if (!available) throw new ApiFailure(404, "Not Found");
    const chat = chatOf(params.chat_id);
    if (chat.type !== "private") throw new ApiFailure(400, "Bad Request: TEXTDRAFT_PEER_INVALID");
    const draftId = Number(params.draft_id);
    if (!Number.isInteger(draftId) || draftId === 0) {
      throw new ApiFailure(400, "Bad Request: draft_id must be non-zero");
    }
    const content = read();
    flood(chat);
    let chatDrafts = drafts.get(chat.id);
    if (!chatDrafts) {
      chatDrafts = new Map();
      drafts.set(chat.id, chatDrafts);
    }
    const record = chatDrafts.get(draftId) ?? {
      frames: [],
      shownAt: 0,
      shownSeq: 0,
      stopped: false,
    };
    record.frames.push({
      text: content.text,
      entities: content.entities,
      ...(content.rich ? { rich: content.rich } : {}),
      canStop: params.can_stop === true,
      keepOnStop: params.keep_on_stop === true,
      threadId: typeof params.message_thread_id === "number" ? params.message_thread_id : undefined,
    });
    record.shownAt = performance.now();
    record.shownSeq = ++sequence;
    chatDrafts.set(draftId, record);
    return true;
  }

  /** Whether Telegram would deliver an update of `kind`, given the bot's allowed_updates. */
  function delivers(kind: string): boolean {
    if (allowedUpdates && allowedUpdates.length > 0) return allowedUpdates.includes(kind);
    return !OPT_IN_UPDATES.includes(kind);
  }

  const queueUpdate = (kind: string, body: unknown): AnyUpdate => {
    const update: AnyUpdate = { update_id: nextUpdateId++, [kind]: body };
    queue.push(update);
    wakePolls();
    return update;
  };
  const failure = (errorCode: number, description: string) =>
    new ApiFailure(errorCode, description);
  const guest = createFakeGuest({
    queue: queueUpdate,
    failure,
    readText: parseText,
    entitiesOf: userEntities,
  });
  const business = createFakeBusiness({
    bot,
    queue: queueUpdate,
    failure,
    readText: parseText,
    readRich: (params) => parseRich(params, false),
    readEdit: editedContent,
    entitiesOf: userEntities,
  });

  const methods: Record<
    string,
    (params: Record<string, unknown>, gone: AbortSignal) => unknown | Promise<unknown>
  > = {
    getMe: () => ({
      ...bot,
      can_join_groups: true,
      can_read_all_group_messages: false,
      ...(options.guestQueries ? { supports_guest_queries: true } : {}),
    }),
    getUpdates: (params, gone) => getUpdates(params, gone),
    setWebhook: (params) => {
      if (typeof params.url !== "string" || params.url === "") {
        throw new ApiFailure(400, "Bad Request: bad webhook: URL must be provided");
      }
      const secret = params.secret_token;
      if (secret !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(String(secret))) {
        throw new ApiFailure(400, "Bad Request: secret token contains unallowed characters");
      }
      webhook = { url: params.url, secret: secret === undefined ? undefined : String(secret) };
      if (Array.isArray(params.allowed_updates))
        allowedUpdates = params.allowed_updates.map(String);
      activePoll?.fail(webhookConflict());
      return true;
    },
    deleteWebhook: () => {
      webhook = undefined;
      return true;
    },
    getWebhookInfo: () => ({ url: webhook?.url ?? "", pending_update_count: queue.length }),
    sendMessage: (params) =>
      params.ephemeral_message_parameters === undefined
        ? post(params, parseText)
        : postEphemeral(params, parseText),
    // A bot sets at most one reaction, of the emoji Telegram lists (no custom or paid ones
    // here), on a message of the chat. https://core.telegram.org/bots/api#setmessagereaction
    setMessageReaction: (params) => {
      const chat = chatOf(params.chat_id);
      const messageId = Number(params.message_id);
      const message = store(chat.id).get(messageId);
      if (!message || message.deleted) {
        throw new ApiFailure(400, "Bad Request: message to react not found");
      }
      const given = Array.isArray(params.reaction) ? params.reaction : [];
      if (given.length > 1) throw new ApiFailure(400, "Bad Request: REACTIONS_TOO_MANY");
      for (const reaction of given as { type?: unknown; emoji?: unknown }[]) {
        if (reaction.type !== "emoji" || !REACTION_EMOJI.has(String(reaction.emoji))) {
          throw new ApiFailure(400, "Bad Request: REACTION_INVALID");
        }
        reactions.push({ chatId: chat.id, messageId, emoji: String(reaction.emoji) });
      }
      return true;
    },
    sendRichMessage: (params) => {
      if (!state.richAvailable) throw new ApiFailure(404, "Not Found");
      const read = (checked: Record<string, unknown>) => parseRich(checked, false);
      return params.ephemeral_message_parameters === undefined
        ? post(params, read)
        : postEphemeral(params, read);
    },
    editMessageText: (params) => {
      const { chat, message } = toEdit(params);
      const content = editedContent(params);
      // An edit without reply_markup takes the inline keyboard away, as on Telegram.
      const markup = keyboardOf(params.reply_markup);
      if (
        content.text === message.text &&
        JSON.stringify(content.entities) === JSON.stringify(message.entities) &&
        JSON.stringify(content.richMessage) === JSON.stringify(message.richMessage) &&
        JSON.stringify(markup) === JSON.stringify(message.replyMarkup)
      ) {
        throw notModified();
      }
      flood(chat);
      Object.assign(message, shown(content), { replyMarkup: markup });
      message.history.push(content.text);
      return messageJson(message);
    },
    editMessageReplyMarkup: (params) => {
      const { chat, message } = toEdit(params);
      const markup = keyboardOf(params.reply_markup);
      if (JSON.stringify(markup) === JSON.stringify(message.replyMarkup)) {
        throw notModified();
      }
      flood(chat);
      message.replyMarkup = markup;
      return messageJson(message);
    },
    answerCallbackQuery: (params) => {
      const queryId = String(params.callback_query_id ?? "");
      if (!openQueries.delete(queryId)) {
        throw new ApiFailure(
          400,
          "Bad Request: query is too old and response timeout expired or query ID is invalid",
        );
      }
      const text = params.text === undefined ? undefined : String(params.text);
      if (text !== undefined && [...text].length > 200)
        throw new ApiFailure(400, "Bad Request: MESSAGE_TOO_LONG");
      callbackAnswers.push({
        queryId,
        ...(text === undefined ? {} : { text }),
        ...(params.show_alert === undefined ? {} : { showAlert: Boolean(params.show_alert) }),
      });
      return true;
    },
    sendMessageDraft: (params) =>
      showDraft(params, state.draftsAvailable, () =>
        // "Pass an empty text to show a “Thinking…” placeholder."
        params.text === "" || params.text === undefined
          ? { text: "", raw: "", parseMode: undefined, entities: [] }
          : parseText(params),
      ),
    sendRichMessageDraft: (params) =>
      showDraft(params, state.draftsAvailable && state.richAvailable, () =>
        parseRich(params, true),
      ),
    sendChatAction: (params) => {
      const chat = chatOf(params.chat_id);
      threadFor(chat, params);
      if (params.action !== "typing")
        throw new ApiFailure(400, "Bad Request: wrong parameter action in request");
      return true;
    },
    getChatMember: (params) => {
      const chat = chatOf(params.chat_id);
      const userId = Number(params.user_id);
      const status =
        chat.type === "private" ? "member" : (members.get(chat.id)?.get(userId) ?? "left");
      return { status, user: { id: userId, is_bot: false, first_name: `user ${userId}` } };
    },
    setMyCommands: (params) => {
      // "A two-letter ISO 639-1 language code", or none for the menu everyone else sees.
      if (params.language_code !== undefined && !/^[a-z]{2}$/.test(String(params.language_code))) {
        throw new ApiFailure(400, "Bad Request: invalid language code specified");
      }
      const list = params.commands as { command: string; description: string }[];
      for (const entry of list) {
        if (!/^[a-z0-9_]{1,32}$/.test(entry.command)) {
          throw new ApiFailure(400, "Bad Request: BOT_COMMAND_INVALID");
        }
        if (entry.description.length < 1 || entry.description.length > 256) {
          throw new ApiFailure(400, "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID");
        }
      }
      commands.set(scopeKey(params), list);
      return true;
    },
    getMyCommands: (params) => commands.get(scopeKey(params)) ?? [],
  };

  function scopeKey(params: Record<string, unknown>): string {
    const scope = (params.scope as { type?: string } | undefined)?.type ?? "default";
    return `${scope}:${params.language_code ?? ""}`;
  }

  function webhookConflict(): ApiFailure {
    return new ApiFailure(
      409,
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    );
  }

  async function getUpdates(params: Record<string, unknown>, gone: AbortSignal): Promise<unknown> {
    if (webhook) throw webhookConflict();
    if (state.conflict) {
      throw new ApiFailure(
        409,
        "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
      );
    }
    // A newer getUpdates ends the one still waiting, as on Telegram.
    activePoll?.fail(
      new ApiFailure(
        409,
        "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
      ),
    );
    const offset = Number(params.offset ?? 0);
    if (offset > 0) {
      while (queue.length > 0 && (queue[0]?.update_id ?? 0) < offset) queue.shift();
    }
    // Telegram leaves out (and drops) updates of kinds the bot did not ask for.
    if (Array.isArray(params.allowed_updates)) allowedUpdates = params.allowed_updates.map(String);
    for (let i = queue.length - 1; i >= 0; i--) {
      const kind = Object.keys(queue[i] ?? {}).find((key) => key !== "update_id") ?? "";
      if (!delivers(kind)) queue.splice(i, 1);
    }
    const limit = Math.min(100, Math.max(1, Number(params.limit ?? 100)));
    const timeoutMs = Math.max(0, Number(params.timeout ?? 0)) * 1000;
    if (queue.length === 0 && (timeoutMs > 0 || state.holdPolls)) {
      await new Promise<void>((resolve, reject) => {
        const poll: Poll = {
          resolve: () => done(resolve),
          fail: (failure) => done(() => reject(failure)),
          timer: state.holdPolls ? undefined : setTimeout(() => poll.resolve(), timeoutMs),
        };
        const done = (then: () => void) => {
          clearTimeout(poll.timer);
          waiting.delete(poll);
          if (activePoll === poll) activePoll = undefined;
          then();
        };
        waiting.add(poll);
        activePoll = poll;
        // The poller went away (stopped, aborted): its request waits no more.
        gone.addEventListener("abort", () => poll.resolve(), { once: true });
      });
    }
    if (state.holdPolls) return [];
    return queue.slice(0, limit);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake.invalid");
    const match = /^(?:\/([\w-]+))?\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const send = (status: number, body: unknown) => {
      if (res.destroyed) return;
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    };
    if (!match || match[2] !== token) {
      send(401, { ok: false, error_code: 401, description: "Unauthorized" });
      return;
    }
    const method = match[3] as string;
    let params: Record<string, unknown> = Object.fromEntries(url.searchParams);
    const body = Buffer.concat(chunks).toString("utf8");
    if (body) {
      try {
        params = { ...params, ...(JSON.parse(body) as Record<string, unknown>) };
      } catch {
        send(400, { ok: false, error_code: 400, description: "Bad Request: invalid JSON" });
        return;
      }
    }
    const call: RecordedCall = {
      method,
      caller: match[1],
      params,
      at: performance.now(),
      ok: false,
    };
    const gone = new AbortController();
    res.on("close", () => gone.abort());
    calls.push(call);
    const fail = (failure: ApiFailure) => {
      call.errorCode = failure.errorCode;
      call.description = failure.description;
      const reply: Record<string, unknown> = {
        ok: false,
        error_code: failure.errorCode,
        description: failure.description,
      };
      if (failure.retryAfter !== undefined) reply.parameters = { retry_after: failure.retryAfter };
      send(failure.errorCode, reply);
    };
    const part = [business, guest].find((kind) => kind.takes(method, params));
    const handler = part
      ? (given: Record<string, unknown>) => part.call(method, given)
      : methods[method];
    if (!handler) {
      fail(new ApiFailure(404, "Not Found"));
      return;
    }
    try {
      const injection = takeInjected(method, params);
      if (injection) throw injection;
      const result = await handler(params, gone.signal);
      call.ok = true;
      const hold = held.findIndex((h) => h.matches(call));
      if (hold !== -1) {
        held.splice(hold, 1)[0]?.done(call);
        return;
      }
      send(200, { ok: true, result });
    } catch (error) {
      if (error instanceof ConnectionCut) res.destroy();
      else if (error instanceof ApiFailure) fail(error);
      else fail(new ApiFailure(500, `Internal Server Error: ${(error as Error).message}`));
    }
  }

  function takeInjected(method: string, params: Record<string, unknown>): ApiFailure | undefined {
    const index = injected.findIndex(
      (e) => e.method === method && (e.chatId === undefined || e.chatId === Number(params.chat_id)),
    );
    if (index === -1) return undefined;
    const [error] = injected.splice(index, 1);
    if (!error) return undefined;
    if (error.errorCode === 429) {
      floodErrors++;
      const seconds = error.retryAfter ?? 1;
      blockedUntil.set(Number(params.chat_id), performance.now() + seconds * 1000);
    }
    return new ApiFailure(error.errorCode, error.description, error.retryAfter);
  }

  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  function addChat(chat: Chat, initial: Record<number, MemberStatus> = {}): Chat {
    chats.set(chat.id, chat);
    members.set(chat.id, new Map(Object.entries(initial).map(([k, v]) => [Number(k), v])));
    return chat;
  }

  /** Keeps a message a person sent (as the update shows it); later ids come after it. */
  function remember(chat: Chat, json: Record<string, unknown>): void {
    const id = json.message_id as number;
    nextMessageId.set(chat.id, Math.max(nextMessageId.get(chat.id) ?? 1, id + 1));
    const text = typeof json.text === "string" ? json.text : "";
    const topicCreated = json.forum_topic_created as { name: string } | undefined;
    const thread = typeof json.message_thread_id === "number" ? json.message_thread_id : undefined;
    const replied = json.reply_to_message as { message_id?: number } | undefined;
    store(chat.id).set(id, {
      message_id: id,
      chat,
      // Anonymous posts and some service messages have no author.
      from: (json.from as User | undefined) ?? { id: chat.id, is_bot: false, first_name: "" },
      text,
      raw: text,
      parseMode: undefined,
      entities: [],
      threadId: json.is_topic_message === true || topicCreated ? thread : undefined,
      replyThreadId: json.is_topic_message === true ? undefined : thread,
      replyTo: replied?.message_id,
      date: typeof json.date === "number" ? json.date : 0,
      history: [text],
      deleted: false,
      ...(topicCreated ? { forumTopicCreated: { name: topicCreated.name } } : {}),
    });
  }

  /** A person's ephemeral message to the bot: the bot's alone to read, nobody else's. */
  function composeEphemeral(chat: Chat, from: User, text: string, ageSeconds: number): Update {
    const id = nextEphemeralId++;
    const at = Date.now() - ageSeconds * 1000;
    incomingEphemerals.set(`${chat.id}:${id}`, { from: from.id, at });
    const entities = userEntities(text);
    return {
      update_id: nextUpdateId++,
      message: {
        message_id: 0,
        ephemeral_message_id: id,
        receiver_user: bot,
        from,
        chat,
        date: Math.floor(at / 1000),
        text,
        ...(entities.length > 0 ? { entities } : {}),
      },
    };
  }

  function compose(input: WriteInput): Update {
    const chat = chatOf(input.chat);
    const from = input.anonymousAdmin ? ANONYMOUS_ADMIN : input.from;
    let threadId: number | undefined;
    let replyTo = input.replyTo;
    let replyThreadId: number | undefined;
    if (input.topic !== undefined) {
      threadId = input.topic;
      // In a topic, a message that replies to nothing replies to the topic's first message.
      replyTo ??= input.topic;
    } else if (replyTo !== undefined && chat.type === "supergroup") {
      const replied = store(chat.id).get(replyTo);
      if (chat.is_forum) threadId = replied?.threadId;
      else replyThreadId = replied?.replyThreadId ?? replyTo;
    }
    const text = input.sticker || input.caption !== undefined ? "" : (input.text ?? "");
    if (input.ephemeral) return composeEphemeral(chat, from, text, input.ephemeralAgeSeconds ?? 0);
    const message: StoredMessage = {
      message_id: newMessageId(chat.id),
      chat,
      from,
      text,
      ...(input.caption !== undefined && { caption: input.caption }),
      raw: text,
      parseMode: undefined,
      entities: userEntities(input.caption ?? text),
      threadId,
      replyThreadId,
      replyTo,
      date: Math.floor(Date.now() / 1000),
      history: [text],
      deleted: false,
    };
    store(chat.id).set(message.message_id, message);
    const json = messageJson(message);
    if (input.sticker) json.sticker = { file_id: "sticker", emoji: "👍" };
    if (input.quote !== undefined) {
      json.quote = quoteOf(
        input.quote,
        replyTo === undefined ? undefined : store(chat.id).get(replyTo),
      );
    }
    return { update_id: nextUpdateId++, message: json };
  }

  return {
    url: `http://127.0.0.1:${port}`,
    apiRootFor: (caller) => `http://127.0.0.1:${port}/${caller}`,
    token,
    bot,
    calls,
    get floodErrors() {
      return floodErrors;
    },
    get violations() {
      return violations;
    },
    get draftsAvailable() {
      return state.draftsAvailable;
    },
    set draftsAvailable(on: boolean) {
      state.draftsAvailable = on;
    },
    get richAvailable() {
      return state.richAvailable;
    },
    set richAvailable(on: boolean) {
      state.richAvailable = on;
    },
    get conflict() {
      return state.conflict;
    },
    set conflict(on: boolean) {
      state.conflict = on;
      if (on)
        activePoll?.fail(
          new ApiFailure(
            409,
            "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
          ),
        );
    },
    get holdPolls() {
      return state.holdPolls;
    },
    set holdPolls(on: boolean) {
      state.holdPolls = on;
      if (!on) wakePolls();
    },
    dropPolls() {
      for (const poll of waiting) poll.fail(new ConnectionCut());
    },
    get pendingPolls() {
      return waiting.size;
    },
    user: (id, firstName, username) => ({
      id,
      is_bot: false,
      first_name: firstName,
      ...(username ? { username } : {}),
    }),
    addChat,
    setMember(chatId, userId, status) {
      members.get(chatId)?.set(userId, status);
    },
    createTopic(chatId, name, creator) {
      const chat = chatOf(chatId);
      const id = newMessageId(chatId);
      store(chatId).set(id, {
        message_id: id,
        chat,
        from: creator,
        text: "",
        raw: "",
        parseMode: undefined,
        entities: [],
        threadId: id,
        replyThreadId: undefined,
        replyTo: undefined,
        date: Math.floor(Date.now() / 1000),
        history: [],
        deleted: false,
        forumTopicCreated: { name },
      });
      return id;
    },
    write(input) {
      const update = compose(input);
      queue.push(update);
      wakePolls();
      return update;
    },
    compose,
    updateOf: (kind, body) => ({ update_id: nextUpdateId++, [kind]: body }),
    enqueue(update) {
      queue.push(update);
      wakePolls();
    },
    receive(update) {
      const message = update.message as Record<string, unknown> | undefined;
      const chat = message?.chat as Chat | undefined;
      if (!message || !chat || typeof message.message_id !== "number") return;
      if (!chats.has(chat.id)) addChat(chat);
      remember(chat, message);
    },
    press(input) {
      const message = store(input.chat).get(input.messageId);
      if (!message) throw new Error(`no message ${input.messageId} in chat ${input.chat}`);
      const id = String(nextQueryId++);
      openQueries.add(id);
      const update: PressUpdate = {
        update_id: nextUpdateId++,
        callback_query: {
          id,
          from: input.from,
          chat_instance: `instance${input.chat}`,
          message: {
            ...messageJson(message),
            ...(message.replyMarkup ? { reply_markup: message.replyMarkup } : {}),
          },
          data: input.data,
        },
      };
      queue.push(update);
      wakePolls();
      return update;
    },
    callbackAnswers,
    reactions,
    ephemerals,
    business,
    guest,
    get allowedUpdates() {
      return allowedUpdates;
    },
    delivers,
    stopGeneration(chatId, draftId) {
      const record = drafts.get(chatId)?.get(draftId);
      const frame = record?.frames.at(-1);
      const name = `draft ${draftId} in chat ${chatId}`;
      if (!record || !frame) throw new Error(`${name} was never shown`);
      if (!frame.canStop) {
        throw new Error(`${name} was last shown without can_stop: it has no stop button`);
      }
      if (record.stopped) throw new Error(`${name} was stopped already: its button is gone`);
      if ((lastSent.get(chatId) ?? 0) > record.shownSeq) {
        throw new Error(`${name} is gone: the bot has sent a message in the chat since`);
      }
      if (performance.now() - record.shownAt > DRAFT_LIFETIME_MS) {
        throw new Error(`${name} is gone: a draft lasts 30 seconds`);
      }
      record.stopped = true;
      const update: StopUpdate = {
        update_id: nextUpdateId++,
        stopped_message_generation: {
          chat: chatOf(chatId),
          ...(frame.threadId === undefined ? {} : { message_thread_id: frame.threadId }),
          draft_id: draftId,
        },
      };
      queue.push(update);
      wakePolls();
      return update;
    },
    deleteMessage(chatId, messageId) {
      const message = store(chatId).get(messageId);
      if (message) message.deleted = true;
    },
    message: (chatId, messageId) => store(chatId).get(messageId),
    botMessages: (chatId, threadId) =>
      [...store(chatId).values()].filter(
        (m) =>
          m.from.id === bot.id &&
          !m.deleted &&
          !m.forumTopicCreated &&
          (threadId === undefined || m.threadId === threadId),
      ),
    drafts: (chatId) =>
      new Map(
        [...(drafts.get(chatId) ?? [])].map(([id, record]) => [
          id,
          record.frames.map((frame) => frame.text),
        ]),
      ),
    draftFrames: (chatId) =>
      new Map([...(drafts.get(chatId) ?? [])].map(([id, record]) => [id, [...record.frames]])),
    callsTo: (method, chatId) =>
      calls.filter(
        (c) => c.method === method && (chatId === undefined || Number(c.params.chat_id) === chatId),
      ),
    commands: () => commands,
    webhook: () => webhook,
    failNext(error) {
      injected.push(error);
    },
    holdReply: (matches) => new Promise((done) => held.push({ matches, done })),
    close() {
      for (const poll of waiting) poll.resolve();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}

/** A parameter that may come JSON-serialized (a form or query string) or as JSON. */
function jsonParam(value: unknown): unknown {
  return typeof value === "string" ? (JSON.parse(value) as unknown) : value;
}

function utf8(text: string): void {
  if (hasLoneSurrogate(text))
    throw new ApiFailure(400, "Bad Request: strings must be encoded in UTF-8");
}

const BUTTON_STYLES: readonly (string | undefined)[] = [undefined, "danger", "success", "primary"];

function keyboardOf(markup: unknown): InlineKeyboard | undefined {
  const rows = (jsonParam(markup) as InlineKeyboard | undefined)?.inline_keyboard;
  if (!Array.isArray(rows)) return undefined;
  for (const button of rows.flat()) {
    // https://core.telegram.org/bots/api#inlinekeyboardbutton: 1-64 bytes.
    const bytes = Buffer.byteLength(button.callback_data ?? "", "utf8");
    if (button.callback_data !== undefined && (bytes < 1 || bytes > 64))
      throw new ApiFailure(400, "Bad Request: BUTTON_DATA_INVALID");
    // "Must be one of “danger” (red), “success” (green) or “primary” (blue)"; the wording of
    // the refusal is the fake's, in the form of the Bot API's other button errors.
    if (!BUTTON_STYLES.includes(button.style)) {
      throw new ApiFailure(
        400,
        'Bad Request: can\'t parse inline keyboard button: Field "style" must be one of "danger", "success" or "primary"',
      );
    }
  }
  return rows.length > 0 && rows.some((row) => row.length > 0)
    ? { inline_keyboard: rows }
    : undefined;
}

/** Entities Telegram finds in what a person typed: a leading command and @mentions. */
/** A person's quote of part of `replied` (https://core.telegram.org/bots/api#textquote). */
function quoteOf(quote: string, replied: StoredMessage | undefined): Record<string, unknown> {
  const source = replied ? (replied.caption ?? replied.text) : "";
  const position = source.indexOf(quote);
  if (!replied || position === -1) {
    throw new Error("a test quotes what the replied-to message does not say");
  }
  return { text: quote, position, is_manual: true };
}

function userEntities(text: string): ParsedEntity[] {
  const entities: ParsedEntity[] = [];
  const command = /^\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?/.exec(text);
  if (command) entities.push({ type: "bot_command", offset: 0, length: command[0].length });
  return [...entities, ...findMentions(text)];
}

/** The emoji a bot may react with (ReactionTypeEmoji in @grammyjs/types), a few of them. */
const REACTION_EMOJI = new Set(["👍", "👎", "❤", "🔥", "👏", "🎉", "🙏", "👌", "👀", "🤝", "🫡"]);
