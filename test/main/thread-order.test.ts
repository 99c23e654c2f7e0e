import { afterAll, describe, expect, it, vi } from "vitest";
import { FakeSlack } from "../support/fake-slack.ts";
import { startBotInProcess } from "../support/in-process-bot.ts";
import { cleanupAfterEach } from "../support/process-test.ts";
import { waitingForTheirThread } from "../support/question-states.ts";
import { askedQuestion, openStream, startRawBackend } from "../support/raw-backend.ts";
import { startTestRedis } from "../support/redis.ts";
import {
  botWorkDir,
  type LogEntry,
  logEntries,
  START_MS,
  startBot,
  until,
} from "../support/run-bot.ts";
import {
  eventEnvelope,
  mention,
  SIGNING_SECRET,
  signedJsonHeaders,
} from "../support/slack-harness.ts";

const redis = await startTestRedis("a thread's answers in question order");
afterAll(() => redis?.close());
// The bots use the default key prefix, so they need a Redis of their own, not a shared one.
const ownRedis = redis?.server !== undefined;
if (redis && !ownRedis) console.warn("[thread order] skipped: no redis-server of its own");

const track = cleanupAfterEach();

// Its tests start bot processes: on a loaded two-core machine a start alone takes seconds.
vi.setConfig({ testTimeout: 3 * START_MS, hookTimeout: 2 * START_MS });
const THREAD = "1700000300.000001";

/**
 * A chatbot that answers "order <n> answer": the first question's text only once the test
 * lets it go (`releaseFirst`), the others' at once.
 */
async function slowFirstBackend() {
  const questions: string[] = [];
  let releaseFirst = () => {};
  const first = new Promise<void>((resolve) => {
    releaseFirst = resolve;
  });
  const backend = track(
    await startRawBackend(async (ctx) => {
      const question = askedQuestion(ctx);
      questions.push(question);
      await openStream(ctx, question, "conv-order");
      if (question.includes("first")) await Promise.race([first, ctx.closedPromise]);
      await ctx.write(question.includes("first") ? "order first answer" : "order second answer");
      ctx.res.end();
    }),
    (b) => b.close(),
  );
  return { backend, questions, releaseFirst };
}

/** The environment of a bot on this fake Slack over HTTP, at debug level, with this chatbot. */
function slackEnv(fake: FakeSlack, backendUrl: string, store: Record<string, string>) {
  return {
    SLACK_BOT_TOKEN: fake.options.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    CHATBOT_BASE_URL: backendUrl,
    CHATBOT_API_KEY: "sk-order",
    CHATBOT_BOT_UID: "order-bot",
    LEADS_POLL_INTERVAL: "0",
    RATE_LIMIT_QUESTIONS: "0",
    PORT: "0",
    // Each question's changes of state are logged at debug level.
    LOG_LEVEL: "debug",
    // The order is the subject, not the pace: each answer's changes 100 ms apart, not a second.
    SLACK_EDIT_INTERVAL_MS: "100",
    ...store,
  };
}

/** A bot process on this fake Slack, over HTTP: where its events go, and its log lines. */
async function startSlackBot(env: Record<string, string>) {
  const bot = track(startBot({ cwd: await botWorkDir(), env }), (b) => b.stop("SIGKILL"));
  const { port } = await bot.logLine("HTTP server listening (/healthz, /metrics)", START_MS);
  await bot.logLine("channel started", START_MS);
  return { events: `http://127.0.0.1:${port}/slack/events`, logs: () => logEntries(bot.stderr) };
}

async function deliver(events: string, event: Record<string, unknown>): Promise<void> {
  const body = JSON.stringify(eventEnvelope(event));
  const response = await fetch(events, { method: "POST", headers: signedJsonHeaders(body), body });
  await response.arrayBuffer();
  expect(response.status).toBe(200);
}

interface ThreadBot {
  events: string;
  logs(): readonly LogEntry[];
}

/**
 * The first question of a thread goes to `first`, the second, once the first is acknowledged,
 * to `second`; the first's answer comes once the second waits for it. Returns what the thread
 * shows in the end, top to bottom, and every text it showed meanwhile.
 */
async function twoQuestionsInOneThread(
  fake: FakeSlack,
  [first, second]: [ThreadBot, ThreadBot],
  releaseFirst: () => void,
) {
  await deliver(
    first.events,
    mention("first question", { ts: "1700000300.000002", threadTs: THREAD }),
  );
  await deliver(
    second.events,
    mention("second question", { ts: "1700000300.000003", threadTs: THREAD }),
  );
  // Were the second not to wait, its answer would come first: the first's is held till now.
  await until("the second question waiting", () => waitingForTheirThread(second.logs())[0]);
  releaseFirst();
  const thread = () => fake.thread("C1", THREAD).sort((a, b) => Number(a.ts) - Number(b.ts));
  await until(
    "both answers complete",
    () =>
      thread().filter(
        (m) => m.stream !== "streaming" && /order \w+ answer/.test(m.markdown ?? m.text),
      ).length === 2 || undefined,
    15_000,
  );
  const messages = thread();
  return {
    shown: messages.map((m) => m.markdown ?? m.text),
    history: messages.flatMap((m) => m.history),
  };
}

describe.skipIf(!ownRedis)("a thread's answers read in question order", () => {
  it("two processes on one Redis: the second question, on the other process, answers below the first", async () => {
    const fake = track(await FakeSlack.start(), (f) => f.close());
    const { backend, questions, releaseFirst } = await slowFirstBackend();
    const env = slackEnv(fake, backend.url, { STORE_URL: `${redis?.url}/7` });
    const [a, b] = await Promise.all([startSlackBot(env), startSlackBot(env)]);

    const { shown, history } = await twoQuestionsInOneThread(fake, [a, b], releaseFirst);
    expect(shown).toEqual(["order first answer", "order second answer"]);
    // The second question waited behind the first without a notice of its own.
    expect(history.filter((text) => text.includes("⏳"))).toEqual([]);
    expect(questions).toEqual(["first question", "second question"]);
  });

  it("one process: the same thread reads in question order", async () => {
    const fake = track(await FakeSlack.start(), (f) => f.close());
    const { backend, releaseFirst } = await slowFirstBackend();
    // In this process: one process is not what this test is about.
    const bot = track(startBotInProcess({ env: slackEnv(fake, backend.url, {}) }), (b) => b.stop());
    const { port } = await bot.started;
    const a = { events: `http://127.0.0.1:${port}/slack/events`, logs: () => bot.logs };

    const { shown, history } = await twoQuestionsInOneThread(fake, [a, a], releaseFirst);
    expect(shown).toEqual(["order first answer", "order second answer"]);
    expect(history.filter((text) => text.includes("⏳"))).toEqual([]);
    // Each question's life is told in the debug log, one line per state, under its own id
    // (the last lines come just after the answer is on screen).
    await until(
      "both lives ended",
      () => a.logs().filter((e) => e.msg === "question done").length === 2 || undefined,
    );
    const lives = new Map<string, string[]>();
    for (const entry of a.logs()) {
      const { question, msg } = entry as { question?: string; msg?: string };
      if (!question || !msg?.startsWith("question ")) continue;
      lives.set(question, [...(lives.get(question) ?? []), msg]);
    }
    const life = [
      "question received",
      "question waiting for its thread",
      "question answering",
      "question answered",
      "question done",
    ];
    expect([...lives.values()]).toEqual([life, life]);
  });
});
