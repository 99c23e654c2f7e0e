import { type Bucket, TokenBucket } from "../support/fake-telegram.ts";

export type { Bucket } from "../support/fake-telegram.ts";

/**
 * A platform's flood limits as a bench fake keeps them: one token bucket per key (a chat, a
 * workspace and method), made full on first use. A call without a token is refused with a
 * 429 telling how long to wait.
 */
export class FloodLimits {
  readonly #buckets = new Map<string, TokenBucket>();

  /** 0 when the call may go (a token is taken); else the ms until one is there. */
  take(key: string, limit: Bucket): number {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = new TokenBucket(limit);
      this.#buckets.set(key, bucket);
    }
    return bucket.take();
  }
}
