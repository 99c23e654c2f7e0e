import { setTimeout as delay } from "node:timers/promises";
import { AbortedError } from "./errors.ts";

/**
 * How passing failures are retried: the backend's calls, and the platforms' calls at start-up.
 * Tests shrink the delays.
 */
export interface RetryOptions {
  /** Tries in all, the first included. Default 3. */
  attempts?: number | undefined;
  /** Backoff before the first retry, doubled for each next one, with jitter. Default 500. */
  baseDelayMs?: number | undefined;
  /** Ceiling of the backoff. Default 8000. */
  maxDelayMs?: number | undefined;
  /** Longest `Retry-After` waited for; a longer one ends the retries. Default 30000. */
  maxRetryAfterMs?: number | undefined;
  /** Told before each wait, e.g. to log it. */
  onRetry?: ((info: RetryInfo) => void) | undefined;
}

export interface RetryInfo {
  /** The attempt that failed, from 1. */
  attempt: number;
  delayMs: number;
  error: unknown;
}

export interface RetryPlan {
  /** Whether this failure may be tried again (it says "later", not "never"). */
  retryable(error: unknown): boolean;
  /** The server's own wait (`Retry-After`), when it gave one. */
  retryAfterMs?(error: unknown): number | undefined;
  signal?: AbortSignal | undefined;
}

/** Runs `attempt` until it succeeds, fails for good, or the tries run out. */
export async function withRetry<T>(
  options: RetryOptions,
  plan: RetryPlan,
  attempt: () => Promise<T>,
): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? 3);
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n >= attempts || !plan.retryable(error)) throw error;
      const hinted = plan.retryAfterMs?.(error);
      if (hinted !== undefined && hinted > (options.maxRetryAfterMs ?? 30_000)) throw error;
      const delayMs =
        hinted ?? backoffMs(n, options.baseDelayMs ?? 500, options.maxDelayMs ?? 8_000);
      options.onRetry?.({ attempt: n, delayMs, error });
      await sleep(delayMs, plan.signal);
    }
  }
}

/** Exponential backoff with "equal jitter": half fixed, half random, so retries spread out. */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random = Math.random) {
  const ceiling = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * Reads `Retry-After` in either form RFC 9110 allows: delay seconds or an HTTP-date.
 * Returns milliseconds, or undefined when absent or unreadable.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now = Date.now(),
): number | undefined {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return undefined;
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  // Every HTTP-date form starts with a day name; this keeps "-1" from parsing as a year.
  if (!/^[A-Za-z]{3}/.test(raw)) return undefined;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

async function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) throw new AbortedError("while waiting to retry");
  try {
    await delay(ms, undefined, signal ? { signal } : undefined);
  } catch {
    throw new AbortedError("while waiting to retry");
  }
}
