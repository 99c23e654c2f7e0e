import { describe, expect, it } from "vitest";
import { RateBudgets } from "../../src/reply/budgets.ts";
import { callWithinBudget, RateBudget } from "../../src/reply/call-budget.ts";
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

  it("serves urgent calls (first and final texts) before routine edits", async () => {
    const budget = new RateBudget({ perMinute: 1200, burst: 1 });
    expect(await serviceOrder(budget)).toEqual(["final", "edit 1", "edit 2"]);
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
    const budgets = new RateBudgets({ perMinute: 60, burst: 1 });
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
