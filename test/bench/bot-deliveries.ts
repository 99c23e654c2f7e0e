import { Pool } from "undici";
import { eventEnvelope, signedJsonHeaders } from "../support/slack-events.ts";
import { BENCH_SLACK_BOT } from "./bench-slack-api.ts";
import type { BenchChat } from "./bot-bench-chats.ts";

export const BENCH_SIGNING_SECRET = "bench-signing-secret";
export const BENCH_WEBHOOK_SECRET = "bench-webhook-secret";

/**
 * Telegram delivers webhook updates over at most 40 connections at once by default
 * (setWebhook's max_connections). https://core.telegram.org/bots/api#setwebhook
 */
const TELEGRAM_WEBHOOK_CONNECTIONS = 40;

/** A delivery as the platform saw it: the bot's HTTP status and how long it took to answer. */
export interface Delivered {
  status: number;
  ms: number;
}

/**
 * Delivers what Slack and Telegram would to the bot's HTTP server: Telegram updates by
 * webhook (with the secret token header) and Slack Events API envelopes signed with the
 * signing secret (https://docs.slack.dev/authentication/verifying-requests-from-slack), over
 * a pool of keep-alive connections as the platforms hold them.
 */
export class BotDeliveries {
  readonly #pool: Pool;
  #seq = 0;

  /** `connections`: at most this many at once (null: one per request in flight). */
  constructor(botUrl: string, connections: number | null = TELEGRAM_WEBHOOK_CONNECTIONS) {
    this.#pool = new Pool(botUrl, { connections });
  }

  /** A person's question in its conversation: a private chat message or a Slack DM. */
  question(chat: BenchChat, text: string): Promise<Delivered> {
    const seq = ++this.#seq;
    if (chat.platform === "telegram") {
      const person = { id: chat.chatId, is_bot: false, first_name: "Person" };
      return this.#post(
        "/telegram/webhook",
        JSON.stringify({
          update_id: seq,
          message: {
            message_id: seq,
            date: Math.floor(Date.now() / 1000),
            chat: { id: chat.chatId, type: "private", first_name: "Person" },
            from: person,
            text,
          },
        }),
        { "x-telegram-bot-api-secret-token": BENCH_WEBHOOK_SECRET },
      );
    }
    return this.slackEvent(chat.team, {
      type: "message",
      channel_type: "im",
      channel: chat.channel,
      user: chat.user,
      text,
    });
  }

  /**
   * An Events API delivery of a message event (its ts and event id made unique here). The bot
   * acknowledges each before handling it; the time to the ack is what Slack waits for.
   */
  slackEvent(team: string, event: Record<string, unknown>): Promise<Delivered> {
    const seq = ++this.#seq;
    const now = Math.floor(Date.now() / 1000);
    const ts = `${now}.${String(seq).padStart(6, "0")}`;
    const body = JSON.stringify(
      eventEnvelope(
        { ...event, ts, event_ts: ts, team },
        { team, eventId: `Ev${seq}`, botUserId: BENCH_SLACK_BOT.userId },
      ),
    );
    return this.#post(
      "/slack/events",
      body,
      signedJsonHeaders(body, { secret: BENCH_SIGNING_SECRET }),
    );
  }

  close(): Promise<void> {
    return this.#pool.close();
  }

  async #post(path: string, body: string, headers: Record<string, string>): Promise<Delivered> {
    const started = performance.now();
    const response = await this.#pool.request({
      method: "POST",
      path,
      headers: { "content-type": "application/json", ...headers },
      body,
    });
    await response.body.dump();
    return { status: response.statusCode, ms: performance.now() - started };
  }
}
