import type { CallWindow } from "../coordination/call-window.ts";
import type { TicketStatus } from "../coordination/ticket-line.ts";
import type { DrawOptions, TokenBucket } from "../coordination/token-bucket.ts";
import type { StreamAdd, StreamEntry } from "../coordination/work-stream.ts";

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
  /**
   * True when other processes may use this store at the same time (Redis): what coordinates
   * processes (leases, shared budgets, the journal's liveness) must then go through it. False
   * for the embedded store, which one process owns: there a lease is granted in process and a
   * budget is this process's own.
   */
  readonly sharedAcrossProcesses: boolean;

  get<T>(key: string): Promise<T | undefined>;

  /** Values in the order of `keys`; missing or expired keys give undefined. One round trip on Redis. */
  getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]>;

  /** `ttlMs` (a positive number of milliseconds) makes the entry expire; without it the entry stays. */
  set<T>(key: string, value: T, ttlMs?: number): Promise<void>;

  /** True when the key existed. */
  delete(key: string): Promise<boolean>;

  /**
   * claim, renew and release are the store's lease (and lock) operations: acquire one, extend
   * it, free it. src/coordination/lease.ts builds the leases processes keep alive on them.
   *
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
   * Adds `member` to the set at `key`; true when it was not there yet. Each change is one
   * atomic step (SADD on Redis, across every process sharing it; under the key's mutex in the
   * embedded store), so concurrent changes of one set never lose each other. A key holds a
   * set or a value (`set`/`claim`), never both. With `ttlMs` the whole set lapses that long
   * after its last change.
   */
  addToSet(key: string, member: string, ttlMs?: number): Promise<boolean>;

  /** Removes `member` from the set at `key`; true when it was there. */
  removeFromSet(key: string, member: string): Promise<boolean>;

  /** The members of the set at `key`, in no particular order; [] when there is none. */
  setMembers(key: string): Promise<string[]>;

  /**
   * Sets `field` of the map at `key` to `value` and returns the value it held before
   * (undefined when the field is new), in one atomic step (a script over HGET and HSET on
   * Redis, across every process sharing it; under the key's mutex in the embedded store). A
   * key holds a map, a set or a value, never two of them. With `ttlMs` the whole map lapses
   * that long after its last change; without, what is recorded here stays.
   */
  putInMap<T>(key: string, field: string, value: T, ttlMs?: number): Promise<T | undefined>;

  /** Every field of the map at `key` with its value; {} when there is none. */
  mapEntries<T>(key: string): Promise<Record<string, T>>;

  /**
   * Takes the next ticket in the line at `key` and returns its number: tickets are served
   * in the order they were taken, across every process sharing the Redis (in memory for the
   * embedded store, which belongs to one process). The ticket holds for `leaseMs`; each
   * checkTicket renews it. A ticket given back, or not renewed within its lease (its process
   * died), is skipped. See ticket-line.ts.
   */
  takeTicket(key: string, owner: string, leaseMs: number): Promise<number>;

  /** Renews the ticket for `leaseMs` and says whether it is served, waiting or lapsed. */
  checkTicket(key: string, ticket: number, owner: string, leaseMs: number): Promise<TicketStatus>;

  /** Leaves the line (done, or never needed a turn): the next ticket may be served. */
  giveBackTicket(key: string, ticket: number, owner: string): Promise<void>;

  /**
   * Draws one token from the bucket at `key`: resolves 0 when one was taken, else the ms
   * until there will be one (nothing is taken then). With `holdMs` the bucket is emptied
   * for that long instead (a platform's "retry after"); `reserve` tokens are left for calls
   * that must not wait. Atomic across every process sharing the Redis; in memory for the
   * embedded store, which belongs to one process.
   */
  drawToken(key: string, bucket: TokenBucket, options?: DrawOptions): Promise<number>;

  /**
   * Takes a place in the call window at `key` (see drawWindow): resolves 0 when the call may
   * go, else the ms until it could (nothing is taken then). Atomic across every process sharing
   * the Redis; in memory for the embedded store.
   */
  drawWindow(key: string, window: CallWindow, options?: DrawOptions): Promise<number>;

  /**
   * The work queue at `key` (see work-stream.ts): one queue for every process sharing the
   * Redis (a stream with a consumer group), in memory for the embedded store. Adds `value` at
   * the back unless `maxWaiting` entries already wait to be taken (then undefined), in one
   * atomic step.
   */
  streamAdd(key: string, value: unknown, maxWaiting: number): Promise<StreamAdd | undefined>;

  /** Takes up to `count` waiting entries, oldest first; `consumer` holds them from now. */
  streamTake(key: string, consumer: string, count: number): Promise<StreamEntry[]>;

  /**
   * Takes over up to `count` entries whose holder has not renewed its hold for `minIdleMs`
   * (it died), then waiting entries to make up `count`, in one step: `consumer` holds them
   * from now.
   */
  streamTakeOver(
    key: string,
    consumer: string,
    minIdleMs: number,
    count: number,
  ): Promise<StreamEntry[]>;

  /** Renews `consumer`'s hold of those of `ids` it still holds; returns those. */
  streamHold(key: string, consumer: string, ids: readonly string[]): Promise<string[]>;

  /**
   * The entry is done and leaves the queue, only while `consumer` still holds it: true then,
   * false when another consumer took it over (it is theirs to do).
   */
  streamFinish(key: string, consumer: string, id: string): Promise<boolean>;

  /** How many entries wait to be taken. */
  streamWaiting(key: string): Promise<number>;

  /** The ids of the entries waiting to be taken, next first: each one's place in line. */
  streamPlaces(key: string): Promise<string[]>;

  /**
   * Calls `onAdd` soon after any process adds to the queue at `key` (Redis pub/sub), so a
   * process with room need not poll to take it at once. A hint only: an announcement lost
   * while the connection is down is made up for by polling. Returns the way to stop.
   */
  streamWatch(key: string, onAdd: () => void): () => void;

  /** Resolves when the store answers now; rejects with StoreUnavailableError otherwise (for /healthz). */
  ping(): Promise<void>;

  /** Waits for operations in flight (each bounded by its timeout), then frees the connection or files. */
  close(): Promise<void>;
}
