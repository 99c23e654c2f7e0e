import { type Bucket, FloodLimits, type Window } from "../support/flood-limits.ts";
import { slackTiers } from "../support/slack-tiers.ts";
import { type AnswerLog, isPlaceInLine } from "./answer-log.ts";
import { slackKey, slackTeamOf } from "./bot-bench-chats.ts";
import { STAMP } from "./stamp-backend.ts";

/** What a fake answers: an HTTP status, a JSON body, extra headers. */
export interface FakeReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export const BENCH_SLACK_TOKEN = "xoxb-bench-bot-token";
export const BENCH_SLACK_BOT = { userId: "UBOT", botId: "BBOT", name: "chatbot" };

/**
 * Slack's limits as the fake keeps them. Per workspace: chat.update is Tier 3 (50 calls a
 * minute), chat.appendStream Tier 4 (100), in bursts as the app likes (slack-tiers.ts). Per
 * channel: posting messages (a stream starts one) "generally allows one message per second
 * per channel" with short bursts. https://docs.slack.dev/apis/web-api/rate-limits
 */
const PER_WORKSPACE: Readonly<Record<string, Window>> = slackTiers();
const PER_CHANNEL: Readonly<Record<string, Bucket>> = {
  "chat.postMessage": { perMinute: 60, burst: 3 },
  "chat.startStream": { perMinute: 60, burst: 3 },
};

/** The text a call shows, by method (the streaming methods send Markdown). */
const TEXT_FIELD: Readonly<Record<string, string>> = {
  "chat.postMessage": "text",
  "chat.update": "text",
  "chat.startStream": "markdown_text",
  "chat.appendStream": "markdown_text",
  "chat.stopStream": "markdown_text",
  "chat.postEphemeral": "text",
};

/**
 * A lean Slack Web API for the whole-bot bench: the methods an answer uses, answered at once,
 * each call's text handed to the answer log. Unlike test/support/fake-slack.ts it keeps no
 * conversation (memory stays flat at a thousand answers) and counts its limits per
 * workspace, which it reads from the DM's channel id (see bot-bench-chats.ts).
 */
export class BenchSlackApi {
  readonly #log: AnswerLog;
  readonly #limits = new FloodLimits();
  #ts = 0;

  constructor(log: AnswerLog) {
    this.#log = log;
  }

  handle(method: string, args: Record<string, string>, token: string): FakeReply {
    if (token !== BENCH_SLACK_TOKEN) return ok({ ok: false, error: "invalid_auth" });
    const channel = args.channel ?? args.channel_id ?? "";
    const waitMs = this.#wait(method, channel);
    if (waitMs > 0) {
      this.#log.rateLimited(method);
      return {
        status: 429,
        body: { ok: false, error: "ratelimited" },
        headers: { "retry-after": String(Math.max(1, Math.ceil(waitMs / 1000))) },
      };
    }
    const field = TEXT_FIELD[method];
    if (field !== undefined) {
      const key = slackKey(channel);
      const text = args[field];
      this.#log.record(key, method, text, this.#closing(key, method, text ?? ""));
    } else {
      this.#log.countCall(method);
    }
    return ok(this.#answer(method, args, channel));
  }

  /**
   * A stream may be stopped early, to go on by chat.update: the answer closes with whichever
   * of them comes once the last chunk has been shown. An ephemeral note, or a placeholder
   * that turns into text with no stamp before the answer showed any, is an error note: that
   * closes it too; the queue's place notice does not (the answer replaces it).
   */
  #closing(key: string, method: string, text: string): "no" | "complete" | "now" {
    if (method === "chat.startStream" || method === "chat.appendStream") return "no";
    if (method === "chat.postEphemeral") return "now";
    const errorNote =
      method === "chat.update" &&
      !this.#log.shownFirstText(key) &&
      !STAMP.test(text) &&
      !isPlaceInLine(text);
    return errorNote ? "now" : "complete";
  }

  #wait(method: string, channel: string): number {
    const workspace = PER_WORKSPACE[method];
    if (workspace) return this.#limits.take(`${slackTeamOf(channel)}:${method}`, workspace);
    const perChannel = PER_CHANNEL[method];
    // Posting a message and starting a stream both post one: one bucket per channel.
    if (perChannel) return this.#limits.take(`${channel}:post`, perChannel);
    return 0;
  }

  #answer(method: string, args: Record<string, string>, channel: string): unknown {
    switch (method) {
      case "auth.test":
        return {
          ok: true,
          team_id: "T0",
          user_id: BENCH_SLACK_BOT.userId,
          user: BENCH_SLACK_BOT.name,
          bot_id: BENCH_SLACK_BOT.botId,
        };
      case "chat.postMessage":
      case "chat.startStream": {
        const ts = `${1_700_000_000 + ++this.#ts}.000100`;
        return { ok: true, channel, ts, message: { ts, text: args.text ?? "" } };
      }
      case "chat.update":
      case "chat.appendStream":
      case "chat.stopStream":
        return { ok: true, channel, ts: args.ts };
      case "chat.delete":
      case "chat.postEphemeral":
      case "assistant.threads.setStatus":
        return { ok: true };
      case "users.info":
        return { ok: true, user: { id: args.user, is_admin: false, is_owner: false } };
      default:
        return { ok: false, error: "unknown_method" };
    }
  }
}

function ok(body: unknown): FakeReply {
  return { status: 200, body };
}
