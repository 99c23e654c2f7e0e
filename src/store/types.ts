import type { Coordination, Ttl } from "../coordination/port.ts";

/**
 * The key-value port: what the bridge remembers (conversations, settings, votes, lead records,
 * answer records). Values are what keyv keeps (get, getMany, set with a TTL, delete); a set and
 * a map are values changed one member at a time, so that writers in several processes never
 * lose each other's changes. Who holds, waits or goes next is the coordination port's
 * (src/coordination/port.ts); both stores implement the two, and a store as opened is a Store.
 *
 * Values are JSON-serializable (objects, arrays, strings, numbers, booleans, null).
 * Every failure (unreachable, timed out, closed) rejects with StoreUnavailableError within
 * about a second: a failed read is never reported as a missing value.
 */
export interface KeyValueStore {
  get<T>(key: string): Promise<T | undefined>;

  /** Values in the order of `keys`; missing or expired keys give undefined. One round trip on Redis. */
  getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]>;

  /**
   * `ttlMs` (a positive number of milliseconds, or `{ keptMs }`: see Ttl) makes the entry
   * expire; without it the entry stays.
   */
  set<T>(key: string, value: T, ttlMs?: Ttl): Promise<void>;

  /**
   * Sets every entry, each with its own TTL as `set` would, in one round trip (a pipeline of
   * SETs on Redis, one batch on disk for the embedded store): for writers that keep many
   * records up to date together, such as the answer journal.
   */
  setMany(entries: readonly StoreEntry[]): Promise<void>;

  /** True when the key existed. */
  delete(key: string): Promise<boolean>;

  /**
   * Adds `member` to the set at `key`; true when it was not there yet. Each change is one
   * atomic step (SADD on Redis, across every process sharing it; under the key's mutex in the
   * embedded store), so concurrent changes of one set never lose each other. A key holds a
   * set or a value (`set`, or a coordination claim), never both. With `ttlMs` the whole set
   * lapses that long after its last change.
   */
  addToSet(key: string, member: string, ttlMs?: Ttl): Promise<boolean>;

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
   * Sets every field of `put` and deletes every field of `remove` in the map at `key`, in one
   * round trip (HSET and HDEL on Redis; one batch on disk for the embedded store); the map has
   * no TTL and goes when its last field does. For a writer that keeps many records of one
   * owner up to date together, such as the answer journal's run.
   */
  updateMap(
    key: string,
    put: Readonly<Record<string, unknown>>,
    remove: readonly string[],
  ): Promise<void>;
}

/** One entry of setMany. */
export interface StoreEntry {
  key: string;
  value: unknown;
  ttlMs?: Ttl | undefined;
}

/**
 * A store as opened: both ports over one connection (or one folder), and that connection's
 * life, which only the process's start, its health check and its end deal with. Two
 * implementations keep the same contract (test/store/store-contract.ts): an embedded store
 * under DATA_DIR for a single process, and Redis when STORE_URL is set, so several processes
 * can share state.
 */
export interface Store extends KeyValueStore, Coordination {
  /** Resolves when the store answers now; rejects with StoreUnavailableError otherwise (for /healthz). */
  ping(): Promise<void>;

  /** Waits for operations in flight (each bounded by its timeout), then frees the connection or files. */
  close(): Promise<void>;
}
