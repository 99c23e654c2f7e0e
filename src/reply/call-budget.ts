import type { CallBudget } from "../bridge/ports.ts";
import { RateLimitedError } from "../errors.ts";
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
 * A token bucket shared by every answer that draws on one platform budget (one Slack
 * workspace, one Telegram group). Waiters are served in order, so the budget is divided
 * among the answers streaming at the moment; urgent calls (an answer's first text, its
 * final text) go ahead of routine edits, so nobody waits long to see an answer start or end.
 */
export class RateBudget implements Budget {
  readonly #intervalMs: number;
  readonly #burst: number;
  #tokens: number;
  #refilledAt = performance.now();
  readonly #queue = new WaitQueue();
  #timer: NodeJS.Timeout | undefined;

  constructor(options: RateBudgetOptions) {
    this.#intervalMs = 60_000 / options.perMinute;
    this.#burst = options.burst;
    this.#tokens = options.burst;
  }

  acquire(options: WaitOptions = {}): Promise<void> {
    this.#refill();
    if (this.#tokens >= 1 && this.#queue.size === 0) {
      this.#tokens--;
      return Promise.resolve();
    }
    const served = this.#queue.wait(options);
    this.#schedule();
    return served;
  }

  /** A 429's wait is running (pause() drove the bucket below empty). */
  get paused(): boolean {
    this.#refill();
    return this.#tokens < 0;
  }

  /** Full again and nobody waiting: the budget can be dropped and made anew when needed. */
  get idle(): boolean {
    this.#refill();
    return this.waiting === 0 && this.#timer === undefined && this.#tokens >= this.#burst;
  }

  /** Answers waiting for a call now: a surface can tell how crowded its budget is. */
  get waiting(): number {
    return this.#queue.size;
  }

  /** The platform said to wait: no call from this budget until then. */
  pause(ms: number): void {
    this.#refill();
    // Several 429s for the same moment (answers sharing the budget) mean one wait, not a sum.
    this.#tokens = Math.min(this.#tokens, -ms / this.#intervalMs);
    this.#schedule();
  }

  #refill(): void {
    const now = performance.now();
    this.#tokens = Math.min(
      this.#burst,
      this.#tokens + (now - this.#refilledAt) / this.#intervalMs,
    );
    this.#refilledAt = now;
  }

  #schedule(): void {
    if (this.#timer || this.waiting === 0) return;
    const wait = Math.max(0, (1 - this.#tokens) * this.#intervalMs);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#refill();
      while (this.#tokens >= 1 && this.#queue.serveNext()) this.#tokens--;
      this.#schedule();
    }, Math.ceil(wait));
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
