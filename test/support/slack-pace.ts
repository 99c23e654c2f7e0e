import { setTimeout as sleep } from "node:timers/promises";
import { STREAM_DELIMITER } from "../../src/backend/stream-parser.ts";
import { DEFAULTS } from "../../src/config.ts";
import type { FakeMessage, SlackCall } from "./fake-slack.ts";
import { type RawBackend, startRawBackend } from "./raw-backend.ts";
import { mention, type SlackHarness, startSlackHarness } from "./slack-harness.ts";
import { SLACK_MINUTE_MS, slackTiers } from "./slack-tiers.ts";

const HEADER = {
  answer: "",
  question: "",
  related_docs: [],
  conversation_uid: "pace",
  is_qa_mode: false,
  system_message: "",
};

/** The answer to "q<n>": plain words, so nothing is held back while it streams. */
export function paceAnswer(n: number, words = 60): string {
  return `Answer ${n}: ${Array.from({ length: words }, (_, i) => `word${i}`).join(" ")}.`;
}

/**
 * A backend that streams the answer to "q<n>" in `pieces` pieces `gapMs` apart, and notes
 * when it wrote the last byte of each.
 */
async function pacedBackend(
  pieces: number,
  gapMs: number,
  words?: number,
): Promise<{ backend: RawBackend; ends: Map<number, number> }> {
  const ends = new Map<number, number>();
  const backend = await startRawBackend(async (ctx) => {
    const n = Number(/q(\d+)/.exec((JSON.parse(ctx.request.body) as { q: string }).q)?.[1]);
    const text = paceAnswer(n, words);
    ctx.res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    await ctx.write(`${JSON.stringify(HEADER)}${STREAM_DELIMITER}`, 0);
    const size = Math.ceil(text.length / pieces);
    for (let at = 0; at < text.length; at += size) {
      await ctx.write(text.slice(at, at + size), at + size < text.length ? gapMs : 0);
    }
    ends.set(n, performance.now());
    ctx.res.end();
  });
  return { backend, ends };
}

async function untilStopped(harness: SlackHarness, threadTs: string): Promise<string> {
  const deadline = performance.now() + 30_000;
  for (;;) {
    const [message] = harness.fake.thread("C1", threadTs);
    if (message?.stream === "stopped") return message.ts;
    if (performance.now() > deadline) throw new Error(`no stopped stream in ${threadTs}`);
    await sleep(2);
  }
}

/**
 * Asks `answers` questions one after the other, each answer streaming natively for about a
 * quarter of a second (ending within the bot's first edit interval, when that is a second) with
 * `editIntervalMs` between the bot's changes of a message: for each, the ms from the backend's
 * last byte to the fake Slack receiving chat.stopStream (ascending).
 */
export async function slackStreamEnds(options: {
  answers: number;
  editIntervalMs: number;
}): Promise<number[]> {
  const { backend, ends } = await pacedBackend(6, 50);
  const harness = await startSlackHarness({
    backend: { url: backend.url, apiKey: "k", botUid: "b" },
    slack: { editIntervalMs: options.editIntervalMs },
  });
  try {
    const latencies: number[] = [];
    for (let n = 1; n <= options.answers; n++) {
      const threadTs = harness.nextTs();
      await harness.sendEvent(mention(`q${n}`, { ts: threadTs }));
      const ts = await untilStopped(harness, threadTs);
      const stop = harness.fake.callsTo("chat.stopStream").find((c) => c.args.ts === ts);
      const end = ends.get(n);
      if (stop && end !== undefined) latencies.push(stop.at - end);
    }
    await harness.settle();
    return latencies.sort((a, b) => a - b);
  } finally {
    await harness.close();
    await backend.close();
  }
}

export interface WorkspaceShare {
  /**
   * For each answer, the most calls of the workspace's budget (chat.appendStream for native
   * streams, chat.update for posted messages) that went by between two changes of that answer,
   * from its first text to its last.
   */
  turnsBetweenChanges: number[];
  /** For each answer, how often its message changed in its first five seconds (Slack's time). */
  changesInFiveSeconds: number[];
  /** The workspace's successful calls of that budget in all. */
  turns: number;
  /** 429 answers the fake Slack gave. */
  rateLimited: number;
  /** Answers that ended with exactly the backend's text. */
  exact: number;
}

/**
 * `answers` questions at once in one workspace, each answer streaming for about `answerMs`
 * (in Slack's time) while the workspace's allowance (Tier 4 chat.appendStream, 100 a minute, or
 * Tier 3 chat.update, 50 a minute) is shared by them all. The fake keeps Slack's tiers and the
 * bot its own budgets, both at their production figures; with `scale` above 1, Slack's time
 * runs that many times faster (its minute, the edit interval, the answers).
 */
export async function slackWorkspaceShare(options: {
  answers: number;
  scale: number;
  answerMs: number;
  nativeStreaming: boolean;
}): Promise<WorkspaceShare> {
  const { scale, nativeStreaming } = options;
  const pieces = 60;
  const { backend } = await pacedBackend(pieces, options.answerMs / scale / pieces, 120);
  const harness = await startSlackHarness({
    backend: { url: backend.url, apiKey: "k", botUid: "b" },
    fake: { tiers: slackTiers(SLACK_MINUTE_MS / scale) },
    slack: {
      nativeStreaming,
      editIntervalMs: 1_000 / scale,
      updatesPerMinute: DEFAULTS.slackUpdatesPerMinute,
      appendsPerMinute: DEFAULTS.slackAppendsPerMinute,
      budgetBurst: undefined,
      rateWindowMs: SLACK_MINUTE_MS / scale,
    },
  });
  try {
    const roots = Array.from({ length: options.answers }, () => harness.nextTs());
    await Promise.all(
      roots.map((ts, i) => harness.sendEvent(mention(`q${i + 1}`, { ts }), { eventId: ts })),
    );
    const expected = roots.map((_, i) => paceAnswer(i + 1, 120));
    const done = () =>
      roots.every((root, i) => harness.fake.thread("C1", root)[0]?.text === expected[i]);
    const deadline = performance.now() + 60_000;
    while (!done() && performance.now() < deadline) await sleep(5);
    await harness.settle();
    const method = nativeStreaming ? "chat.appendStream" : "chat.update";
    const turns = harness.fake.callsTo(method).filter((c) => c.outcome === "ok");
    const messages = roots.map((root) => harness.fake.thread("C1", root)[0]);
    const turnsBetweenChanges = messages.map((message) =>
      message ? mostTurnsBetween(harness.fake.calls, turns, message) : Number.POSITIVE_INFINITY,
    );
    return {
      turnsBetweenChanges,
      changesInFiveSeconds: messages.map((message) =>
        message ? changesInFirst(harness.fake.calls, message, 5_000 / scale) : 0,
      ),
      turns: turns.length,
      rateLimited: harness.fake.rateLimited.length,
      exact: messages.filter((m, i) => m?.text === expected[i]).length,
    };
  } finally {
    await harness.close();
    await backend.close();
  }
}

/** How often `message` changed (its first text included) in the first `ms` after its first text. */
function changesInFirst(calls: SlackCall[], message: FakeMessage, ms: number): number {
  const first = firstOf(calls, message);
  if (!first) return 0;
  const own = calls.filter((c) => c.outcome === "ok" && c.args.ts === message.ts);
  return 1 + own.filter((c) => c.at <= first.at + ms).length;
}

/** The call that showed `message` first (chat.startStream or chat.postMessage). */
function firstOf(calls: SlackCall[], message: FakeMessage): SlackCall | undefined {
  return calls.find(
    (c) =>
      /^chat\.(startStream|postMessage)$/.test(c.method) &&
      c.args.thread_ts === message.threadTs &&
      c.outcome === "ok",
  );
}

/**
 * The most budget calls of other messages between two changes of `message`: from its first
 * text to its last (the stream's stop, or its last chat.update).
 */
function mostTurnsBetween(calls: SlackCall[], turns: SlackCall[], message: FakeMessage): number {
  const own = (c: SlackCall) => c.args.ts === message.ts;
  const first = firstOf(calls, message);
  const last = calls.findLast((c) => own(c) && c.outcome === "ok");
  let most = 0;
  let others = 0;
  for (const call of turns) {
    if (call.at < (first?.at ?? 0)) continue;
    if (call.at > (last?.at ?? Number.POSITIVE_INFINITY)) break;
    if (own(call)) {
      most = Math.max(most, others);
      others = 0;
    } else {
      others++;
    }
  }
  return Math.max(most, others);
}
