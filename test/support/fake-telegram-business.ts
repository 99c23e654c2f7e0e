import type { AnyUpdate, User } from "./fake-telegram.ts";
import { applyEdit } from "./fake-telegram-edits.ts";
import type { ParsedEntity } from "./telegram-html.ts";

/**
 * Telegram Business, as the fake Bot API keeps it: accounts that connected the bot
 * (`business_connection`), their private chats with customers (`business_message`, from the
 * customer or from the owner), and the calls a bot makes on an account's behalf
 * (`business_connection_id` on sendMessage, sendRichMessage, editMessageText, sendChatAction,
 * deleteBusinessMessages; getBusinessConnection). As the Bot API documents it: the bot may
 * reply only with the `can_reply` right, in chats whose last incoming message is at most 24
 * hours old, and delete messages it did not send only with `can_delete_all_messages`.
 * https://core.telegram.org/bots/api#businessconnection
 *
 * The wording of the refusals is the fake's best reading: BUSINESS_CONNECTION_INVALID is
 * Telegram's own error name, the 403 is the one a bot gets where it may not write first.
 */

export interface BusinessConnectionInput {
  /** The account's owner, the person who connected the bot. */
  owner: User;
  /** BusinessBotRights.can_reply (default true). */
  canReply?: boolean;
  /** BusinessBotRights.can_delete_all_messages (default false). */
  canDeleteAll?: boolean;
}

/** A message in a business chat: the customer's, the owner's, or the bot's on the account's behalf. */
export interface BusinessMessage {
  message_id: number;
  from: User;
  /** The bot sent it on the account's behalf. */
  byBot: boolean;
  text: string;
  raw: string;
  /** Every text it showed, first to last. */
  history: string[];
  hasKeyboard: boolean;
  deleted: boolean;
}

export interface FakeBusiness {
  /** The account connects the bot: a `business_connection` update queued; returns its id. */
  connect(input: BusinessConnectionInput): string;
  /** The account turns the bot off (or on again): a `business_connection` update queued. */
  setEnabled(connectionId: string, enabled: boolean): void;
  /**
   * A customer writes to the account: a `business_message` queued and returned. `ageSeconds`
   * dates it in the past (a chat last active that long ago).
   */
  customerWrites(input: {
    connection: string;
    from: User;
    text: string;
    ageSeconds?: number;
  }): AnyUpdate;
  /**
   * The account's owner writes in the chat with `customer`: a `business_message` queued.
   * `offline`: sent by the account itself (an away or greeting message, a scheduled one).
   */
  ownerWrites(input: {
    connection: string;
    customer: User;
    text: string;
    offline?: boolean;
  }): AnyUpdate;
  /** The bot's messages on the account's behalf in its chat with `customerId`, deleted ones left out. */
  botMessages(connectionId: string, customerId: number): BusinessMessage[];
  /** Every message of that chat, deleted ones too, in order. */
  chatMessages(connectionId: string, customerId: number): BusinessMessage[];
}

/** What the fake Bot API gives its business part. */
export interface BusinessDeps {
  bot: User;
  /** Numbers an update of `kind` and queues it for getUpdates. */
  queue(kind: string, body: unknown): AnyUpdate;
  /** The refusal the Bot API answers with. */
  failure(errorCode: number, description: string): Error;
  /** A sent message's content, read as sendMessage reads it (text and parse_mode). */
  readText(params: Record<string, unknown>): { text: string; raw: string };
  /** sendRichMessage's content. */
  readRich(params: Record<string, unknown>): { text: string; raw: string };
  /** editMessageText's content (text, or rich_message). */
  readEdit(params: Record<string, unknown>): { text: string; raw: string };
  /** The entities a client marks in what a person types (commands, mentions). */
  entitiesOf(text: string): ParsedEntity[];
}

interface Connection {
  id: string;
  owner: User;
  date: number;
  enabled: boolean;
  canReply: boolean;
  canDeleteAll: boolean;
  /** Message ids run across the account's chats, as a user account's do. */
  nextMessageId: number;
}

interface BusinessChat {
  connection: Connection;
  customer: User;
  /** Date (ms) of the customer's last message: the 24 hours run from it. */
  lastIncomingAt: number;
  messages: Map<number, BusinessMessage>;
}

const REPLY_WINDOW_MS = 24 * 60 * 60 * 1000;
const METHODS = new Set([
  "sendMessage",
  "sendRichMessage",
  "editMessageText",
  "sendChatAction",
  "deleteBusinessMessages",
  "getBusinessConnection",
]);

/** The fake's business part: its test controls, and the methods called with a connection. */
export function createFakeBusiness(deps: BusinessDeps): FakeBusiness & {
  /** Whether this call is the business part's (a connection named, or a business method). */
  takes(method: string, params: Record<string, unknown>): boolean;
  call(method: string, params: Record<string, unknown>): unknown;
} {
  const connections = new Map<string, Connection>();
  const chats = new Map<string, BusinessChat>();
  let nextConnection = 1;

  const chatKey = (connectionId: string, customerId: number) => `${connectionId}:${customerId}`;

  function connectionJson(connection: Connection): Record<string, unknown> {
    return {
      id: connection.id,
      user: connection.owner,
      user_chat_id: connection.owner.id,
      date: connection.date,
      is_enabled: connection.enabled,
      rights: {
        ...(connection.canReply ? { can_reply: true } : {}),
        ...(connection.canDeleteAll ? { can_delete_all_messages: true } : {}),
      },
    };
  }

  function chatOf(connectionId: string, customer: User): BusinessChat {
    const connection = connections.get(connectionId);
    if (!connection) throw new Error(`no business connection ${connectionId}`);
    const key = chatKey(connectionId, customer.id);
    let chat = chats.get(key);
    if (!chat) {
      chat = { connection, customer, lastIncomingAt: 0, messages: new Map() };
      chats.set(key, chat);
    }
    return chat;
  }

  function messageJson(
    connectionId: string,
    chat: BusinessChat,
    message: BusinessMessage,
    dateMs: number,
    offline = false,
  ): Record<string, unknown> {
    const { customer } = chat;
    return {
      message_id: message.message_id,
      business_connection_id: connectionId,
      from: message.from,
      chat: {
        id: customer.id,
        type: "private",
        first_name: customer.first_name,
        ...(customer.username ? { username: customer.username } : {}),
      },
      date: Math.floor(dateMs / 1000),
      text: message.text,
      ...(message.byBot ? { sender_business_bot: deps.bot } : {}),
      ...(offline ? { is_from_offline: true } : {}),
      ...(message.byBot ? {} : entitiesJson(message.text)),
    };
  }

  function entitiesJson(text: string): { entities?: ParsedEntity[] } {
    const entities = deps.entitiesOf(text);
    return entities.length > 0 ? { entities } : {};
  }

  function add(chat: BusinessChat, from: User, text: string, byBot: boolean): BusinessMessage {
    const message: BusinessMessage = {
      message_id: chat.connection.nextMessageId++,
      from,
      byBot,
      text,
      raw: text,
      history: [text],
      hasKeyboard: false,
      deleted: false,
    };
    chat.messages.set(message.message_id, message);
    return message;
  }

  /** The connection a call names, while the account has the bot on. */
  function enabledConnection(params: Record<string, unknown>): Connection {
    const connection = connections.get(String(params.business_connection_id));
    if (!connection?.enabled) throw deps.failure(400, "Bad Request: BUSINESS_CONNECTION_INVALID");
    return connection;
  }

  /** The connection a call names, refused as Telegram refuses a bot that may not act. */
  function actingIn(params: Record<string, unknown>): {
    connection: Connection;
    chat: BusinessChat;
  } {
    const connection = enabledConnection(params);
    if (!connection.canReply) {
      throw deps.failure(403, "Forbidden: the bot has no right to reply on the account's behalf");
    }
    const chat = chats.get(chatKey(connection.id, Number(params.chat_id)));
    if (!chat || Date.now() - chat.lastIncomingAt > REPLY_WINDOW_MS) {
      throw deps.failure(403, "Forbidden: bot can't initiate conversation with a user");
    }
    return { connection, chat };
  }

  function post(params: Record<string, unknown>, content: { text: string; raw: string }) {
    const { connection, chat } = actingIn(params);
    const message = add(chat, connection.owner, content.text, true);
    message.raw = content.raw;
    message.hasKeyboard = params.reply_markup !== undefined;
    // The account's outgoing messages reach the bot too, the bot's own among them.
    deps.queue("business_message", messageJson(connection.id, chat, message, Date.now()));
    return messageJson(connection.id, chat, message, Date.now());
  }

  const methods: Record<string, (params: Record<string, unknown>) => unknown> = {
    sendMessage: (params) => post(params, deps.readText(params)),
    sendRichMessage: (params) => post(params, deps.readRich(params)),
    editMessageText: (params) => {
      const { connection, chat } = actingIn(params);
      const message = chat.messages.get(Number(params.message_id));
      if (!message || message.deleted) {
        throw deps.failure(400, "Bad Request: message to edit not found");
      }
      if (!message.byBot) throw deps.failure(400, "Bad Request: message can't be edited");
      applyEdit(message, deps.readEdit(params), params, deps.failure);
      return messageJson(connection.id, chat, message, Date.now());
    },
    sendChatAction: (params) => {
      actingIn(params);
      return true;
    },
    deleteBusinessMessages: (params) => {
      const connection = enabledConnection(params);
      const ids = Array.isArray(params.message_ids) ? params.message_ids.map(Number) : [];
      const own = [...chats.values()].filter((chat) => chat.connection === connection);
      for (const chat of own) {
        for (const id of ids) {
          const message = chat.messages.get(id);
          if (!message || message.deleted) continue;
          if (!message.byBot && !connection.canDeleteAll) {
            throw deps.failure(400, "Bad Request: message can't be deleted");
          }
          message.deleted = true;
        }
      }
      return true;
    },
    getBusinessConnection: (params) => {
      const connection = connections.get(String(params.business_connection_id));
      if (!connection) throw deps.failure(400, "Bad Request: BUSINESS_CONNECTION_INVALID");
      return connectionJson(connection);
    },
  };

  return {
    takes: (method, params) =>
      METHODS.has(method) &&
      (params.business_connection_id !== undefined || method === "getBusinessConnection"),
    call: (method, params) => methods[method]?.(params),
    connect(input) {
      const connection: Connection = {
        id: `biz-${nextConnection++}`,
        owner: input.owner,
        date: Math.floor(Date.now() / 1000),
        enabled: true,
        canReply: input.canReply ?? true,
        canDeleteAll: input.canDeleteAll ?? false,
        nextMessageId: 1,
      };
      connections.set(connection.id, connection);
      deps.queue("business_connection", connectionJson(connection));
      return connection.id;
    },
    setEnabled(connectionId, enabled) {
      const connection = connections.get(connectionId);
      if (!connection) throw new Error(`no business connection ${connectionId}`);
      connection.enabled = enabled;
      deps.queue("business_connection", connectionJson(connection));
    },
    customerWrites({ connection, from, text, ageSeconds = 0 }) {
      const chat = chatOf(connection, from);
      const at = Date.now() - ageSeconds * 1000;
      chat.lastIncomingAt = Math.max(chat.lastIncomingAt, at);
      const message = add(chat, from, text, false);
      return deps.queue("business_message", messageJson(connection, chat, message, at));
    },
    ownerWrites({ connection, customer, text, offline = false }) {
      const chat = chatOf(connection, customer);
      const message = add(chat, chat.connection.owner, text, false);
      const json = messageJson(connection, chat, message, Date.now(), offline);
      return deps.queue("business_message", json);
    },
    botMessages: (connectionId, customerId) =>
      [...(chats.get(chatKey(connectionId, customerId))?.messages.values() ?? [])].filter(
        (m) => m.byBot && !m.deleted,
      ),
    chatMessages: (connectionId, customerId) => [
      ...(chats.get(chatKey(connectionId, customerId))?.messages.values() ?? []),
    ],
  };
}
