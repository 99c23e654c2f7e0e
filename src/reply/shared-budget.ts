import { LocalBucket, type TokenBucket } from "../store/token-bucket.ts";
import type { KeyValueStore } from "../store/types.ts";
import {
  type Budget,
  bucketOf,
  RateBudget,
  type RateBudgetOptions,
  type TokenSource,
} from "./call-budget.ts";

// After the store failed, this long on this process's own bucket before asking it again,
// so an outage costs one timeout, not one per call.
const STORE_RETRY_MS = 5_000;

/**
 * A bucket in the store, drawn atomically by every process on one Redis (a Slack
 * workspace's chat.update allowance is the workspace's, whichever process makes the call).
 * When the store fails, this process keeps to the budget on its own rather than stop
 * answering.
 */
export class StoreBucket implements TokenSource {
  readonly bucket: TokenBucket;
  readonly #store: KeyValueStore;
  readonly #key: string;
  readonly #fallback: LocalBucket;
  #storeFailedAt = Number.NEGATIVE_INFINITY;

  constructor(store: KeyValueStore, key: string, bucket: TokenBucket) {
    this.bucket = bucket;
    this.#store = store;
    this.#key = key;
    this.#fallback = new LocalBucket(bucket);
  }

  async draw(holdMs = 0): Promise<number> {
    if (holdMs > 0) this.#fallback.draw(holdMs);
    if (performance.now() - this.#storeFailedAt >= STORE_RETRY_MS) {
      try {
        return await this.#store.drawToken(this.#key, this.bucket, holdMs);
      } catch {
        this.#storeFailedAt = performance.now();
      }
    }
    return holdMs > 0 ? holdMs : this.#fallback.draw();
  }

  /** The shared bucket lives on in the store; only the fallback's state is this process's. */
  get full(): boolean {
    return this.#fallback.full;
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
    ? new RateBudget(options, new StoreBucket(shared.store, shared.key, bucketOf(options)))
    : new RateBudget(options);
}
