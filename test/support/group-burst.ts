import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createTelegramChannel } from "../../adapters/telegram/index.ts";
import { renderMarkdown } from "../../adapters/telegram/render.ts";
import { createBackendClient } from "../../src/backend/client.ts";
import { STREAM_DELIMITER } from "../../src/backend/stream-parser.ts";
import { createLogger } from "../../src/log.ts";
import { openStore } from "../../src/store/open-store.ts";
import { OPEN_BRIDGE, startBridge } from "./bridge-harness.ts";
import { markupOf, startFakeTelegram } from "./fake-telegram.ts";
import { busiestWindow } from "./flood-limits.ts";
import { startRawBackend } from "./raw-backend.ts";

export interface GroupBurstOptions {
  /** Time runs this many times faster than on Telegram (1: real time). */
  scale: number;
  /** Questions written at once (default 10). */
  questions?: number;
  /** How long each answer streams, first byte to last, in Telegram's time (default 20 s). */
  answerMs?: number;
}

/** What people in the group saw, in Telegram's time (ms, multiplied back by the scale). */
export interface GroupBurstFigures {
  /** From the questions to each answer's first visible text, ascending. */
  firstTextMs: number[];
  /** From each answer's last backend byte to its complete text on screen, ascending. */
  completeAfterEndMs: number[];
  /** 429 answers the fake Telegram gave. */
  floodErrors: number;
  /** Most calls to the group within any one minute. */
  busiestMinute: number;
  /** Calls to the group in all. */
  calls: number;
  /** Answers whose message ended with exactly the backend's text. */
  exact: number;
}

const MINUTE = 60_000;
const PIECES = 40;

/**
 * Ten people in one Telegram group ask the bot at the same moment (the real channel, bridge
 * and an embedded store against the fake Bot API, whose flood limits are Telegram's: about one
 * call a second per chat after a short burst, at most 20 calls in any minute per group), and
 * a scripted backend streams each answer for `answerMs`. With `scale` above 1 every duration,
 * limit and budget is divided by it, so the same rules play out faster.
 */
export async function groupBurst(options: GroupBurstOptions): Promise<GroupBurstFigures> {
  const { scale } = options;
  const count = options.questions ?? 10;
  const pieceGapMs = (options.answerMs ?? 20_000) / scale / PIECES;
  const answers = Array.from({ length: count }, (_, i) => answerText(i + 1));
  const ends = new Map<number, number>();
  const backend = await startRawBackend(async (ctx) => {
    const asked = (JSON.parse(ctx.request.body) as { q: string }).q;
    const index = Number(/question (\d+)/.exec(asked)?.[1]) - 1;
    const text = answers[index] ?? "";
    ctx.res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    const header = {
      answer: "",
      question: asked,
      related_docs: [],
      conversation_uid: `c${index}`,
      is_qa_mode: false,
      system_message: "",
    };
    await ctx.write(`${JSON.stringify(header)}${STREAM_DELIMITER}`, 0);
    const size = Math.ceil(text.length / PIECES);
    for (let at = 0; at < text.length; at += size) {
      await ctx.write(text.slice(at, at + size), pieceGapMs);
    }
    ends.set(index, performance.now());
    ctx.res.end();
  });
  const fake = await startFakeTelegram({
    exactRetryAfter: true,
    limits: {
      chat: { perMinute: 60 * scale, burst: 3 },
      group: { limit: 20, windowMs: MINUTE / scale },
    },
  });
  const dataDir = await mkdtemp(join(tmpdir(), "group-burst-"));
  const store = await openStore({ dataDir });
  const client = createBackendClient({ baseUrl: backend.url, apiKey: "key", botUid: "bot" });
  const log = createLogger({ level: "silent", secrets: [] });
  const channel = createTelegramChannel({
    botToken: fake.token,
    apiRoot: fake.url,
    bridge: await startBridge({ backend: client, store, log, ...OPEN_BRIDGE }),
    store,
    log,
    groupEditIntervalMs: 3_000 / scale,
    budgets: {
      group: { limit: 20, windowMs: 61_000 / scale, burst: 2, spacingMs: 1_000 / scale },
    },
    polling: { timeoutSeconds: 1 },
    startAttempts: 1,
  });
  const group = fake.addChat({ id: -1001, type: "supergroup", title: "Team" });
  try {
    await channel.start();
    const askedAt = performance.now();
    const questions = answers.map((_, i) =>
      fake.write({
        chat: group.id,
        from: fake.user(2_000 + i, `Person ${i + 1}`),
        text: `@ChatBridgeBot question ${i + 1}`,
      }),
    );
    const done = () =>
      fake.botMessages(group.id).filter((m) => answers.some((a) => m.raw === renderMarkdown(a)))
        .length === count;
    const deadline = askedAt + (3 * MINUTE) / scale + 10_000;
    while (!done() && performance.now() < deadline) await sleep(10);
    await channel.stop();
    await channel.settled();

    const calls = fake.calls.filter(
      (c) => Number(c.params.chat_id) === group.id && c.method !== "sendChatAction",
    );
    const firstTextMs: number[] = [];
    const completeAfterEndMs: number[] = [];
    let exact = 0;
    for (const [i, question] of questions.entries()) {
      const questionId = question.message.message_id;
      const message = fake.botMessages(group.id).find((m) => m.replyTo === questionId);
      if (!message) continue;
      const own = calls.filter(
        (c) =>
          c.ok &&
          ((c.method === "sendMessage" &&
            (c.params.reply_parameters as { message_id?: number } | undefined)?.message_id ===
              questionId) ||
            (c.method === "editMessageText" && c.params.message_id === message.message_id)),
      );
      const first = own[0];
      if (first) firstTextMs.push((first.at - askedAt) * scale);
      const expected = renderMarkdown(answers[i] ?? "");
      if (message.raw !== expected) continue;
      exact++;
      const complete = own.findLast((c) => markupOf(c) === expected);
      const end = ends.get(i);
      if (complete && end !== undefined) completeAfterEndMs.push((complete.at - end) * scale);
    }
    const ok = calls.filter((c) => c.ok).map((c) => c.at);
    return {
      firstTextMs: firstTextMs.sort((a, b) => a - b),
      completeAfterEndMs: completeAfterEndMs.sort((a, b) => a - b),
      floodErrors: fake.floodErrors,
      busiestMinute: busiestWindow(ok, MINUTE / scale),
      calls: calls.length,
      exact,
    };
  } finally {
    await channel.stop();
    await fake.close();
    await client.close();
    await backend.close();
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The median of ascending figures. */
export function median(sorted: readonly number[]): number {
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? 0)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** A plain answer of some 600 characters that names its question. */
function answerText(n: number): string {
  const words = Array.from({ length: 90 }, (_, i) => `word${i}`).join(" ");
  return `Answer ${n}: ${words}.`;
}
