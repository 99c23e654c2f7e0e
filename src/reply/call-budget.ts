import { setTimeout as sleep } from "node:timers/promises";
import type { CallBudget } from "../bridge/ports.ts";
import { RateLimitedError } from "../errors.ts";
import { LocalBucket, type TokenBucket } from "../store/token-bucket.ts";
import { type WaitOptions, WaitQueue } from "./wait-queue.ts";

export interface RateBudgetOptions {
  /** Calls allowed per minute, on average. */
  perMinute: number;
  /** Calls that may go at once after a quiet spell. */
  burst: number;
}

/** A budget of calls that answers share, drawn on by acquire and paused by a 429. */
export interface Budget extends CallBudget {
  pause(ms: number): void;
  readonly paused: boolean;
  /** Callers waiting for a call now: a surface can tell how crowded its budget is. */
  readonly waiting: number;
  /** Nobody waiting and nothing owed: the budget can be dropped and made anew when needed. */
  readonly idle: boolean;
}

/**
 * Where a budget's tokens come from: a bucket in this process (LocalBucket) or one in the
 * store that every process draws on (see shared-budget.ts).
 */
export interface TokenSource {
  readonly bucket: TokenBucket;
  /** 0 when a token was taken, else the ms until there is one. `holdMs`: a 429's wait. */
  draw(holdMs?: number): number | Promise<number>;
  /** Nothing owed: the source can be dropped and made anew, full. */
  readonly full: boolean;
}

/** The token bucket a budget of `options` keeps. */
export function bucketOf(options: RateBudgetOptions): TokenBucket {
  return { intervalMs: 60_000 / options.perMinute, burst: options.burst };
}

/**
 * A platform budget shared by every answer that draws on it (one Slack workspace, one
 * Telegram group). Waiters are served in order, so the budget is divided among the answers
 * streaming at the moment; urgent calls (an answer's first text, its final text) go ahead of
 * routine edits, so nobody waits long to see an answer start or end. One draw at a time is
 * made from the source, however many answers wait.
 */
export class RateBudget implements Budget {
  readonly #source: TokenSource;
  readonly #queue = new WaitQueue();
  #drawing = false;
  #pausedUntil = 0;

  constructor(
    options: RateBudgetOptions,
    source: TokenSource = new LocalBucket(bucketOf(options)),
  ) {
    this.#source = source;
  }

  acquire(options: WaitOptions = {}): Promise<void> {
    const served = this.#queue.wait(options);
    void this.#serve();
    return served;
  }

  /** A 429's wait is running, here or (as the last draw told) in another process. */
  get paused(): boolean {
    return performance.now() < this.#pausedUntil;
  }

  get idle(): boolean {
    return this.waiting === 0 && !this.#drawing && !this.paused && this.#source.full;
  }

  get waiting(): number {
    return this.#queue.size;
  }

  /** The platform said to wait: no call from this budget (in any process) until then. */
  pause(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, performance.now() + ms);
    // Several 429s for the same moment (answers sharing the budget) mean one wait, not a sum.
    Promise.resolve(this.#source.draw(ms)).catch(() => undefined);
  }

  async #serve(): Promise<void> {
    if (this.#drawing) return;
    this.#drawing = true;
    try {
      while (this.waiting > 0) {
        const waitMs = await this.#source.draw();
        if (waitMs === 0) {
          // Nobody left (the waiters gave up during the draw): the token is spent unused,
          // which errs on the side of the platform's limit.
          this.#queue.serveNext();
          continue;
        }
        // Longer than one refill: the bucket is held for a 429, perhaps by another process.
        const { intervalMs } = this.#source.bucket;
        if (waitMs > intervalMs) {
          this.#pausedUntil = Math.max(this.#pausedUntil, performance.now() + waitMs - intervalMs);
        }
        // Unref'd: a budget's wait alone must not keep a stopping process alive.
        await sleep(waitMs, undefined, { ref: false });
      }
    } finally {
      this.#drawing = false;
    }
  }
}

export interface CallWithinBudgetOptions {
  /** The wait a failure asks for (a 429's retry-after), undefined for any other failure. */
  retryAfterMs?: (error: unknown) => number | undefined;
  /** Waits tolerated before the failure is thrown. Default 5. */
  maxWaits?: number;
  /** A longer wait than this is not waited out. Default: any. */
  maxWaitMs?: number;
  /** Served before routine calls (see RateBudget.acquire). */
  urgent?: boolean;
}

/** The wait a RateLimitedError asks for; undefined for any other error. */
export function rateLimitedWait(error: unknown): number | undefined {
  return error instanceof RateLimitedError ? error.retryAfterMs : undefined;
}

/**
 * Makes one call within a budget, waiting out the platform's "retry after" a few times: for
 * messages that must arrive, late rather than never (lead announcements, command replies).
 */
export async function callWithinBudget<T>(
  budget: Budget,
  call: () => Promise<T>,
  options: CallWithinBudgetOptions = {},
): Promise<T> {
  const {
    retryAfterMs = rateLimitedWait,
    maxWaits = 5,
    maxWaitMs = Number.POSITIVE_INFINITY,
  } = options;
  for (let waits = 0; ; waits++) {
    await budget.acquire({ urgent: options.urgent ?? false });
    try {
      return await call();
    } catch (error) {
      const wait = retryAfterMs(error);
      if (wait === undefined || waits >= maxWaits || wait > maxWaitMs) throw error;
      budget.pause(wait);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
