import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  type Budget,
  RateBudget,
  type RateBudgetOptions,
} from "../../src/coordination/call-budget.ts";
import { createRateBudget, createWindowBudget } from "../../src/coordination/shared-budget.ts";
import { openEmbeddedStore } from "../../src/store/embedded-store.ts";
import { openRedisStore, type RedisStore } from "../../src/store/redis-store.ts";
import type { Store } from "../../src/store/types.ts";
import { serviceOrder } from "../support/budget-order.ts";
import { busiestWindow } from "../support/flood-limits.ts";
import { startTestRedis } from "../support/redis.ts";
import { botWorkDir, until } from "../support/run-bot.ts";

const redis = await startTestRedis("shared rate budgets");
afterAll(() => redis?.close());

const opened: RedisStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

/** Two processes' views of one Redis: two connections, one namespace. */
async function twoProcesses(): Promise<[RedisStore, RedisStore]> {
  const namespace = `${redis?.namespace}-budget-${opened.length}`;
  const url = redis?.url ?? "";
  const pair = [
    await openRedisStore({ url, namespace }),
    await openRedisStore({ url, namespace }),
  ] as const;
  opened.push(...pair);
  return [pair[0], pair[1]];
}

/** The budget a process on `store` keeps for the allowance at `key`. */
function shared(store: Store, key: string, options: RateBudgetOptions): Budget {
  return createRateBudget(options, { store, key });
}

/** When each of `count` acquires was granted, in ms from the start. */
async function grants(budget: Budget, count: number, started: number): Promise<number[]> {
  return Promise.all(
    Array.from({ length: count }, () => budget.acquire().then(() => performance.now() - started)),
  );
}

// One call per 20 ms and 2 at once: what the platform allows the workspace, not each process.
const OPTIONS = { perMinute: 3_000, burst: 2 };

describe.skipIf(!redis)("a rate budget shared through Redis", () => {
  it("holds two processes together to the one budget", async () => {
    const [a, b] = await twoProcesses();
    const inA = shared(a, "budget:workspace", OPTIONS);
    const inB = shared(b, "budget:workspace", OPTIONS);
    const started = performance.now();
    const times = (await Promise.all([grants(inA, 10, started), grants(inB, 10, started)]))
      .flat()
      .sort((x, y) => x - y);

    // 20 calls at 20 ms with 2 at once take 360 ms together; either process alone would
    // have been done after 160 ms.
    expect(times.at(-1)).toBeGreaterThanOrEqual(320);
    // No 100 ms window holds more than the burst plus what refills in it.
    for (const t of times) {
      expect(times.filter((u) => u >= t && u < t + 100).length).toBeLessThanOrEqual(2 + 5 + 1);
    }
  });

  it("a 429 in one process holds the other off too", async () => {
    const [a, b] = await twoProcesses();
    const inA = shared(a, "budget:group", OPTIONS);
    const inB = shared(b, "budget:group", OPTIONS);
    await inA.acquire();
    inA.pause(600);
    expect(inA.paused).toBe(true);
    // The hold goes to Redis in the background: give it time to land.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const waited = inB.acquire().then(() => performance.now() - started);
    await until("B to learn of the hold", () => (inB.paused ? true : undefined), 400);
    expect(await waited).toBeGreaterThanOrEqual(350);
    expect(inB.paused).toBe(false);
  });

  it("serves this process's urgent calls before its routine edits", async () => {
    const [a] = await twoProcesses();
    const budget = shared(a, "budget:urgent", { perMinute: 3_000, burst: 1 });
    expect(await serviceOrder(budget)).toEqual(["first text", "final", "edit 1", "edit 2"]);
    expect(budget.idle).toBe(true);
  });

  it("gives up a wait when its signal aborts", async () => {
    const [a] = await twoProcesses();
    const budget = shared(a, "budget:abort", { perMinute: 60, burst: 1 });
    await budget.acquire();
    const controller = new AbortController();
    const waiting = budget.acquire({ signal: controller.signal });
    controller.abort(new Error("answer stopped"));
    await expect(waiting).rejects.toThrow("answer stopped");
    expect(budget.waiting).toBe(0);
  });

  it("holds two processes together to one group's window: never more than its limit in any window", async () => {
    const [a, b] = await twoProcesses();
    const window = { limit: 6, windowMs: 400, burst: 6, spacingMs: 1 };
    const inA = createWindowBudget(window, { store: a, key: "budget:group-window" });
    const inB = createWindowBudget(window, { store: b, key: "budget:group-window" });
    const started = performance.now();
    const times = (await Promise.all([grants(inA, 6, started), grants(inB, 6, started)]))
      .flat()
      .sort((x, y) => x - y);

    // Six at once, the other six once the first left the window.
    expect(times[5]).toBeLessThan(200);
    expect(times[6]).toBeGreaterThanOrEqual(390);
    expect(busiestWindow(times, 390)).toBeLessThanOrEqual(6);
  });

  it("keeps to the budget on its own when Redis fails, instead of stopping the answers", async () => {
    const [a] = await twoProcesses();
    const budget = shared(a, "budget:outage", { perMinute: 600, burst: 2 });
    await a.close();
    const started = performance.now();
    await Promise.all(Array.from({ length: 4 }, () => budget.acquire()));
    // The process's own bucket: 2 at once, then one per 100 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(180);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe("which budget a store gives", () => {
  it("the embedded store (one process) keeps the budget in the process", async () => {
    const store = await openEmbeddedStore({ dataDir: await botWorkDir() });
    try {
      const budget = createRateBudget(OPTIONS, { store, key: "budget:x" });
      expect(budget).toBeInstanceOf(RateBudget);
    } finally {
      await store.close();
    }
  });
});
