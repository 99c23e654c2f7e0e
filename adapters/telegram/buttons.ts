import type { Api } from "grammy";
import type {
  CallbackQuery,
  InlineKeyboardMarkup,
  MessageGenerationStopped,
  User,
} from "grammy/types";
import { z } from "zod";
import { ACTION_NAME } from "../../src/bridge/button-handlers.ts";
import type { Button, PressedButton, Presser } from "../../src/ports.ts";
import { MAX_ALERT_LENGTH, MAX_CALLBACK_DATA_BYTES } from "./limits.ts";
import { personName, telegramChannelKey } from "./to-incoming.ts";

/** callback_data: the action, then the id (an action never holds the separator). */
const SEPARATOR = ":";

/**
 * A button's callback_data. Throws when it would pass Telegram's 64 bytes (or the action is
 * no action name), when the message is built, never at the press.
 */
export function callbackData(button: Button): string {
  if (!ACTION_NAME.test(button.action)) throw new Error(`bad action: ${button.action}`);
  const data = `${button.action}${SEPARATOR}${button.id}`;
  const bytes = Buffer.byteLength(data, "utf8");
  if (bytes > MAX_CALLBACK_DATA_BYTES) {
    throw new Error(`callback_data of ${button.action} is ${bytes} bytes (Telegram takes 64)`);
  }
  return data;
}

/**
 * Buttons as one row of an inline keyboard (none: an empty keyboard, which removes one). A
 * button's style colours it (Bot API 9.4: ⏹ Stop red, "I'll take it" blue); a server that
 * predates styles ignores the field.
 */
export function inlineKeyboard(buttons: readonly Button[]): InlineKeyboardMarkup {
  const row = buttons.map((button) => ({
    text: button.label,
    callback_data: callbackData(button),
    ...(button.style === undefined ? {} : { style: button.style }),
  }));
  return { inline_keyboard: row.length > 0 ? [row] : [] };
}

/** The action and id a client sent back, or undefined for data that is not one of ours. */
function readCallbackData(data: string | undefined): { action: string; id: string } | undefined {
  if (data === undefined) return undefined;
  const at = data.indexOf(SEPARATOR);
  if (at < 0) return undefined;
  const action = data.slice(0, at);
  return ACTION_NAME.test(action) ? { action, id: data.slice(at + 1) } : undefined;
}

/** Where a pressed button's message is, as editMessageText names it. */
export interface TelegramMessageAt {
  chatId: number;
  messageId: number;
}

/** One shape for a message's place, whoever builds it: refs of one message compare equal. */
export function telegramMessageAt(chatId: number, messageId: number): TelegramMessageAt {
  return { chatId, messageId };
}

export interface TelegramPressContext {
  api: Api;
  isAdmin(check: { chatId: number; isPrivate: boolean; authorId: string }): Promise<boolean>;
  /** Listed in TELEGRAM_ADMIN_USERS: the bot's admins, the only ones trusted with leads. */
  isListed(authorId: string): boolean;
  /**
   * Answers the callback query (once; later calls do nothing): with text, as an alert, or as
   * a passing toast when `brief`.
   */
  answer(text?: string, brief?: boolean): Promise<void>;
}

/**
 * What a press is read for: who pressed, and the chat message the button is under. grammY
 * passes an update on as it came (a client's, or whatever reached the webhook), unchecked.
 * https://core.telegram.org/bots/api#callbackquery
 */
const pressOfChatMessage = z.looseObject({
  from: z.looseObject({ id: z.number(), first_name: z.string() }),
  message: z.looseObject({
    message_id: z.number(),
    chat: z.looseObject({ id: z.number(), type: z.string() }),
  }),
});

/**
 * A callback query as the button handlers take it, or undefined when it carries no data of
 * ours or no message (a press on an inline-mode message, which the bot never posts), or
 * lacks a part Telegram always sends.
 */
export function telegramPress(
  query: CallbackQuery,
  context: TelegramPressContext,
): PressedButton | undefined {
  const read = readCallbackData(query.data);
  const message = query.message;
  if (!read || !message || !pressOfChatMessage.safeParse(query).success) return undefined;
  const chatId = message.chat.id;
  return {
    channel: "telegram",
    action: read.action,
    id: read.id,
    // The callback query's own id: a redelivered update carries it again.
    pressId: query.id,
    person: presser(query.from, { chatId, isPrivate: message.chat.type === "private" }, context),
    channelId: String(chatId),
    channelKey: telegramChannelKey(chatId),
    message: telegramMessageAt(chatId, message.message_id),
    // An alert is plain text: nothing in it is markup, and it pings no one.
    replyPrivately: (text, options) =>
      context.answer([...text].slice(0, MAX_ALERT_LENGTH).join(""), options?.brief),
  };
}

/**
 * What a press of a draft's stop button is read for: the private chat it is in, and the
 * draft. Unchecked by grammY, as a press is.
 * https://core.telegram.org/bots/api#messagegenerationstopped
 */
const draftStopInChat = z.looseObject({
  chat: z.looseObject({ id: z.number() }),
  draft_id: z.number(),
});

/** Whether a draft's stop has the parts Telegram always sends: else it is dropped unread. */
export function isWholeDraftStop(stopped: MessageGenerationStopped): boolean {
  return draftStopInChat.safeParse(stopped).success;
}

/**
 * A press of Telegram's own stop button on a draft (TELEGRAM_DRAFTS), as a press of the Stop
 * button the draft stands for: the person is the private chat's own, and a reply to them is a
 * message in that chat (the update has no query to answer).
 * https://core.telegram.org/bots/api#sendmessagedraft (can_stop)
 */
export function telegramDraftStop(
  stopped: MessageGenerationStopped,
  stop: Button,
  context: Omit<TelegramPressContext, "answer">,
): PressedButton {
  const { chat } = stopped;
  const person: User = {
    id: chat.id,
    is_bot: false,
    first_name: chat.first_name,
    last_name: chat.last_name,
    username: chat.username,
  };
  return {
    channel: "telegram",
    action: stop.action,
    id: stop.id,
    pressId: `draft:${chat.id}:${stopped.draft_id}`,
    person: presser(person, { chatId: chat.id, isPrivate: true }, context),
    channelId: String(chat.id),
    channelKey: telegramChannelKey(chat.id),
    // A draft is no message: a handler that changes the pressed message has none here.
    message: undefined,
    replyPrivately: async (text) => {
      await context.api.sendMessage(chat.id, text);
    },
  };
}

/** Who pressed, as the button handlers ask of them. */
function presser(
  from: User,
  where: { chatId: number; isPrivate: boolean },
  context: Omit<TelegramPressContext, "answer">,
): Presser {
  const authorId = String(from.id);
  return {
    id: authorId,
    name: personName(from),
    isAdmin: () => context.isAdmin({ ...where, authorId }),
    isBotAdmin: async () => context.isListed(authorId),
    locale: async () => from.language_code,
  };
}
