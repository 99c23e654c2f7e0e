import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { FakeSlack } from "../support/fake-slack.ts";
import { journalLeft } from "../support/journal.ts";
import { cleanupAfterAll, slackBotEnv, type Track } from "../support/process-test.ts";
import { startTestRedis } from "../support/redis.ts";
import { botWorkDir, START_MS, startBot, until } from "../support/run-bot.ts";
import { eventEnvelope, mention, signedJsonHeaders } from "../support/slack-harness.ts";

const redis = await startTestRedis("stop across two processes");
afterAll(() => redis?.close());
// The bots use the default key prefix, so they need a Redis of their own, not a shared one.
const ownRedis = redis?.server !== undefined;
if (redis && !ownRedis) console.warn("[stop across processes] skipped: no redis-server of its own");

const STORE_URL = `${redis?.url}/14`;

// Its tests start bot processes: on a loaded two-core machine a start alone takes seconds.
vi.setConfig({ testTimeout: 3 * START_MS, hookTimeout: 2 * START_MS });

/** A bot process on Slack over HTTP, on the test's Redis (database 14). */
async function startSlackBot(fake: FakeSlack, simulator: Simulator, keep: Track) {
  const env = {
    ...slackBotEnv({ apiUrl: fake.apiUrl, botToken: fake.options.botToken }, simulator),
    STORE_URL,
  };
  const bot = keep(startBot({ cwd: await botWorkDir(), env }), (b) => b.stop("SIGKILL"));
  const { port } = await bot.logLine("HTTP server listening (/healthz, /metrics)", START_MS);
  await bot.logLine("channel started", START_MS);
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

// Its tests share the two processes, each in a thread of its own; the last kills one.
describe.skipIf(!ownRedis)("stopping an answer across two bot processes on one Redis", () => {
  const keep = cleanupAfterAll();
  let fake: FakeSlack;
  let simulator: Simulator;
  let a: Awaited<ReturnType<typeof startSlackBot>>;
  let b: Awaited<ReturnType<typeof startSlackBot>>;
  beforeAll(async () => {
    fake = keep(await FakeSlack.start({ team: "T0FAKE", users: { U1: { name: "Ann" } } }), (f) =>
      f.close(),
    );
    simulator = keep(await startSimulator({ chunkDelayMs: 1 }), (s) => s.close());
    [a, b] = await Promise.all([
      startSlackBot(fake, simulator, keep),
      startSlackBot(fake, simulator, keep),
    ]);
  });

  /**
   * Ann's question to A, in the thread of `ts`: half an answer, then the chatbot goes silent,
   * so only a stop ends it. Resolves once it streams.
   */
  async function oneAnswer(ts: string) {
    const requests = simulator.requests.length;
    expect(await deliver(a.events, mention("tell me more #stall", { ts }))).toBe(200);
    const answer = await until("the answer streaming", () =>
      fake.thread("C1", ts).find((m) => m.text.length > 20),
    );
    return {
      answer,
      chats: () => simulator.requests.slice(requests).filter((r) => r.route === "chat"),
    };
  }

  /** The answer ends with Ann's stopped note, its chatbot request closed, nobody told otherwise. */
  function stoppedByAnn({ answer, chats }: Awaited<ReturnType<typeof oneAnswer>>) {
    expect(answer.text).toMatch(/⏹ stopped by Ann$/);
    expect(answer.text.startsWith("Hello!")).toBe(true);
    expect(chats().map((r) => r.outcome)).toEqual(["aborted"]);
    expect(fake.ephemerals).toEqual([]);
  }

  it("stops the answer one process streams when the other gets `@bot stop`", async () => {
    const ts = "1700000100.000100";
    const run = await oneAnswer(ts);
    expect(await annStops(b.events, ts, run.answer)).toBeLessThan(10_000);
    stoppedByAnn(run);
  });

  it("stops the answer one process streams when the other gets Slack's own Stop (agent_session_stopped)", async () => {
    const ts = "1700000300.000100";
    const run = await oneAnswer(ts);
    await until(
      "the session processing",
      () => fake.sessionOf("C1", ts) === "processing" || undefined,
    );
    expect(await deliver(b.events, fake.pressStop("C1", ts, "U1"))).toBe(200);
    await until("the stopped note", () => run.answer.text.includes("stopped by Ann") || undefined);
    stoppedByAnn(run);
    await until("the session active", () => fake.sessionOf("C1", ts) === "active" || undefined);
  });

  it("ends, as stopped, the answer of a process killed a moment ago when the other gets `@bot stop`", async () => {
    const ts = "1700000200.000100";
    const { answer } = await oneAnswer(ts);
    // Its record names the answer's stream (a live stream keeps all it was sent): B ends it.
    await until(
      "the answer journaled",
      async () => (await journalLeft(STORE_URL)).some((e) => e.messages.length > 0) || undefined,
    );
    // A dies; its presence holds for TAKEOVER_MS yet.
    expect(await a.bot.stop("SIGKILL")).toBeNull();
    // Well before the dead process's answers are finished as interrupted (TAKEOVER_MS, 10 s).
    expect(await annStops(b.events, ts, answer)).toBeLessThan(6_000);
    expect(answer.text).toMatch(/⏹ stopped by Ann$/);
    expect(answer.text.startsWith("Hello!")).toBe(true);
    expect(fake.ephemerals).toEqual([]);
    // Its journal record goes with it, once the note shows: nothing is left to finish as
    // interrupted later (which could not come before a lease and a third: 13 s).
    await until(
      "its journal record gone",
      async () => ((await journalLeft(STORE_URL)).length === 0 ? true : undefined),
      5_000,
    );
    expect(answer.text).toMatch(/⏹ stopped by Ann$/);
  });
});
