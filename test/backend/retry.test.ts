import { describe, expect, it } from "vitest";
import { AbortedError, ServerError } from "../../src/errors.ts";
import { backoffMs, parseRetryAfter, withRetry } from "../../src/retry.ts";

describe("parseRetryAfter", () => {
  const now = Date.parse("2024-05-01T10:00:00Z");

  it("reads delay seconds and HTTP-dates", () => {
    expect(parseRetryAfter("3", now)).toBe(3000);
    expect(parseRetryAfter(["7"], now)).toBe(7000);
    expect(parseRetryAfter("Wed, 01 May 2024 10:00:05 GMT", now)).toBe(5000);
    // A date already past means "now", not a negative wait.
    expect(parseRetryAfter("Wed, 01 May 2024 09:00:00 GMT", now)).toBe(0);
  });

  it("ignores absent and unreadable values", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-1", now)).toBeUndefined();
  });
});

describe("backoffMs", () => {
  it("doubles from the base up to the ceiling, jittered within its upper half", () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(n, 100, 500, () => 1))).toEqual([
      100, 200, 400, 500, 500,
    ]);
    expect([1, 2, 3].map((n) => backoffMs(n, 100, 500, () => 0))).toEqual([50, 100, 200]);
  });
});

describe("withRetry", () => {
  it("stops waiting when the signal aborts", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    let tries = 0;
    const run = withRetry(
      { attempts: 5, baseDelayMs: 10_000 },
      { retryable: () => true, signal: controller.signal },
      async () => {
        tries += 1;
        throw new ServerError("/x", 503);
      },
    );
    await expect(run).rejects.toBeInstanceOf(AbortedError);
    expect(tries).toBe(1);
  });
});
