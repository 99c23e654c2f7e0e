/**
 * A platform's flood limits as the fakes keep them. Written apart from the bot's own token
 * bucket (src/store/token-bucket.ts) on purpose: a fake that shared the bot's arithmetic
 * would share its mistakes, and the tests would not see them.
 */

/** A limit: a bucket of `burst` calls refilled at `perMinute`. */
export interface Bucket {
  /** Calls per minute, refilled continuously. */
  perMinute: number;
  /** Calls allowed at once after a quiet spell. */
  burst: number;
}

class TokenBucket {
  #tokens: number;
  #at = performance.now();
  constructor(readonly bucket: Bucket) {
    this.#tokens = bucket.burst;
  }
  /** Takes a token, or says how many ms until one is there. */
  take(): number {
    const now = performance.now();
    const perMs = this.bucket.perMinute / 60_000;
    this.#tokens = Math.min(this.bucket.burst, this.#tokens + (now - this.#at) * perMs);
    this.#at = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return (1 - this.#tokens) / perMs;
  }
}

/**
 * One token bucket per key (a chat, a workspace and method), made full on first use. A call
 * without a token is refused with a 429 telling how long to wait.
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
