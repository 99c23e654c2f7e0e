import {
  BucketSource,
  type Budget,
  bucketOf,
  RateBudget,
  type RateBudgetOptions,
  type TokenSource,
  WindowSource,
} from "./call-budget.ts";
import type { CallWindow } from "./call-window.ts";
import type { Coordination } from "./port.ts";
import type { DrawOptions, TokenBucket } from "./token-bucket.ts";

// After the store failed, this long on this process's own source before asking it again,
// so an outage costs one timeout, not one per call.
const STORE_RETRY_MS = 5_000;
/**
 * Tokens a draw from the store takes beside its own while the bucket is plenty full (at
 * least half, Drawn.ahead), for this process's next draws: a call then costs no store
 * command. Each is spent within one refill interval per token or dropped, so a process
 * never spends them in a burst the bucket would not have allowed. 16: a Slack answer's
 * appends of several seconds (Tier 4's bucket holds 30) cost one draw, not two.
 */
const AHEAD = 16;

/**
 * A limit kept in the store, drawn atomically by every process on one Redis (a Slack
 * workspace's chat.update allowance is the workspace's, whichever process makes the call).
 * When the store fails, this process keeps to the limit on its own rather than stop
 * answering.
 */
abstract class StoreSource implements TokenSource {
  readonly #fallback: BucketSource | WindowSource;
  #storeFailedAt = Number.NEGATIVE_INFINITY;

  constructor(fallback: BucketSource | WindowSource) {
    this.#fallback = fallback;
  }

  /** The same limit as the store's, so its waits are the same. */
  longestWaitMs(reserve: number): number {
    return this.#fallback.longestWaitMs(reserve);
  }

  protected abstract drawFromStore(options: DrawOptions): Promise<number>;

  async draw(options: DrawOptions = {}): Promise<number> {
    const holdMs = options.holdMs ?? 0;
    if (holdMs > 0) this.#fallback.draw(options);
    if (performance.now() - this.#storeFailedAt >= STORE_RETRY_MS) {
      try {
        return await this.drawFromStore(options);
      } catch {
        this.#storeFailedAt = performance.now();
      }
    }
    return holdMs > 0 ? holdMs : this.#fallback.draw(options);
  }

  /** The shared limit lives on in the store; only the fallback's state is this process's. */
  get full(): boolean {
    return this.#fallback.full;
  }
}

/** A token bucket in the store (see StoreSource), drawn ahead a few tokens at a time. */
export class StoreBucket extends StoreSource {
  readonly bucket: TokenBucket;
  readonly #store: Coordination;
  readonly #key: string;
  /** Tokens taken ahead and not spent yet, until `#aheadUntil` (performance.now()). */
  #ahead = 0;
  #aheadUntil = 0;

  constructor(store: Coordination, key: string, bucket: TokenBucket) {
    super(new BucketSource(bucket));
    this.bucket = bucket;
    this.#store = store;
    this.#key = key;
  }

  protected async drawFromStore(options: DrawOptions): Promise<number> {
    const holds = (options.holdMs ?? 0) > 0;
    // A platform's "retry after" holds every process: what was taken ahead is not spent.
    if (holds) this.#ahead = 0;
    else if (this.#ahead > 0 && performance.now() < this.#aheadUntil) {
      // Taken while the bucket was at least half full: enough for any reserve it keeps.
      if ((options.reserve ?? 0) <= this.bucket.burst / 2) {
        this.#ahead -= 1;
        return 0;
      }
    }
    const drawn = await this.#store.drawToken(this.#key, this.bucket, {
      ...options,
      ...(!holds && { ahead: AHEAD }),
    });
    if (drawn.ahead > 0) {
      this.#ahead = drawn.ahead;
      this.#aheadUntil = performance.now() + drawn.ahead * this.bucket.intervalMs;
    }
    return drawn.waitMs;
  }
}

/** A call window in the store (see StoreSource). */
export class StoreWindow extends StoreSource {
  readonly window: CallWindow;
  readonly #store: Coordination;
  readonly #key: string;

  constructor(store: Coordination, key: string, window: CallWindow) {
    super(new WindowSource(window));
    this.window = window;
    this.#store = store;
    this.#key = key;
  }

  protected drawFromStore(options: DrawOptions): Promise<number> {
    return this.#store.drawWindow(this.#key, this.window, options);
  }
}

/** Where a budget is kept when several processes may draw on it. */
export interface SharedAt {
  store: Coordination;
  key: string;
}

/**
 * The budget for one platform allowance: drawn from the store where it is given, so every
 * process sharing it keeps to it together; else this process's own bucket.
 */
export function createRateBudget(options: RateBudgetOptions, shared?: SharedAt): Budget {
  return shared
    ? new RateBudget(new StoreBucket(shared.store, shared.key, bucketOf(options)))
    : new RateBudget(options);
}

/** The same for an allowance counted per window (a Telegram group's 20 calls a minute). */
export function createWindowBudget(window: CallWindow, shared?: SharedAt): Budget {
  return shared
    ? new RateBudget(new StoreWindow(shared.store, shared.key, window))
    : new RateBudget(new WindowSource(window));
}
