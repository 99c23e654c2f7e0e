import { afterAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { openStore } from "../../src/store/open-store.ts";
import { FakeSlack } from "../support/fake-slack.ts";
import { journalEntries, journalRuns } from "../support/journal.ts";
import { cleanupAfterEach, slackBotEnv } from "../support/process-test.ts";
import { startTestRedis } from "../support/redis.ts";
import { botWorkDir, startBot, until } from "../support/run-bot.ts";
import { eventEnvelope, mention, signedJsonHeaders } from "../support/slack-harness.ts";

const redis = await startTestRedis("stop across two processes");
afterAll(() => redis?.close());
// The bots use the default key prefix, so they need a Redis of their own, not a shared one.
const ownRedis = redis?.server !== undefined;
if (redis && !ownRedis) console.warn("[stop across processes] skipped: no redis-server of its own");

const track = cleanupAfterEach();

/** A bot process on Slack over HTTP, on the test's Redis (database 14). */
async function startSlackBot(fake: FakeSlack, simulator: Simulator, extraEnv = {}) {
  const env = {
    ...slackBotEnv({ apiUrl: fake.apiUrl, botToken: fake.options.botToken }, simulator),
    STORE_URL: `${redis?.url}/14`,
    ...extraEnv,
  };
  const bot = track(startBot({ cwd: await botWorkDir(), env }), (b) => b.stop("SIGKILL"));
  const { port } = await bot.logLine("HTTP server listening (/healthz, /metrics)");
  await bot.logLine("channel started");
  return { bot, events: `http://127.0.0.1:${port}/slack/events` };
}

async function deliver(events: string, event: Record<string, unknown>): Promise<number> {
  const body = JSON.stringify(eventEnvelope(event));
  const response = await fetch(events, { method: "POST", headers: signedJsonHeaders(body), body });
  await response.arrayBuffer();
  return response.status;
}

/**
 * Ann writes `@bot stop` in the thread of `ts` through `events`; resolves with the ms until
 * `answer` shows her stopped note.
 */
async function annStops(events: string, ts: string, answer: { text: string }): Promise<number> {
  const stop = mention("stop", { ts: (Number(ts) + 1).toFixed(6), threadTs: ts });
  const asked = performance.now();
  expect(await deliver(events, { ...stop, user_profile: { display_name: "Ann" } })).toBe(200);
  await until("the stopped note", () => answer.text.includes("stopped by Ann") || undefined);
  return performance.now() - asked;
}

/**
 * Two bot processes on the test's Redis, and Ann's question to A, in the thread of `ts`: half
 * an answer, then the chatbot goes silent, so only a stop ends it. `aEnv`: more of A's
 * environment.
 */
async function twoBotsOneAnswer(ts: string, aEnv: Record<string, string> = {}) {
  const fake = track(
    await FakeSlack.start({ team: "T0FAKE", users: { U1: { name: "Ann" } } }),
    (f) => f.close(),
  );
  const simulator = track(await startSimulator({ chunkDelayMs: 1 }), (s) => s.close());
  const a = await startSlackBot(fake, simulator, aEnv);
  const b = await startSlackBot(fake, simulator);
  expect(await deliver(a.events, mention("tell me more #stall", { ts }))).toBe(200);
  const answer = await until("the answer streaming", () =>
    fake.thread("C1", ts).find((m) => m.text.length > 20),
  );
  return { fake, simulator, a, b, answer };
}

/** The answer ends with Ann's stopped note, its chatbot request closed, nobody told otherwise. */
function stoppedByAnn({ fake, simulator, answer }: Awaited<ReturnType<typeof twoBotsOneAnswer>>) {
  expect(answer.text).toMatch(/⏹ stopped by Ann$/);
  expect(answer.text.startsWith("Hello!")).toBe(true);
  const chats = simulator.requests.filter((r) => r.route === "chat");
  expect(chats.map((r) => r.outcome)).toEqual(["aborted"]);
  expect(fake.ephemerals).toEqual([]);
}

describe.skipIf(!ownRedis)("stopping an answer across two bot processes on one Redis", () => {
  it("stops the answer one process streams when the other gets `@bot stop`", async () => {
    const ts = "1700000100.000100";
    const run = await twoBotsOneAnswer(ts);
    expect(await annStops(run.b.events, ts, run.answer)).toBeLessThan(10_000);
    stoppedByAnn(run);
  });

  it("stops the answer one process streams when the other gets Slack's own Stop (agent_session_stopped)", async () => {
    const ts = "1700000300.000100";
    const run = await twoBotsOneAnswer(ts);
    const { fake, answer } = run;
    await until(
      "the session processing",
      () => fake.sessionOf("C1", ts) === "processing" || undefined,
    );
    expect(await deliver(run.b.events, fake.pressStop("C1", ts, "U1"))).toBe(200);
    await until("the stopped note", () => answer.text.includes("stopped by Ann") || undefined);
    stoppedByAnn(run);
    await until("the session active", () => fake.sessionOf("C1", ts) === "active" || undefined);
  });

  it("ends, as stopped, the answer of a process killed a moment ago when the other gets `@bot stop`", async () => {
    const ts = "1700000200.000100";
    const { a, b, answer, fake } = await twoBotsOneAnswer(ts, { LOG_LEVEL: "debug" });
    await a.bot.logLine("answer journaled");
    // A dies; its presence holds for TAKEOVER_MS yet.
    expect(await a.bot.stop("SIGKILL")).toBeNull();
    // Well before the dead process's answers are finished as interrupted (TAKEOVER_MS, 10 s).
    expect(await annStops(b.events, ts, answer)).toBeLessThan(6_000);
    expect(answer.text).toMatch(/⏹ stopped by Ann$/);
    expect(answer.text.startsWith("Hello!")).toBe(true);
    expect(fake.ephemerals).toEqual([]);
    // Its journal record went with it: nothing is left to finish as interrupted later.
    const store = await openStore({ storeUrl: `${redis?.url}/14`, dataDir: "" });
    try {
      const runs = await journalRuns(store);
      const left = await Promise.all(runs.map((run) => journalEntries(store, run)));
      expect(left.flat()).toEqual([]);
    } finally {
      await store.close();
    }
  }, 40_000);
});
