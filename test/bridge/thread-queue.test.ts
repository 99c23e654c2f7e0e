import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ThreadQueue } from "../../src/bridge/thread-queue.ts";
import { ProcessPresence } from "../../src/coordination/process-presence.ts";
import { createLogger } from "../../src/log.ts";
import { openEmbeddedStore } from "../../src/store/embedded-store.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import type { Store } from "../../src/store/types.ts";
import { CountingStore } from "../bench/counting-store.ts";
import { startTestRedis } from "../support/redis.ts";
import { botWorkDir } from "../support/run-bot.ts";

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe("a thread's line", () => {
  it("keeps one process's messages in arrival order when the store answers their tickets out of order", async () => {
    store = await openEmbeddedStore({ dataDir: await botWorkDir() });
    const real = store;
    // The first ticket's answer comes late (a script reloaded after NOSCRIPT, a slow reply):
    // the second message's ticket is taken first.
    let takes = 0;
    const takeTicket: Store["takeTicket"] = async (key, owner, hold) => {
      if (++takes === 1) await sleep(50);
      return real.takeTicket(key, owner, hold);
    };
    // As Redis is: shared across processes, so the line's order is the store's tickets'.
    const slowFirstTake = new Proxy(real, {
      get: (target, name: keyof Store) =>
        name === "sharedAcrossProcesses"
          ? true
          : name === "takeTicket"
            ? takeTicket
            : typeof target[name] === "function"
              ? (target[name] as (...args: unknown[]) => unknown).bind(target)
              : target[name],
    });
    const log = createLogger({ level: "silent", secrets: [] });
    const presence = new ProcessPresence({ store: slowFirstTake, log, leaseMs: 2_000 });
    const queue = new ThreadQueue({ store: slowFirstTake, log, presence, pollMs: 20 });
    const done: string[] = [];
    const first = queue.enter("t1").run(async () => void done.push("q1"));
    const second = queue.enter("t1").run(async () => void done.push("q2"));
    const within = sleep(1_500).then(() => "stuck");
    expect(await Promise.race([Promise.all([first, second]).then(() => "done"), within])).toBe(
      "done",
    );
    expect(done).toEqual(["q1", "q2"]);
    await presence.close();
  });
});

const redis = await startTestRedis("a thread's line across processes");
afterAll(() => redis?.close());

describe.runIf(redis)("a thread's line across processes on Redis", () => {
  const LEASE_MS = 300;
  const silent = createLogger({ level: "silent", secrets: [] });
  const namespace = `thread-line-${randomUUID()}`;
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** One process: its own connection (counting its calls), presence and thread lines. */
  async function process() {
    const inner = await openRedisStore({ url: redis?.url ?? "", namespace });
    cleanups.push(() => inner.close());
    const counting = new CountingStore(inner);
    const presence = new ProcessPresence({ store: counting, log: silent, leaseMs: LEASE_MS });
    cleanups.push(() => presence.close());
    const queue = new ThreadQueue({ store: counting, log: silent, presence, pollMs: 20 });
    return { counting, queue, kill: () => inner.close() };
  }

  /** Whether `wait` is still pending after `ms`. */
  async function stillWaiting(wait: Promise<void>, ms: number): Promise<boolean> {
    return (await Promise.race([wait.then(() => false), sleep(ms).then(() => true)])) === true;
  }

  it("holds a live process's place past its presence's lease, with no renewal of the ticket", async () => {
    const a = await process();
    const b = await process();
    const answering = a.queue.enter("thread");
    await answering.wait();
    const waiting = b.queue.enter("thread");
    const turn = waiting.wait();
    a.counting.reset();
    // Four leases on, the answer on A still holds the thread: the question on B waits.
    expect(await stillWaiting(turn, 4 * LEASE_MS)).toBe(true);
    // A's only calls meanwhile kept its presence: none touched its ticket.
    expect(Object.fromEntries(a.counting.counts)).toEqual({ renew: expect.any(Number) });
    answering.leave();
    await turn;
    waiting.leave();
  });

  it("skips a killed process's waiting question once its presence lapses", async () => {
    const a = await process();
    const b = await process();
    const c = await process();
    const first = a.queue.enter("thread");
    await first.wait();
    // B's question waits behind A's answer, C's behind B's question.
    const killedInLine = b.queue.enter("thread");
    void killedInLine.wait().catch(() => undefined);
    await sleep(50);
    const last = c.queue.enter("thread");
    const turn = last.wait();
    await b.kill();
    first.leave();
    // B's ticket holds while its presence does, then the line goes on without it.
    const leftAt = performance.now();
    expect(await stillWaiting(turn, LEASE_MS / 3)).toBe(true);
    await turn;
    expect(performance.now() - leftAt).toBeLessThan(LEASE_MS + 500);
    last.leave();
  });
});
