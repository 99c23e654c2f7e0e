import { type Bucket, FloodLimits } from "../support/flood-limits.ts";
import { type AnswerLog, isPlaceInLine } from "./answer-log.ts";
import type { FakeReply } from "./bench-slack-api.ts";
import { telegramKey } from "./bot-bench-chats.ts";
import { STAMP } from "./stamp-backend.ts";

export const BENCH_TELEGRAM_TOKEN = "123456:bench-telegram-token";

/**
 * "Avoid sending more than one message per second in a particular chat. We may allow short
 * bursts": a bucket per chat, drafts and edits counted like messages (as the bot's own
 * budget counts them). https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this
 */
const PER_CHAT: Bucket = { perMinute: 60, burst: 3 };
const LIMITED = new Set([
  "sendMessage",
  "sendRichMessage",
  "editMessageText",
  "sendMessageDraft",
  "sendRichMessageDraft",
]);
const DRAFTS = new Set(["sendMessageDraft", "sendRichMessageDraft"]);
const SENDS = new Set(["sendMessage", "sendRichMessage"]);
const BOT_ID = 123_456;

/**
 * A lean Telegram Bot API for the whole-bot bench: the methods an answer in a private chat
 * uses, answered at once, each call's text handed to the answer log. Unlike
 * test/support/fake-telegram.ts it keeps no chats or messages and parses no HTML, so its own
 * cost stays small beside the bot's at a thousand answers.
 */
export class BenchTelegramApi {
  readonly #log: AnswerLog;
  readonly #limits = new FloodLimits();
  #messageId = 0;

  constructor(log: AnswerLog) {
    this.#log = log;
  }

  handle(method: string, params: Record<string, unknown>, token: string): FakeReply {
    if (token !== BENCH_TELEGRAM_TOKEN) return failure(401, "Unauthorized");
    const chatId = Number(params.chat_id);
    // With TELEGRAM_RICH_MESSAGES=on the bot asks once at start whether rich messages exist,
    // by a draft to itself.
    if (DRAFTS.has(method) && chatId === BOT_ID) {
      return failure(400, "Bad Request: TEXTDRAFT_PEER_INVALID");
    }
    if (LIMITED.has(method)) {
      const waitMs = this.#limits.take(String(chatId), PER_CHAT);
      if (waitMs > 0) {
        this.#log.rateLimited(method);
        const seconds = Math.max(1, Math.ceil(waitMs / 1000));
        return failure(429, `Too Many Requests: retry after ${seconds}`, seconds);
      }
      const key = telegramKey(chatId);
      const text = textOf(params);
      this.#log.record(key, method, text, this.#closing(key, method, text));
      if (SENDS.has(method)) this.#log.countTelegramSend();
    } else {
      this.#log.countCall(method);
    }
    return { status: 200, body: { ok: true, result: this.#result(method, params, chatId) } };
  }

  /**
   * A draft is a preview; a sent or edited message is what stays, and closes the answer once
   * the last chunk shows. A message with no stamp before the answer showed any is an error
   * note (private chats get no placeholder): that closes it too; the queue's place notice
   * does not (the answer replaces it).
   */
  #closing(key: string, method: string, text: string): "no" | "complete" | "now" {
    if (DRAFTS.has(method)) return "no";
    const errorNote = !this.#log.shownFirstText(key) && !STAMP.test(text) && !isPlaceInLine(text);
    return errorNote ? "now" : "complete";
  }

  #result(method: string, params: Record<string, unknown>, chatId: number): unknown {
    switch (method) {
      case "getMe":
        return { id: BOT_ID, is_bot: true, first_name: "Bench", username: "BenchBot" };
      case "sendMessage":
      case "sendRichMessage":
      case "editMessageText":
        return {
          message_id: SENDS.has(method) ? ++this.#messageId : Number(params.message_id),
          date: Math.floor(Date.now() / 1000),
          chat: { id: chatId, type: "private", first_name: "Person" },
          text: params.text,
        };
      case "getChatMember":
        return { status: "member", user: { id: Number(params.user_id), is_bot: false } };
      default:
        // setWebhook, setMyCommands, sendMessageDraft, sendChatAction, …
        return true;
    }
  }
}

/** The text a call shows: an HTML message's, or a rich message's HTML. */
function textOf(params: Record<string, unknown>): string {
  if (typeof params.text === "string") return params.text;
  const html = (params.rich_message as { html?: unknown } | undefined)?.html;
  return typeof html === "string" ? html : "";
}

function failure(status: number, description: string, retryAfter?: number): FakeReply {
  return {
    status,
    body: {
      ok: false,
      error_code: status,
      description,
      ...(retryAfter === undefined ? {} : { parameters: { retry_after: retryAfter } }),
    },
  };
}
