import { setTimeout as sleep } from "node:timers/promises";
import { RateLimitedError } from "../errors.ts";
import type { CallBudget } from "../ports.ts";
import { type CallWindow, LocalWindow } from "./call-window.ts";
import { type DrawOptions, LocalBucket, type TokenBucket } from "./token-bucket.ts";
import { lineOf, type WaitOptions, WaitQueue } from "./wait-queue.ts";

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
 * Where a budget's tokens come from: a bucket or a call window in this process, or one in the
 * store that every process draws on (see shared-budget.ts).
 */
export interface TokenSource {
  /** 0 when a call was granted (and counted), else the ms until one could be. */
  draw(options?: DrawOptions): number | Promise<number>;
  /**
   * The longest wait a draw keeping `reserve` calls for others gives while no 429 holds the
   * source: a longer one means a hold, perhaps set by another process.
   */
  longestWaitMs(reserve: number): number;
  /** Nothing owed: the source can be dropped and made anew, full. */
  readonly full: boolean;
}

/** The token bucket a budget of `options` keeps. */
export function bucketOf(options: RateBudgetOptions): TokenBucket {
  return { intervalMs: 60_000 / options.perMinute, burst: options.burst };
}

/** A token bucket in this process's memory, as a budget's source. */
export class BucketSource implements TokenSource {
  readonly #bucket: LocalBucket;

  constructor(bucket: TokenBucket) {
    this.#bucket = new LocalBucket(bucket);
  }

  draw(options: DrawOptions = {}): number {
    return this.#bucket.draw(options);
  }

  longestWaitMs(reserve: number): number {
    const { intervalMs, burst } = this.#bucket.bucket;
    return intervalMs * (1 + Math.min(reserve, burst - 1));
  }

  get full(): boolean {
    return this.#bucket.full;
  }
}

/** A call window in this process's memory, as a budget's source. */
export class WindowSource implements TokenSource {
  readonly #window: LocalWindow;

  constructor(window: CallWindow) {
    this.#window = new LocalWindow(window);
  }

  draw(options: DrawOptions = {}): number {
    return this.#window.draw(options);
  }

  longestWaitMs(): number {
    return this.#window.window.windowMs;
  }

  get full(): boolean {
    return this.#window.full;
  }
}

/**
 * A platform budget shared by every answer that draws on it (one Slack workspace, one
 * Telegram group). Callers are served in order within three lines: answers' first texts,
 * then other urgent calls (final texts, notices), then routine edits, so nobody waits long to
 * see an answer start or end and routine edits take turns round-robin. Places an answer
 * reserved for its coming first and final texts are left to it by other answers' routine
 * edits, where the source counts calls per window. One draw at a time is made from the
 * source, however many answers wait.
 */
export class RateBudget implements Budget {
  readonly #source: TokenSource;
  readonly #queue = new WaitQueue();
  #drawing = false;
  #pausedUntil = 0;
  #reserved = 0;
  /** The wait of the draw loop when it may end early: a routine call waits for reserved places. */
  #nap: AbortController | undefined;

  /** A bucket of `options` in this process, or `source`. */
  constructor(source: RateBudgetOptions | TokenSource) {
    this.#source = "draw" in source ? source : new BucketSource(bucketOf(source));
  }

  acquire(options: WaitOptions = {}): Promise<void> {
    const served = this.#queue.wait(options);
    // A call that does not wait behind reserved places need not wait for a routine one that does.
    if (lineOf(options) !== "routine") this.#nap?.abort();
    void this.#serve();
    return served;
  }

  /**
   * Keeps `calls` places for an answer's coming first and final texts. Returns a function that
   * changes how many (0 gives them back).
   */
  reserve(calls: number): (calls: number) => void {
    let held = Math.max(0, calls);
    this.#reserved += held;
    return (next) => {
      const now = Math.max(0, next);
      this.#reserved += now - held;
      if (now < held) this.#nap?.abort();
      held = now;
    };
  }

  /** A 429's wait is running, here or (as the last draw told) in another process. */
  get paused(): boolean {
    return performance.now() < this.#pausedUntil;
  }

  get idle(): boolean {
    return (
      this.waiting === 0 &&
      this.#reserved === 0 &&
      !this.#drawing &&
      !this.paused &&
      this.#source.full
    );
  }

  get waiting(): number {
    return this.#queue.size;
  }

  /** The platform said to wait: no call from this budget (in any process) until then. */
  pause(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, performance.now() + ms);
    // Several 429s for the same moment (answers sharing the budget) mean one wait, not a sum.
    Promise.resolve(this.#source.draw({ holdMs: ms })).catch(() => undefined);
  }

  async #serve(): Promise<void> {
    if (this.#drawing) return;
    this.#drawing = true;
    try {
      while (this.waiting > 0) {
        const routine = this.#queue.nextLine === "routine";
        const reserve = routine ? this.#reserved : 0;
        const waitMs = await this.#source.draw({ reserve });
        if (waitMs === 0) {
          // Nobody left (the waiters gave up during the draw): the token is spent unused,
          // which errs on the side of the platform's limit.
          this.#queue.serveNext();
          continue;
        }
        const longestWaitMs = this.#source.longestWaitMs(reserve);
        if (waitMs > longestWaitMs) {
          this.#pausedUntil = Math.max(
            this.#pausedUntil,
            performance.now() + waitMs - longestWaitMs,
          );
        }
        await this.#sleep(waitMs, reserve > 0);
      }
    } finally {
      this.#drawing = false;
    }
  }

  /** Unref'd: a budget's wait alone must not keep a stopping process alive. */
  async #sleep(ms: number, interruptible: boolean): Promise<void> {
    if (!interruptible) {
      await sleep(ms, undefined, { ref: false });
      return;
    }
    const nap = new AbortController();
    this.#nap = nap;
    await sleep(ms, undefined, { ref: false, signal: nap.signal }).catch(() => undefined);
    if (this.#nap === nap) this.#nap = undefined;
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
