import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { callWithinBudget, RateBudget, WindowSource } from "../../src/coordination/call-budget.ts";
import { RateBudgets } from "../../src/coordination/per-key.ts";
import { serviceOrder } from "../support/budget-order.ts";

describe("RateBudget", () => {
  it("lets a burst through, then spaces calls at the rate", async () => {
    const budget = new RateBudget({ perMinute: 600, burst: 2 }); // one call per 100 ms
    const started = performance.now();
    const times: number[] = [];
    await Promise.all(
      Array.from({ length: 5 }, () =>
        budget.acquire().then(() => times.push(performance.now() - started)),
      ),
    );
    expect(times.slice(0, 2).every((t) => t < 20)).toBe(true);
    expect(times[4]).toBeGreaterThanOrEqual(280);
    expect(times[4]).toBeLessThan(450);
  });

  it("serves answers' first texts first, then final texts, then routine edits in turn", async () => {
    const budget = new RateBudget({ perMinute: 1200, burst: 1 });
    expect(await serviceOrder(budget)).toEqual(["first text", "final", "edit 1", "edit 2"]);
  });

  it("lets routine edits leave the places answers reserved for their first and final texts", async () => {
    // Four calls in any 400 ms, at once: two answers each reserve their first and final text.
    const budget = new RateBudget(
      new WindowSource({ limit: 4, windowMs: 400, burst: 4, spacingMs: 1 }),
    );
    const one = budget.reserve(2);
    const two = budget.reserve(2);
    const order: string[] = [];
    const started = performance.now();
    const at = (what: string) => () => order.push(`${what} ${performance.now() - started < 200}`);
    // A routine edit would take a place both answers still need: it waits.
    const edit = budget.acquire().then(at("edit"));
    await sleep(20);
    await budget.acquire({ first: true }).then(at("first 1"));
    one(1);
    await budget.acquire({ first: true }).then(at("first 2"));
    two(1);
    await budget.acquire({ urgent: true }).then(at("final 1"));
    one(0);
    await budget.acquire({ urgent: true }).then(at("final 2"));
    two(0);
    await edit;
    // Both answers got all their calls at once; the edit went when the window had room again.
    expect(order).toEqual([
      "first 1 true",
      "first 2 true",
      "final 1 true",
      "final 2 true",
      "edit false",
    ]);
  });

  it("keeps a bucket's reserved tokens from routine calls without reading the wait as a 429's", async () => {
    // Three calls at once, then one per 100 ms; an answer keeps two for its first and final.
    const budget = new RateBudget({ perMinute: 600, burst: 3 });
    budget.reserve(2);
    await budget.acquire({ first: true });
    await budget.acquire({ urgent: true });
    // One token left, three needed: the routine call waits two refills.
    const started = performance.now();
    const routine = budget.acquire();
    await sleep(10);
    // Waiting for the reserve to refill is no platform's "retry after".
    expect(budget.paused).toBe(false);
    await routine;
    expect(performance.now() - started).toBeGreaterThanOrEqual(180);
  });

  it("holds every caller off after a 429", async () => {
    const budget = new RateBudget({ perMinute: 6000, burst: 5 });
    budget.pause(200);
    const started = performance.now();
    await budget.acquire();
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it("gives up a wait when its signal aborts", async () => {
    const budget = new RateBudget({ perMinute: 60, burst: 1 });
    await budget.acquire();
    const controller = new AbortController();
    const waiting = budget.acquire({ signal: controller.signal });
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
    expect(budget.waiting).toBe(0);
  });
});

describe("RateBudgets", () => {
  it("drops budgets that are full and unused, and keeps busy ones", async () => {
    const budgets = new RateBudgets(() => new RateBudget({ perMinute: 60, burst: 1 }));
    const busy = budgets.for("busy");
    await busy.acquire();
    for (let i = 0; i < 998; i++) budgets.for(`chat-${i}`);
    expect(budgets.size).toBe(999);
    budgets.for("one more");
    // The 1,000th new key swept the 998 untouched budgets; the one in use stays.
    expect(budgets.size).toBe(2);
    expect(budgets.for("busy")).toBe(busy);
  });
});

describe("callWithinBudget", () => {
  it("waits out a retry-after and tries again, and gives up on other failures", async () => {
    const budget = new RateBudget({ perMinute: 6_000, burst: 5 });
    let calls = 0;
    const started = performance.now();
    const result = await callWithinBudget(
      budget,
      async () => {
        if (++calls === 1) throw new Error("429");
        return "posted";
      },
      {
        retryAfterMs: (error) =>
          error instanceof Error && error.message === "429" ? 100 : undefined,
      },
    );
    expect(result).toBe("posted");
    expect(calls).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);

    await expect(
      callWithinBudget(budget, () => Promise.reject(new Error("forbidden")), {
        retryAfterMs: () => undefined,
      }),
    ).rejects.toThrow("forbidden");
  });
});
