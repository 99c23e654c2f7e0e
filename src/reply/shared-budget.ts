import { setTimeout as sleep } from "node:timers/promises";
import type { TokenBucket } from "../store/token-bucket.ts";
import type { KeyValueStore } from "../store/types.ts";
import { type Budget, RateBudget, type RateBudgetOptions } from "./call-budget.ts";
import { type WaitOptions, WaitQueue } from "./wait-queue.ts";

// After the store failed, this long on this process's own bucket before asking it again,
// so an outage costs one timeout, not one per call.
const STORE_RETRY_MS = 5_000;

/**
 * A platform budget shared by every process on one Redis (a Slack workspace's chat.update
 * allowance is the workspace's, whichever process makes the call). The tokens are a bucket
 * in the store, drawn atomically; this process keeps its own queue, so its urgent calls
 * still go ahead of its routine edits, and only one draw per budget is in flight at a time.
 * When the store fails, the process keeps to the budget on its own rather than stop
 * answering.
 */
export class SharedRateBudget implements Budget {
  readonly #store: KeyValueStore;
  readonly #key: string;
  readonly #bucket: TokenBucket;
  readonly #fallback: RateBudget;
  readonly #queue = new WaitQueue();
  #drawing = false;
  #pausedUntil = 0;
  #storeFailedAt = Number.NEGATIVE_INFINITY;

  constructor(store: KeyValueStore, key: string, options: RateBudgetOptions) {
    this.#store = store;
    this.#key = key;
    this.#bucket = { intervalMs: 60_000 / options.perMinute, burst: options.burst };
    this.#fallback = new RateBudget(options);
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

  get waiting(): number {
    return this.#queue.size;
  }

  get idle(): boolean {
    return this.waiting === 0 && !this.#drawing && !this.paused && this.#fallback.idle;
  }

  pause(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, performance.now() + ms);
    this.#fallback.pause(ms);
    // Every process then waits: the platform counts the budget, not this process's share.
    this.#store.drawToken(this.#key, this.#bucket, ms).catch(() => undefined);
  }

  async #serve(): Promise<void> {
    if (this.#drawing) return;
    this.#drawing = true;
    try {
      while (this.waiting > 0) {
        const waitMs = await this.#draw();
        if (waitMs === 0) {
          // Nobody left (the waiters gave up during the draw): the token is spent unused,
          // which errs on the side of the platform's limit.
          this.#queue.serveNext();
          continue;
        }
        // Longer than one refill: the bucket is held for a 429, perhaps by another process.
        if (waitMs > this.#bucket.intervalMs) {
          this.#pausedUntil = Math.max(
            this.#pausedUntil,
            performance.now() + waitMs - this.#bucket.intervalMs,
          );
        }
        // Unref'd: a budget's wait alone must not keep a stopping process alive.
        await sleep(waitMs, undefined, { ref: false });
      }
    } finally {
      this.#drawing = false;
    }
  }

  async #draw(): Promise<number> {
    if (performance.now() - this.#storeFailedAt >= STORE_RETRY_MS) {
      try {
        return await this.#store.drawToken(this.#key, this.#bucket);
      } catch {
        this.#storeFailedAt = performance.now();
      }
    }
    await this.#fallback.acquire();
    return 0;
  }
}

/**
 * The budget for one platform allowance: drawn from the store when it is Redis, so all
 * processes share it; this process's own bucket with the embedded store (one process).
 */
export function createRateBudget(
  options: RateBudgetOptions,
  shared?: { store: KeyValueStore; key: string },
): Budget {
  return shared?.store.kind === "redis"
    ? new SharedRateBudget(shared.store, shared.key, options)
    : new RateBudget(options);
}
