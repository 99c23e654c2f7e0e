import { randomUUID } from "node:crypto";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { ProcessPresence } from "../../src/coordination/process-presence.ts";
import { createLogger } from "../../src/log.ts";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import type { Store } from "../../src/store/types.ts";
import {
  type Harness,
  type HarnessOptions,
  incoming,
  startHarness,
} from "../support/bridge-harness.ts";
import { MemorySurface } from "../support/memory-surface.ts";
import { startTestRedis } from "../support/redis.ts";
import { until } from "../support/run-bot.ts";

const redis = await startTestRedis("pipelines sharing Redis");
const silent = createLogger({ level: "silent", secrets: [] });
afterAll(() => redis?.close());

/**
 * Two bridges, as two processes would run them: each its own Redis connection and presence
 * (a short lease: a process that dies is taken for dead within 400 ms), one backend.
 */
async function twoProcesses(
  simulator: Simulator,
  bridge: HarnessOptions["bridge"] = {},
  stores: Store[] = [],
): Promise<Harness[]> {
  const namespace = `${redis?.namespace}-${randomUUID()}`;
  const started: Harness[] = [];
  for (let i = 0; i < 2; i++) {
    const store = await openRedisStore({ url: redis?.url ?? "", namespace });
    stores.push(store);
    const presence = new ProcessPresence({ store, log: silent, leaseMs: 400 });
    const harness = await startHarness({
      store,
      simulatorInstance: simulator,
      bridge: { presence, ...bridge },
    });
    started.push({
      ...harness,
      close: async () => {
        await harness.close();
        await presence.close().catch(() => undefined);
        await store.close().catch(() => undefined);
      },
    });
  }
  return started;
}

/**
 * Half an answer streaming in `process`, then the chatbot goes silent: only a stop (or the
 * backend closing) ends it.
 */
async function stalledAnswer(process: Harness | undefined) {
  const answering = new MemorySurface();
  const answered = process?.bridge.handle(incoming("tell me more #stall"), answering);
  await until("the answer streaming", () => (answering.messages[0]?.length ?? 0) > 10 || undefined);
  return { answering, answered };
}

describe.skipIf(!redis)("two pipelines sharing Redis", () => {
  let simulator: Simulator;
  let harnesses: Harness[] = [];
  afterEach(async () => {
    for (const h of harnesses) await h.close();
    harnesses = [];
    await simulator?.close();
  });
  const chatRequests = () => simulator.requests.filter((r) => r.route === "chat");

  it("answers a delivery that reached both processes once", async () => {
    simulator = await startSimulator({ chunkDelayMs: 1 });
    harnesses = await twoProcesses(simulator);
    const [a, b] = harnesses;
    const message = incoming("delivered twice");
    const surfaces = [new MemorySurface(), new MemorySurface()];
    await Promise.all([
      a?.bridge.handle(message, surfaces[0] as MemorySurface),
      b?.bridge.handle({ ...message }, surfaces[1] as MemorySurface),
    ]);
    expect(chatRequests()).toHaveLength(1);
    expect(surfaces.flatMap((s) => s.messages)).toHaveLength(1);
  });

  it("stops an answer streaming in one process on /stop received by the other", async () => {
    simulator = await startSimulator({ chunkDelayMs: 1 });
    harnesses = await twoProcesses(simulator, {});
    const [a, b] = harnesses;
    const { answering, answered } = await stalledAnswer(a);

    const other = new MemorySurface();
    await b?.bridge.handle(
      incoming("/stop", { authorId: "user-2", isAdmin: async () => false }),
      other,
    );
    expect(other.notices).toEqual([
      {
        text: "Only the person who asked or an admin of this channel can stop this answer.",
        private: true,
      },
    ]);
    const stopping = new MemorySurface();
    const asked = performance.now();
    await b?.bridge.handle(incoming("/stop", { authorName: "Ann <admin>" }), stopping);
    await answered;
    // Seen by the streaming process's next look at the store, not at the end of a timeout.
    expect(performance.now() - asked).toBeLessThan(5_000);
    expect(stopping.notices).toEqual([]);
    expect(answering.messages).toHaveLength(1);
    expect(answering.messages[0]).toMatch(/\n\n⏹ stopped by Ann <admin>$/);
    await until("the chatbot's answer given up", () =>
      chatRequests()[0]?.outcome === "aborted" ? true : undefined,
    );
  });

  it("stops an answer in another process whose clock is 15 s behind the stopper's", async () => {
    simulator = await startSimulator({ chunkDelayMs: 1 });
    harnesses = await twoProcesses(simulator, {});
    const [a, b] = harnesses;
    const { answering, answered } = await stalledAnswer(a);
    // The stopper's clock runs ahead, far past the sign of life's 400 ms: only Redis's own
    // clock may say it lapsed.
    const now = Date.now;
    vi.spyOn(Date, "now").mockImplementation(() => now() + 15_000);
    try {
      const stopping = new MemorySurface();
      await b?.bridge.handle(incoming("/stop", { authorName: "Ann" }), stopping);
      await answered;
      expect(stopping.notices).toEqual([]);
      expect(answering.messages[0]).toMatch(/\n\n⏹ stopped by Ann$/);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it("says there is nothing to stop when the process writing the thread's answer died", async () => {
    simulator = await startSimulator({ chunkDelayMs: 1 });
    const stores: Store[] = [];
    harnesses = await twoProcesses(simulator, {}, stores);
    const [a, b] = harnesses;
    await stalledAnswer(a);
    try {
      // Process A loses the store for good, as a killed process would: no more signs of life.
      await stores[0]?.close();
      await new Promise((resolve) => setTimeout(resolve, 1_000));

      const stopping = new MemorySurface();
      await b?.bridge.handle(incoming("/stop"), stopping);
      expect(stopping.notices).toEqual([
        { text: "Nothing to stop: no answer is being written in this thread.", private: true },
      ]);
    } finally {
      // The stalled answer in A ends with the backend's connection, so A can close.
      await simulator.close();
    }
  });

  it("runs one thread's questions one at a time across processes, on one conversation", async () => {
    simulator = await startSimulator({ chunkDelayMs: 3 });
    harnesses = await twoProcesses(simulator, {});
    const [a, b] = harnesses;
    const first = new MemorySurface();
    const second = new MemorySurface();
    const one = a?.bridge.handle(incoming("first, on process A"), first);
    // The second question reaches the other process while the first is streaming.
    await until("the first answer streaming", () => first.messages[0]);
    await Promise.all([one, b?.bridge.handle(incoming("second, on process B"), second)]);

    // The second waited on B without a word: one message, its answer.
    expect(second.messages).toHaveLength(1);
    expect(second.notices).toEqual([]);
    expect(second.messages.at(-1)).toContain("This is question 2 in our conversation.");
    const [request1, request2] = chatRequests();
    expect(request2?.chat?.conversationUid).toEqual(expect.any(String));
    expect(request1?.chat?.conversationUid).toBeUndefined();
    // The first answer was complete before the second showed anything.
    const firstEnd = first.calls.at(-1);
    expect(firstEnd?.final).toBe(true);
    expect(second.calls[0]?.at).toBeGreaterThan(firstEnd?.at ?? Infinity);
  });

  it("counts a person's questions across processes for the rate limit", async () => {
    simulator = await startSimulator({ chunkDelayMs: 0 });
    const guards = {
      allowedChannels: [],
      allowedUsers: [],
      maxQuestionChars: 4_000,
      rateLimitQuestions: 2,
      rateLimitWindowSeconds: 60,
    };
    harnesses = await twoProcesses(simulator, { guards });
    const [a, b] = harnesses;
    const surface = new MemorySurface();
    const ask = (text: string, thread: string) =>
      incoming(text, { threadKey: `test:channel-1:${thread}` });
    await a?.bridge.handle(ask("one, on A", "t1"), surface);
    await b?.bridge.handle(ask("two, on B", "t2"), surface);
    await a?.bridge.handle(ask("three, on A", "t3"), surface);
    await b?.bridge.handle(ask("four, on B", "t4"), surface);

    expect(chatRequests()).toHaveLength(2);
    expect(surface.notices.map((n) => n.text)).toEqual([
      // Counted down by Redis's clock since the first question: 30 s, or 29 past a second.
      expect.stringMatching(
        /^Slow down: you may ask 2 questions in 60 s\. Try again in (29|30) s\.$/,
      ),
      expect.stringMatching(
        /^Slow down: you may ask 2 questions in 60 s\. Try again in (29|30) s\.$/,
      ),
    ]);
    // Another person has an allowance of their own.
    await b?.bridge.handle(incoming("mine", { authorId: "user-2", threadKey: "t5" }), surface);
    expect(chatRequests()).toHaveLength(3);
  });

  it("goes on with a thread whose turn a dead process held, at the next beat of its presence", async () => {
    simulator = await startSimulator({ chunkDelayMs: 0 });
    harnesses = await twoProcesses(simulator, {});
    const [a] = harnesses;
    // A process that took the thread's turn and died: no presence, no connection.
    await a?.store.lineJoin("line:thread:test:channel-1:thread-1", "dead-process:1");
    const surface = new MemorySurface();
    await a?.bridge.handle(incoming("anyone there?"), surface);

    // It waited for the dead turn without a word: its first message is its answer.
    expect(surface.notices).toEqual([]);
    expect(surface.messages).toHaveLength(1);
    expect(surface.messages[0]).toContain("You asked: “anyone there?”");
  });
});
