import type { Ttl } from "../coordination/port.ts";
import type { HeldRecords, WriteBacks } from "../coordination/store-mark.ts";
import type { KeyValueStore, StoreEntry } from "./types.ts";

export interface KeptRecordsOptions {
  /** What they are, as the store mark's log line names them: "conversations". */
  what: string;
  /** How many are kept at most: past it the least recently used is forgotten. */
  max: number;
  /** Kept TTLs (see Ttl) for the records written back: records memory pressure must spare. */
  kept?: boolean;
  /** Where they are written back from once the store lost its data; none: nothing is kept. */
  writeBacks?: WriteBacks | undefined;
}

interface Copy {
  value: unknown;
  /** When the record lapses in the store (epoch ms); undefined: it has no TTL. */
  until: number | undefined;
  /** When it was noted (epoch ms). */
  noted: number;
}

/** Records written back in one call at most. */
const WRITE_BACK_BATCH = 1_000;

/**
 * A bounded copy of records this process wrote or read lately (an LRU of `max` entries), which
 * it writes back once the store lost its data (StoreMark): the threads it answers go on with
 * their conversations. Noting a record costs no store call; a record whose time is up is not
 * written back.
 */
export class KeptRecords implements HeldRecords {
  readonly what: string;
  readonly #store: KeyValueStore;
  readonly #max: number;
  readonly #kept: boolean;
  readonly #copies = new Map<string, Copy>();
  /** Without a place to be written back from, nothing is kept. */
  readonly #keeping: boolean;

  constructor(store: KeyValueStore, options: KeptRecordsOptions) {
    this.what = options.what;
    this.#store = store;
    this.#max = options.max;
    this.#kept = options.kept ?? false;
    this.#keeping = options.writeBacks !== undefined;
    options.writeBacks?.hold(this);
  }

  /** Records `key`'s value as the store holds it now, lapsing `ttlMs` from `from` (default now). */
  note(key: string, value: unknown, ttlMs?: number, from = Date.now()): void {
    if (!this.#keeping) return;
    this.#copies.delete(key);
    this.#copies.set(key, {
      value,
      until: ttlMs === undefined ? undefined : from + ttlMs,
      noted: Date.now(),
    });
    if (this.#copies.size > this.#max) {
      const oldest = this.#copies.keys().next().value;
      if (oldest !== undefined) this.#copies.delete(oldest);
    }
  }

  /**
   * Whether `key` was noted holding `value` within the last `ms`: a writer that renews a
   * record's lifetime at most that often skips its write. False when nothing is kept.
   */
  notedWithin(key: string, value: unknown, ms: number): boolean {
    const copy = this.#copies.get(key);
    return copy !== undefined && copy.value === value && Date.now() - copy.noted < ms;
  }

  /** The record is gone from the store: it is not written back. */
  forget(key: string): void {
    this.#copies.delete(key);
  }

  async writeBack(): Promise<number> {
    const now = Date.now();
    const entries: StoreEntry[] = [];
    for (const [key, copy] of this.#copies) {
      if (copy.until !== undefined && copy.until <= now) {
        this.#copies.delete(key);
        continue;
      }
      const ttlMs = copy.until === undefined ? undefined : this.#ttl(copy.until - now);
      entries.push({ key, value: copy.value, ttlMs });
    }
    for (let start = 0; start < entries.length; start += WRITE_BACK_BATCH) {
      await this.#store.setMany(entries.slice(start, start + WRITE_BACK_BATCH));
    }
    return entries.length;
  }

  #ttl(ms: number): Ttl {
    return this.#kept ? { keptMs: ms } : ms;
  }
}
