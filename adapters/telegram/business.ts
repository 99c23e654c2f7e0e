import type { Api } from "grammy";
import type { BusinessConnection, Message } from "grammy/types";
import { z } from "zod";
import type { Logger } from "../../src/log.ts";
import type { KeyValueStore } from "../../src/store/types.ts";
import type { Place } from "./to-incoming.ts";

/**
 * Telegram Business (docs/telegram.md, "Telegram Business"): an account connects the bot, which then
 * answers the account's private chats with its customers on the account's behalf. Telegram
 * lets it reply only in chats that had an incoming message in the last 24 hours
 * (BusinessBotRights.can_reply): a message older than that is left alone.
 * https://core.telegram.org/bots/api#businessbotrights
 */
export const BUSINESS_REPLY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** A connection as the bot keeps it: whose account, and what it may do there. */
const knownConnection = z.object({
  owner: z.number(),
  /** The owner's private chat with the bot: where the replies to the owner's commands go. */
  ownerChat: z.number(),
  enabled: z.boolean(),
  canReply: z.boolean(),
  /** It may delete any message of the account's chats (the owner's commands there). */
  canDelete: z.boolean(),
});
export type KnownConnection = z.infer<typeof knownConnection>;

const connectionKey = (id: string) => `telegram:business:${id}`;

/**
 * The parts of a `business_connection` the bot reads, checked: an update reaching the webhook
 * is unchecked by grammY. https://core.telegram.org/bots/api#businessconnection
 */
const connectionUpdate = z.looseObject({
  id: z.string().min(1),
  user: z.looseObject({ id: z.number() }),
  user_chat_id: z.number(),
  is_enabled: z.boolean(),
  rights: z.looseObject({}).optional(),
});

/**
 * A business chat as the core names it (its channel key, and its one thread): apart from the
 * customer's own chat with the bot, which has the same chat id.
 */
export function businessChatKey(connectionId: string, chatId: number): string {
  return `telegram:business:${connectionId}:${chatId}`;
}

/** Where an answer to a customer's business message goes: their chat, on the account's behalf. */
export function businessPlace(connectionId: string, chatId: number): Place {
  return {
    chatId,
    isPrivate: true,
    topicId: undefined,
    replyTo: undefined,
    threadKey: businessChatKey(connectionId, chatId),
    chained: false,
    business: connectionId,
  };
}

/** What a business message is to the bot, once its connection is known. */
export type BusinessReading =
  | { kind: "owner"; connection: KnownConnection }
  | { kind: "customer"; connection: KnownConnection }
  | { kind: "leave"; why: string };

/**
 * The Business accounts connected to the bot. A connection is kept in the store as its
 * `business_connection` update tells it (any process may get a chat's messages), and asked of
 * Telegram (getBusinessConnection) when the store has none, as after a restart on an empty
 * store.
 */
export class BusinessAccounts {
  readonly #store: KeyValueStore;
  readonly #api: Api;
  readonly #log: Logger;

  constructor(options: { store: KeyValueStore; api: Api; log: Logger }) {
    this.#store = options.store;
    this.#api = options.api;
    this.#log = options.log.child({ component: "business" });
  }

  /** A `business_connection` update: the account connected the bot, changed it or left. */
  async connected(connection: BusinessConnection): Promise<void> {
    if (!connectionUpdate.safeParse(connection).success) {
      this.#log.debug("a malformed business connection dropped");
      return;
    }
    const known = knownOf(connection);
    await this.#store.set(connectionKey(connection.id), known);
    this.#log.info(
      { enabled: known.enabled, canReply: known.canReply },
      known.enabled
        ? "a Telegram Business account connected the bot"
        : "a Telegram Business account disconnected the bot",
    );
  }

  /**
   * Whose `message` is, and whether the bot may answer in its chat: one store read, and a call
   * to Telegram only for a connection the store does not know. (Whether the owner took the
   * chat over is the bridge's to tell when the question's turn comes: Bridge.keepQuiet.)
   */
  async read(message: Message): Promise<BusinessReading> {
    const id = message.business_connection_id;
    if (id === undefined) return { kind: "leave", why: "no business connection" };
    // An away or greeting message, or a scheduled one: the account's, not a person writing.
    if (message.is_from_offline) return { kind: "leave", why: "sent by the account itself" };
    const parsed = knownConnection.safeParse(await this.#store.get(connectionKey(id)));
    const connection = parsed.success ? parsed.data : await this.#fetch(id);
    if (!connection?.enabled) return { kind: "leave", why: "the connection is not enabled" };
    if (!connection.canReply) return { kind: "leave", why: "the account lets the bot not reply" };
    if (message.from?.id === connection.owner) return { kind: "owner", connection };
    if (message.from?.is_bot !== false) return { kind: "leave", why: "not a person's message" };
    if (Date.now() - message.date * 1000 > BUSINESS_REPLY_WINDOW_MS) {
      return { kind: "leave", why: "older than Telegram's 24 hours" };
    }
    return { kind: "customer", connection };
  }

  async #fetch(id: string): Promise<KnownConnection | undefined> {
    try {
      const connection = await this.#api.getBusinessConnection(id);
      await this.connected(connection);
      return knownOf(connection);
    } catch (error) {
      this.#log.warn({ err: error }, "a Telegram Business connection could not be read");
      return undefined;
    }
  }
}

function knownOf(connection: BusinessConnection): KnownConnection {
  return {
    owner: connection.user.id,
    ownerChat: connection.user_chat_id,
    enabled: connection.is_enabled,
    canReply: connection.rights?.can_reply === true,
    canDelete: connection.rights?.can_delete_all_messages === true,
  };
}
