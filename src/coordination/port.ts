import type { CallWindow } from "./call-window.ts";
import type { TakenTicket, TicketHold, TicketStatus } from "./ticket-line.ts";
import type { DrawOptions, TokenBucket } from "./token-bucket.ts";
import type { StreamAdd, StreamEntry } from "./work-stream.ts";

/**
 * How long a record lasts (KeyValueStore.set, Coordination.claim, …): a number of
 * milliseconds, or `{ keptMs }` for a record that memory pressure must not take earlier. A
 * Redis out of memory evicts keys with a TTL of their own (the `volatile-lru` policy: README,
 * "Redis memory"); a kept record carries none in Redis, and the store deletes it itself once its
 * time is up (within a minute). The embedded store evicts nothing: both are a TTL there.
 */
export type Ttl = number | { readonly keptMs: number };

/**
 * The coordination port: who holds what (claims and leases), who goes next (ticket lines, the
 * work stream), and how fast calls may go (token buckets, call windows), across every process
 * sharing the store. Both stores implement it beside the key-value port (src/store/types.ts):
 * the embedded store with the in-memory twins kept here (MemoryLines, MemoryBuckets,
 * MemoryWindows, MemoryStreams), Redis with the scripts kept beside them, so a step and its
 * two implementations are read in one file. test/store/store-contract.ts holds both stores to
 * the same contract.
 *
 * Every failure (unreachable, timed out, closed) rejects with StoreUnavailableError within
 * about a second, as the key-value port's do.
 */
export interface Coordination {
  /**
   * True when other processes may use this store at the same time (Redis): what coordinates
   * processes (leases, shared budgets, each process's presence) must then go through it.
   * False for the embedded store, which one process owns: there a lease is granted in process
   * and a budget is this process's own.
   */
  readonly sharedAcrossProcesses: boolean;

  /**
   * claim, renew and release are the store's lease (and lock) operations: acquire one, extend
   * it, free it. lease.ts builds the leases processes keep alive on them.
   *
   * Creates `key` holding `owner` unless the key already exists. True only for the call that
   * created it: atomic within the process for the embedded store, and across every process
   * sharing the Redis for Redis (SET NX PX). Without `ttlMs` the claim holds until released.
   * The key-value port's `get(key)` returns the owner while the claim holds.
   */
  claim(key: string, owner: string, ttlMs?: Ttl): Promise<boolean>;

  /** Extends the claim to `ttlMs` from now, only while `key` still holds `owner`. */
  renew(key: string, owner: string, ttlMs: number): Promise<boolean>;

  /** Deletes the claim, only while `key` still holds `owner`. */
  release(key: string, owner: string): Promise<boolean>;

  /**
   * Takes the next ticket in the line at `key` and returns its number, and whether it is
   * served at once (nothing ahead): tickets are served in the order they were taken, across
   * every process sharing the Redis (in memory for the embedded store, which belongs to one
   * process). The ticket holds as `hold` says: while a process's presence holds, or for a
   * time. A ticket given back, or whose holder is gone (its process's presence lapsed, its
   * time ran out), is skipped. See ticket-line.ts.
   */
  takeTicket(key: string, owner: string, hold: TicketHold): Promise<TakenTicket>;

  /**
   * Says whether the ticket is served, waiting or lapsed; with `hold`, the ticket holds so
   * from now (a time renewed, or bound to a process's presence).
   */
  checkTicket(key: string, ticket: number, owner: string, hold?: TicketHold): Promise<TicketStatus>;

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
   * Takes a place in the call window at `key` (see drawWindow in call-window.ts): resolves 0
   * when the call may go, else the ms until it could (nothing is taken then). Atomic across
   * every process sharing the Redis; in memory for the embedded store.
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
}
