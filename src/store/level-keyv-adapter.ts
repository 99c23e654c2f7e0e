import { EventEmitter } from "node:events";
import type { ClassicLevel } from "classic-level";
import type { KeyvStoreAdapter, StoredData } from "keyv";
import { KeyedMutex } from "./keyed-mutex.ts";
import { LevelBatcher } from "./level-batcher.ts";

/*
 * Layout inside the one LevelDB:
 *   d:<key>              -> "<expiresAt>|<keyv's serialized value>"   (expiresAt empty: no TTL)
 *   x:<expiresAt>:<key>  -> ""                                        (expiry index, time-ordered)
 * The adapter keeps its own expiry next to the value so it can drop expired entries on
 * read and sweep them without parsing keyv's format. The index makes the sweep read only
 * entries that are due, so its cost follows the expiries, not the size of the store.
 */
const DATA = "d:";
const DATA_END = "d;"; // ';' sorts right after ':', so [d:, d;) is exactly the data keys
const INDEX = "x:";
const INDEX_END = "x;";
// 15 digits hold millisecond timestamps until the year 33658; fixed width keeps them sorted.
const TIME_WIDTH = 15;

export interface LevelKeyvAdapterOptions {
  /** fsync each write (LevelDB `sync: true`); see openEmbeddedStore for why it is off by default. */
  sync?: boolean;
}

/** A keyv storage adapter over classic-level (LevelDB). */
export class LevelKeyvAdapter extends EventEmitter implements KeyvStoreAdapter {
  readonly opts = { dialect: "classic-level" };
  namespace: string | undefined;
  readonly #db: ClassicLevel<string, string>;
  readonly #disk: LevelBatcher;
  // set, delete and sweep of one key run one at a time, so the sweep never deletes a value
  // that a concurrent set has just replaced.
  readonly #keys = new KeyedMutex();

  constructor(db: ClassicLevel<string, string>, options: LevelKeyvAdapterOptions = {}) {
    super();
    this.#db = db;
    this.#disk = new LevelBatcher(db, { sync: options.sync ?? false });
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    return unwrap(await this.#read(key), Date.now()) as StoredData<Value> | undefined;
  }

  async getMany<Value>(keys: string[]): Promise<StoredData<Value | undefined>[]> {
    const now = Date.now();
    const raws = await this.#disk.read(keys.map((key) => DATA + key));
    return raws.map((raw) => unwrap(raw, now)) as StoredData<Value | undefined>[];
  }

  async has(key: string): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }

  async set(key: string, value: string, ttl?: number): Promise<void> {
    const expiresAt = ttl ? Date.now() + ttl : undefined;
    const data = `${expiresAt ?? ""}|${value}`;
    await this.#keys.run(key, async () => {
      if (expiresAt === undefined) {
        await this.#disk.write([{ type: "put", key: DATA + key, value: data }]);
        return;
      }
      // One batch: LevelDB appends it to its log as a single record, so the value and its
      // index entry land together or not at all.
      await this.#disk.write([
        { type: "put", key: DATA + key, value: data },
        { type: "put", key: indexKey(expiresAt, key), value: "" },
      ]);
    });
  }

  async delete(key: string): Promise<boolean> {
    return this.#keys.run(key, async () => {
      const existed = unwrap(await this.#read(key), Date.now()) !== undefined;
      await this.#disk.write([{ type: "del", key: DATA + key }]);
      return existed;
    });
  }

  async clear(): Promise<void> {
    await this.#db.clear({ gte: DATA, lt: DATA_END });
    await this.#db.clear({ gte: INDEX, lt: INDEX_END });
  }

  /**
   * Deletes entries whose expiry has passed, at most `limit` index entries per call, and
   * returns how many values were deleted. Keys that are never read again (delivery ids)
   * would otherwise stay on disk forever, since keyv only drops an expired entry on read.
   */
  async sweep(now = Date.now(), limit = 1_000): Promise<number> {
    const due: string[] = [];
    for await (const key of this.#db.keys({ gt: INDEX, lt: INDEX + pad(now + 1), limit })) {
      due.push(key);
    }
    const removed = await Promise.all(due.map((entry) => this.#sweepOne(entry, now)));
    return removed.filter(Boolean).length;
  }

  async #sweepOne(entry: string, now: number): Promise<boolean> {
    const key = entry.slice(INDEX.length + TIME_WIDTH + 1);
    return this.#keys.run(key, async () => {
      const raw = await this.#read(key);
      const expiresAt = raw === undefined ? undefined : expiryOf(raw);
      // The value may have been replaced since this index entry was written (later TTL or
      // none): then only the stale index entry goes.
      const expired = expiresAt !== undefined && expiresAt <= now;
      await this.#disk.write(
        expired
          ? [
              { type: "del", key: entry },
              { type: "del", key: DATA + key },
            ]
          : [{ type: "del", key: entry }],
      );
      return expired;
    });
  }

  async #read(key: string): Promise<string | undefined> {
    const [raw] = await this.#disk.read([DATA + key]);
    return raw;
  }
}

function pad(time: number): string {
  return String(time).padStart(TIME_WIDTH, "0");
}

function indexKey(expiresAt: number, key: string): string {
  return `${INDEX}${pad(expiresAt)}:${key}`;
}

function expiryOf(raw: string): number | undefined {
  const bar = raw.indexOf("|");
  return bar > 0 ? Number(raw.slice(0, bar)) : undefined;
}

function unwrap(raw: string | undefined, now: number): string | undefined {
  if (raw === undefined) return undefined;
  const expiresAt = expiryOf(raw);
  if (expiresAt !== undefined && expiresAt <= now) return undefined;
  return raw.slice(raw.indexOf("|") + 1);
}
