/**
 * A platform's flood limits as the fakes keep them. Written apart from the bot's own token
 * bucket and call window (src/store/) on purpose: a fake that shared the bot's arithmetic
 * would share its mistakes, and the tests would not see them.
 */

/** A limit: a bucket of `burst` calls refilled at `perMinute`. */
export interface Bucket {
  /** Calls per minute, refilled continuously. */
  perMinute: number;
  /** Calls allowed at once after a quiet spell. */
  burst: number;
}

/** A limit: at most `limit` calls in any `windowMs` (Telegram's "20 messages per minute"). */
export interface Window {
  limit: number;
  windowMs: number;
}

export type Limit = Bucket | Window;

interface Keeper {
  /** Takes a token, or says how many ms until one is there. */
  take(): number;
}

class TokenBucket implements Keeper {
  #tokens: number;
  #at = performance.now();
  constructor(readonly bucket: Bucket) {
    this.#tokens = bucket.burst;
  }
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

/** Every accepted call's time; a call is refused while `limit` of them lie within the window. */
class CallLog implements Keeper {
  readonly #times: number[] = [];
  constructor(readonly window: Window) {}
  take(): number {
    const now = performance.now();
    const times = this.#times;
    while (times.length > 0 && (times[0] ?? 0) <= now - this.window.windowMs) times.shift();
    if (times.length < this.window.limit) {
      times.push(now);
      return 0;
    }
    return (times[0] ?? now) + this.window.windowMs - now;
  }
}

/**
 * One limit keeper per key (a chat, a workspace and method), made fresh on first use. A call
 * without a token is refused with a 429 telling how long to wait.
 */
export class FloodLimits {
  readonly #keepers = new Map<string, Keeper>();

  /** 0 when the call may go (it is counted); else the ms until it could. */
  take(key: string, limit: Limit): number {
    let keeper = this.#keepers.get(key);
    if (!keeper) {
      keeper = "windowMs" in limit ? new CallLog(limit) : new TokenBucket(limit);
      this.#keepers.set(key, keeper);
    }
    return keeper.take();
  }
}

/**
 * The most calls of `times` (ms, any order) that fall within one `windowMs`: what a platform
 * that counts calls per sliding window would have seen at its busiest.
 */
export function busiestWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] ?? 0) - (sorted[start] ?? 0) >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}
