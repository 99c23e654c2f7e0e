import type { CallWindow } from "./call-window.ts";
import type { Drawn, DrawOptions, TokenBucket } from "./token-bucket.ts";
import type { StreamAdd, StreamEntry } from "./work-stream.ts";

/**
 * How long a record lasts (KeyValueStore.set, Coordination.claim, …): a number of
 * milliseconds, or `{ keptMs }` for a record that memory pressure must not take earlier. A
 * Redis out of memory evicts keys with a TTL of their own (the `volatile-lru` policy: docs/deploy.md,
 * "Redis memory"); a kept record carries none in Redis, and the store deletes it itself once its
 * time is up (within a minute). The embedded store evicts nothing: both are a TTL there.
 */
export type Ttl = number | { readonly keptMs: number };

/**
 * The coordination port: who holds what (claims and leases), who goes next (lines, the work
 * stream), how fast calls may go (token buckets, call windows), who is there, and messages
 * between processes, across every process sharing the store. Both stores implement it beside
 * the key-value port (src/store/types.ts): the embedded store with the in-memory twins kept
 * here (MemoryLines, MemoryBuckets, MemoryWindows, MemoryStreams, MemoryTopics), Redis with the
 * commands and scripts kept beside them, so a step and its two implementations are read in one
 * file. Callers never ask which store they have: test/store/store-contract.ts holds both to the
 * same contract.
 *
 * Every failure (unreachable, timed out, closed) rejects with StoreUnavailableError within
 * about a second, as the key-value port's do.
 */
export interface Coordination {
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

  /**
   * Extends the claim at `key` to `ttlMs` from now while it exists, whoever it names: renew
   * for a claim that only its owner ever writes (a process's presence, whose key names the
   * process), in one store step with no compare. False when it is gone.
   */
  extend(key: string, ttlMs: number): Promise<boolean>;

  /** Deletes the claim, only while `key` still holds `owner`. */
  release(key: string, owner: string): Promise<boolean>;

  /**
   * Joins the line at `key` with `ticket` (unique; named `<process>:<n>`, see line.ts) at its
   * back, and resolves its place: 1 when it is at the head.
   */
  lineJoin(key: string, ticket: string): Promise<number>;

  /**
   * Takes `ticket` out of the line at `key` (done, or its process is dead). With `next`,
   * resolves the ticket now at the head (undefined when the line is empty).
   */
  lineLeave(key: string, ticket: string, next: boolean): Promise<string | undefined>;

  /** The ticket at the head of each line, in the order of `keys` (undefined: empty). */
  lineHeads(keys: readonly string[]): Promise<(string | undefined)[]>;

  /**
   * Puts `by` in `ticket`'s place in its line (a queued question's ticket, now held by the
   * process that took it); false when `ticket` is not in the line.
   */
  lineReplace(key: string, ticket: string, by: string): Promise<boolean>;

  /**
   * Draws one token from the bucket at `key`: resolves 0 when one was taken, else the ms
   * until there will be one (nothing is taken then). With `holdMs` the bucket is emptied
   * for that long instead (a platform's "retry after"); `reserve` tokens are left for calls
   * that must not wait. Atomic across every process sharing the Redis; in memory for the
   * embedded store, which belongs to one process.
   */
  drawToken(key: string, bucket: TokenBucket, options?: DrawOptions): Promise<Drawn>;

  /**
   * Takes a place in the call window at `key` (see drawWindow in call-window.ts): resolves 0
   * when the call may go, else the ms until it could (nothing is taken then). Atomic across
   * every process sharing the Redis; in memory for the embedded store.
   */
  drawWindow(key: string, window: CallWindow, options?: DrawOptions): Promise<number>;

  /**
   * The work queue at `key` (see work-stream.ts): one queue for every process sharing the
   * Redis (a stream with a consumer group), in memory for the embedded store. `consumer` (this
   * process) adds `value` at the back unless `maxWaiting` entries already wait to be taken
   * (then undefined), in one atomic step, and every process is told (streamAddedChannel).
   */
  streamAdd(
    key: string,
    value: unknown,
    maxWaiting: number,
    consumer: string,
  ): Promise<StreamAdd | undefined>;

  /** Takes up to `count` waiting entries, oldest first; `consumer` holds them from now. */
  streamTake(key: string, consumer: string, count: number): Promise<StreamEntry[]>;

  /**
   * Takes over up to `count` entries whose holder has not renewed its hold for `minIdleMs`
   * (it died), then waiting entries to make up `count`, in one step: `consumer` holds them
   * from now. `quiet`: the stream had no entry, waiting or held (none is taken then); false
   * wherever that is not known.
   */
  streamTakeOver(
    key: string,
    consumer: string,
    minIdleMs: number,
    count: number,
  ): Promise<{ entries: StreamEntry[]; quiet: boolean }>;

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
   * The process is stopping: takes out of the queue at `key`, and returns, the entries
   * `consumer` added that no process has taken and that no other process could take once this
   * one is gone: on Redis none (they wait there for the others); in the embedded store's
   * memory, all of them.
   */
  streamAbandon(key: string, consumer: string): Promise<StreamEntry[]>;

  /**
   * Sends `message` to every subscriber of `topic`, in every process sharing the store (this
   * one included), and resolves how many got it. A hint, not a record: a subscriber whose
   * connection is down at the time misses it.
   */
  publish(topic: string, message: string): Promise<number>;

  /**
   * Calls `onMessage` with each message published on `topic` from now on; resolves once
   * subscribed, with the way to stop.
   */
  subscribe(topic: string, onMessage: (message: string) => void): Promise<() => void>;

  /**
   * Whether each of the processes `ids` (ProcessPresence.id) is alive, in one step. On Redis: its
   * presence (`process:<id>`) holds, or a connection it named is still open there, so a process
   * only cut off from Redis is not taken for dead (docs/architecture.md, "One process, one
   * presence"); where Redis refuses CLIENT LIST, the presence alone. The embedded store belongs
   * to the one process that opened it (LevelDB's lock keeps every other out): only that one.
   */
  processesAlive(ids: readonly string[]): Promise<boolean[]>;
}
