import type { AnyUpdate, Chat, User } from "./fake-telegram.ts";
import { applyEdit } from "./fake-telegram-edits.ts";
import type { ParsedEntity } from "./telegram-html.ts";

/**
 * Guest mode (Bot API 10.0), as the fake Bot API keeps it: a person mentions the bot in a chat
 * the bot is not a member of; the bot gets a `guest_message` carrying a `guest_query_id`, and
 * answers it once with answerGuestQuery (an InlineQueryResult), which posts an inline message
 * into that chat; the bot may then edit it by its `inline_message_id`, as any inline message.
 * https://core.telegram.org/bots/api#answerguestquery
 *
 * A query answered a second time is refused with the wording Telegram uses for inline queries.
 */

/** An inline message a guest answer posted: what the chat's members see. */
export interface GuestMessage {
  inlineMessageId: string;
  chatId: number;
  queryId: string;
  text: string;
  /** Every text it showed, first to last. */
  history: string[];
  hasKeyboard: boolean;
}

export interface FakeGuest {
  /**
   * `from` mentions the bot in `chat`, where the bot is not: a `guest_message` queued and
   * returned (its text should hold the bot's @username, as only a mention summons a guest).
   */
  mention(input: { chat: Chat; from: User; text: string }): AnyUpdate;
  /** The guest answers posted in `chatId`, in order. */
  messages(chatId: number): GuestMessage[];
}

export interface GuestDeps {
  queue(kind: string, body: unknown): AnyUpdate;
  failure(errorCode: number, description: string): Error;
  /** A sent message's content, read as sendMessage reads it (text and parse_mode). */
  readText(params: Record<string, unknown>): { text: string; raw: string };
  entitiesOf(text: string): ParsedEntity[];
}

export function createFakeGuest(deps: GuestDeps): FakeGuest & {
  /** Whether this call is the guest part's. */
  takes(method: string, params: Record<string, unknown>): boolean;
  call(method: string, params: Record<string, unknown>): unknown;
} {
  /** Queries asked and not answered yet: each is answerable once. */
  const open = new Map<string, Chat>();
  const sent = new Map<string, GuestMessage & { raw: string }>();
  let nextQuery = 1;
  let nextMessage = 1;

  /** An InlineQueryResultArticle's text, read as sendMessage reads its own. */
  function articleText(result: unknown): { text: string; raw: string; keyboard: boolean } {
    const article = result as {
      type?: unknown;
      input_message_content?: { message_text?: unknown; parse_mode?: unknown };
      reply_markup?: unknown;
    };
    if (article?.type !== "article" || !article.input_message_content) {
      throw deps.failure(400, "Bad Request: the fake takes an article with input_message_content");
    }
    const { message_text, parse_mode } = article.input_message_content;
    return {
      ...deps.readText({ text: message_text, parse_mode }),
      keyboard: article.reply_markup !== undefined,
    };
  }

  const methods: Record<string, (params: Record<string, unknown>) => unknown> = {
    answerGuestQuery: (params) => {
      const queryId = String(params.guest_query_id ?? "");
      const chat = open.get(queryId);
      if (!chat) {
        throw deps.failure(
          400,
          "Bad Request: query is too old and response timeout expired or query ID is invalid",
        );
      }
      const content = articleText(params.result);
      open.delete(queryId);
      const message = {
        inlineMessageId: `guest-${nextMessage++}`,
        chatId: chat.id,
        queryId,
        text: content.text,
        raw: content.raw,
        history: [content.text],
        hasKeyboard: content.keyboard,
      };
      sent.set(message.inlineMessageId, message);
      return { inline_message_id: message.inlineMessageId };
    },
    editMessageText: (params) => {
      const message = sent.get(String(params.inline_message_id));
      if (!message) throw deps.failure(400, "Bad Request: MESSAGE_ID_INVALID");
      applyEdit(message, deps.readText(params), params, deps.failure);
      // An inline message's edit answers True, not the message.
      return true;
    },
  };

  return {
    takes: (method, params) =>
      method === "answerGuestQuery" ||
      (method === "editMessageText" && params.inline_message_id !== undefined),
    call: (method, params) => methods[method]?.(params),
    mention({ chat, from, text }) {
      const queryId = `gq-${nextQuery++}`;
      open.set(queryId, chat);
      const entities = deps.entitiesOf(text);
      return deps.queue("guest_message", {
        message_id: nextMessage++,
        from,
        chat,
        date: Math.floor(Date.now() / 1000),
        text,
        guest_query_id: queryId,
        ...(entities.length > 0 ? { entities } : {}),
      });
    },
    messages: (chatId) =>
      [...sent.values()]
        .filter((m) => m.chatId === chatId)
        .map(({ raw: _raw, ...message }) => message),
  };
}
