import type { CallWindow, WindowDraw } from "./call-window.ts";
import type { TokenBucket } from "./token-bucket.ts";

/**
 * The one storage port of the bridge. Two implementations keep the same contract
 * (test/store/store-contract.ts): an embedded store under DATA_DIR for a single process,
 * and Redis when STORE_URL is set, so several processes can share state.
 *
 * Values are JSON-serializable (objects, arrays, strings, numbers, booleans, null).
 * Every failure (unreachable, timed out, closed) rejects with StoreUnavailableError within
 * about a second: a failed read is never reported as a missing value.
 */
export interface KeyValueStore {
  readonly kind: "embedded" | "redis";

  get<T>(key: string): Promise<T | undefined>;

  /** Values in the order of `keys`; missing or expired keys give undefined. One round trip on Redis. */
  getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]>;

  /** `ttlMs` (a positive number of milliseconds) makes the entry expire; without it the entry stays. */
  set<T>(key: string, value: T, ttlMs?: number): Promise<void>;

  /** True when the key existed. */
  delete(key: string): Promise<boolean>;

  /**
   * Creates `key` holding `owner` unless the key already exists. True only for the call that
   * created it: atomic within the process for the embedded store, and across every process
   * sharing the Redis for Redis (SET NX PX). Without `ttlMs` the claim holds until released.
   * `get(key)` returns the owner while the claim holds.
   */
  claim(key: string, owner: string, ttlMs?: number): Promise<boolean>;

  /** Extends the claim to `ttlMs` from now, only while `key` still holds `owner`. */
  renew(key: string, owner: string, ttlMs: number): Promise<boolean>;

  /** Deletes the claim, only while `key` still holds `owner`. */
  release(key: string, owner: string): Promise<boolean>;

  /**
   * Draws one token from the bucket at `key`: resolves 0 when one was taken, else the ms
   * until there will be one (nothing is taken then). With `holdMs` the bucket is emptied
   * for that long instead (a platform's "retry after"). Atomic across every process sharing
   * the Redis; in memory for the embedded store, which belongs to one process.
   */
  drawToken(key: string, bucket: TokenBucket, holdMs?: number): Promise<number>;

  /**
   * Takes a place in the call window at `key` (see drawWindow): resolves 0 when the call may
   * go, else the ms until it could (nothing is taken then). Atomic across every process sharing
   * the Redis; in memory for the embedded store.
   */
  drawWindow(key: string, window: CallWindow, options?: WindowDraw): Promise<number>;

  /** Resolves when the store answers now; rejects with StoreUnavailableError otherwise (for /healthz). */
  ping(): Promise<void>;

  /** Waits for operations in flight (each bounded by its timeout), then frees the connection or files. */
  close(): Promise<void>;
}
