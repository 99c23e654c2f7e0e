import { existsSync } from "node:fs";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { Keyv } from "keyv";
import { type CallWindow, MemoryWindows } from "../coordination/call-window.ts";
import { MemoryLines } from "../coordination/line.ts";
import type { Ttl } from "../coordination/port.ts";
import {
  type Drawn,
  type DrawOptions,
  MemoryBuckets,
  type TokenBucket,
} from "../coordination/token-bucket.ts";
import { MemoryTopics } from "../coordination/topics.ts";
import { MemoryStreams, type StreamAdd, type StreamEntry } from "../coordination/work-stream.ts";
import { messageOf, StoreUnavailableError } from "../errors.ts";
import { createFolder } from "./create-folder.ts";
import { KeyedMutex } from "./keyed-mutex.ts";
import { LevelKeyvAdapter } from "./level-keyv-adapter.ts";
import { checkTtl, OperationGuard } from "./operation-guard.ts";
import type { Store, StoreEntry } from "./types.ts";

export interface EmbeddedStoreOptions {
  /** DATA_DIR; created when missing. The database lives in its `store/` folder. */
  dataDir: string;
  /**
   * The id of the process that opens it (ProcessPresence.id): the only process connected to
   * it, since LevelDB's lock keeps every other out. None: a tool that only reads.
   */
  processId?: string;
  /**
   * Open only a store that is there already, creating nothing: for a tool that reads what
   * the bot wrote, where a mistyped DATA_DIR must not read as an empty store.
   */
  existing?: boolean;
  /**
   * fsync every write. Off by default: LevelDB hands each write to the OS with write(2)
   * before the promise resolves, so a crash or `kill -9` of this process keeps it; only a
   * power loss or kernel crash can lose the last writes (LevelDB drops a torn tail of its
   * log on recovery, so the database stays readable). test/bench/store-bench.ts measures
   * both: on the dev VM ~70 µs per write without fsync, ~320 µs with it, and fsync costs
   * far more on disks that honour it (often 1–10 ms); the kill-safety the design asks for
   * needs no fsync.
   */
  sync?: boolean;
  /** How often expired entries are deleted from disk (default one minute). */
  sweepIntervalMs?: number;
  /**
   * Backstop deadline for one operation (default 2 s). Local failures (closed, I/O error)
   * surface at once; this only bounds a write to a stalled disk, which is slower to declare
   * dead than a network peer (reads are done on this thread: see LevelBatcher).
   */
  timeoutMs?: number;
}

/**
 * Opens the embedded store. Rejects with StoreUnavailableError when the folder cannot be
 * created or opened, including when another process has it open (LevelDB's LOCK file).
 */
export async function openEmbeddedStore(options: EmbeddedStoreOptions): Promise<EmbeddedStore> {
  const location = join(options.dataDir, "store");
  const existing = options.existing ?? false;
  if (existing && !existsSync(location)) {
    throw new StoreUnavailableError(
      "open",
      new Error(`DATA_DIR ${options.dataDir} holds no store: is it the bot's DATA_DIR?`),
    );
  }
  const db = new ClassicLevel<string, string>(location, {
    valueEncoding: "utf8",
    createIfMissing: !existing,
  });
  try {
    if (!existing) await createFolder(options.dataDir);
    await db.open();
  } catch (error) {
    throw new StoreUnavailableError("open", describeOpenError(options.dataDir, error));
  }
  return new EmbeddedStore(db, options);
}

/**
 * The default store: a LevelDB under DATA_DIR, owned by this one process. It evicts nothing, so
 * a kept TTL (see Ttl) is a TTL like any other here.
 */
export class EmbeddedStore implements Store {
  readonly #db: ClassicLevel<string, string>;
  readonly #adapter: LevelKeyvAdapter;
  readonly #keyv: Keyv;
  readonly #guard: OperationGuard;
  // Claims and set changes are read-then-write: this makes each atomic against the others.
  readonly #atomic = new KeyedMutex();
  readonly #sweepTimer: NodeJS.Timeout;
  // Rate budgets, lines, the queue and messages matter only while the process runs: they
  // need no disk.
  readonly #buckets = new MemoryBuckets();
  readonly #lines = new MemoryLines();
  readonly #windows = new MemoryWindows();
  readonly #topics = new MemoryTopics();
  readonly #streams = new MemoryStreams((topic, id) => this.#topics.publish(topic, id));
  readonly #processId: string | undefined;
  /**
   * The fields of each map this process has touched, as the store holds them: the process
   * alone writes the store (LevelDB's lock), so a change to a map reads nothing but the first
   * time (see #entries).
   */
  readonly #maps = new Map<string, Promise<MapFields>>();

  constructor(db: ClassicLevel<string, string>, options: EmbeddedStoreOptions) {
    this.#db = db;
    this.#processId = options.processId;
    this.#adapter = new LevelKeyvAdapter(db, { sync: options.sync ?? false });
    this.#keyv = new Keyv(this.#adapter, { useKeyPrefix: false, throwOnErrors: true });
    this.#guard = new OperationGuard(options.timeoutMs ?? 2_000);
    this.#sweepTimer = setInterval(() => {
      this.#buckets.sweep();
      this.#windows.sweep();
      // A failed sweep is retried at the next tick; expired entries are already invisible.
      this.sweep().catch(() => undefined);
    }, options.sweepIntervalMs ?? 60_000);
    // The sweep is housekeeping: it must never keep the process alive on its own.
    this.#sweepTimer.unref();
  }

  get<T>(key: string): Promise<T | undefined> {
    return this.#guard.run("get", () => this.#keyv.get<T>(key));
  }

  getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]> {
    if (keys.length === 0) return this.#guard.run("getMany", async () => []);
    return this.#guard.run("getMany", () => this.#keyv.getMany<T>([...keys]));
  }

  async set<T>(key: string, value: T, ttlMs?: Ttl): Promise<void> {
    const ttl = checkTtl(ttlMs);
    await this.#guard.run("set", () => this.#keyv.set(key, value, ttl));
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    const checked = entries.map(({ key, value, ttlMs }) => ({ key, value, ttl: checkTtl(ttlMs) }));
    // The adapter's writes of one tick go to disk as one batch (LevelBatcher).
    await this.#guard.run("setMany", () => this.#keyv.setMany(checked));
  }

  delete(key: string): Promise<boolean> {
    return this.#guard.run("delete", () =>
      this.#atomic.run(key, async () => {
        // A map's fields go with it.
        const fields = await this.#dropFields(key);
        return (await this.#keyv.delete(key)) || fields > 0;
      }),
    );
  }

  async claim(key: string, owner: string, ttlMs?: Ttl): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    return this.#guard.run("claim", () =>
      this.#atomic.run(key, async () => {
        if ((await this.#keyv.get(key)) !== undefined) return false;
        await this.#keyv.set(key, owner, ttl);
        return true;
      }),
    );
  }

  async renew(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    return this.#guard.run("renew", () =>
      this.#atomic.run(key, async () => {
        if ((await this.#keyv.get(key)) !== owner) return false;
        await this.#keyv.set(key, owner, ttl);
        return true;
      }),
    );
  }

  async extend(key: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    return this.#guard.run("extend", () =>
      this.#atomic.run(key, async () => {
        const owner = await this.#keyv.get(key);
        if (owner === undefined) return false;
        await this.#keyv.set(key, owner, ttl);
        return true;
      }),
    );
  }

  release(key: string, owner: string): Promise<boolean> {
    return this.#guard.run("release", () =>
      this.#atomic.run(key, async () => {
        if ((await this.#keyv.get(key)) !== owner) return false;
        return this.#keyv.delete(key);
      }),
    );
  }

  async addToSet(key: string, member: string, ttlMs?: Ttl): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    return this.#guard.run("addToSet", () =>
      this.#atomic.run(key, async () => {
        const members = await this.#members(key);
        if (members.includes(member)) {
          if (ttl !== undefined) await this.#keyv.set(key, members, ttl);
          return false;
        }
        await this.#keyv.set(key, [...members, member], ttl);
        return true;
      }),
    );
  }

  removeFromSet(key: string, member: string): Promise<boolean> {
    return this.#guard.run("removeFromSet", () =>
      this.#atomic.run(key, async () => {
        const members = await this.#members(key);
        if (!members.includes(member)) return false;
        const rest = members.filter((m) => m !== member);
        if (rest.length === 0) await this.#keyv.delete(key);
        else await this.#keyv.set(key, rest);
        return true;
      }),
    );
  }

  setMembers(key: string): Promise<string[]> {
    return this.#guard.run("setMembers", () => this.#members(key));
  }

  async putInMap<T>(key: string, field: string, value: T, ttlMs?: number): Promise<T | undefined> {
    const ttl = checkTtl(ttlMs);
    return this.#guard.run("putInMap", () =>
      this.#atomic.run(key, async () => {
        if (ttl === undefined) {
          const before = (await this.#entries<T>(key))[field];
          await this.#changeMap(key, { [field]: value }, []);
          return before;
        }
        // A TTL counts from the map's last change, for all its fields: such a map (a day's
        // votes) is one value, written whole.
        const entries = await this.#entries<T>(key);
        const before = Object.hasOwn(entries, field) ? entries[field] : undefined;
        await this.#dropFields(key);
        await this.#keyv.set(key, { ...entries, [field]: value }, ttl);
        (await this.#mapFields(key)).whole = true;
        return before;
      }),
    );
  }

  mapEntries<T>(key: string): Promise<Record<string, T>> {
    return this.#guard.run("mapEntries", () => this.#entries<T>(key));
  }

  updateMap(
    key: string,
    put: Readonly<Record<string, unknown>>,
    remove: readonly string[],
  ): Promise<void> {
    return this.#guard.run("updateMap", () =>
      this.#atomic.run(key, () => this.#changeMap(key, put, remove)),
    );
  }

  lineJoin(key: string, ticket: string): Promise<number> {
    return this.#guard.run("lineJoin", async () => this.#lines.join(key, ticket));
  }

  lineLeave(key: string, ticket: string, next: boolean): Promise<string | undefined> {
    return this.#guard.run("lineLeave", async () => {
      const head = this.#lines.leave(key, ticket);
      return next ? head : undefined;
    });
  }

  lineHeads(keys: readonly string[]): Promise<(string | undefined)[]> {
    return this.#guard.run("lineHeads", async () => keys.map((key) => this.#lines.head(key)));
  }

  lineReplace(key: string, ticket: string, by: string): Promise<boolean> {
    return this.#guard.run("lineReplace", async () => this.#lines.replace(key, ticket, by));
  }

  drawToken(key: string, bucket: TokenBucket, options?: DrawOptions): Promise<Drawn> {
    return this.#guard.run("drawToken", async () => this.#buckets.draw(key, bucket, options));
  }

  drawWindow(key: string, window: CallWindow, options?: DrawOptions): Promise<number> {
    return this.#guard.run("drawWindow", async () => this.#windows.draw(key, window, options));
  }

  streamAdd(
    key: string,
    value: unknown,
    maxWaiting: number,
    consumer: string,
  ): Promise<StreamAdd | undefined> {
    return this.#guard.run("streamAdd", async () =>
      this.#streams.add(key, value, maxWaiting, consumer),
    );
  }

  streamTake(key: string, consumer: string, count: number): Promise<StreamEntry[]> {
    return this.#guard.run("streamTake", async () => this.#streams.take(key, consumer, count));
  }

  streamTakeOver(
    key: string,
    consumer: string,
    minIdleMs: number,
    count: number,
  ): Promise<{ entries: StreamEntry[]; quiet: boolean }> {
    return this.#guard.run("streamTakeOver", async () =>
      this.#streams.takeOver(key, consumer, minIdleMs, count),
    );
  }

  streamHold(key: string, consumer: string, ids: readonly string[]): Promise<string[]> {
    return this.#guard.run("streamHold", async () => this.#streams.hold(key, consumer, ids));
  }

  streamFinish(key: string, consumer: string, id: string): Promise<boolean> {
    return this.#guard.run("streamFinish", async () => this.#streams.finish(key, consumer, id));
  }

  streamAbandon(key: string, consumer: string): Promise<StreamEntry[]> {
    return this.#guard.run("streamAbandon", async () => this.#streams.abandon(key, consumer));
  }

  publish(topic: string, message: string): Promise<number> {
    return this.#guard.run("publish", async () => this.#topics.publish(topic, message));
  }

  async subscribe(topic: string, onMessage: (message: string) => void): Promise<() => void> {
    return this.#topics.subscribe(topic, onMessage);
  }

  async processesAlive(ids: readonly string[]): Promise<boolean[]> {
    return ids.map((id) => id === this.#processId);
  }

  streamWaiting(key: string): Promise<number> {
    return this.#guard.run("streamWaiting", async () => this.#streams.waiting(key));
  }

  streamPlaces(key: string): Promise<string[]> {
    return this.#guard.run("streamPlaces", async () => this.#streams.places(key));
  }

  ping(): Promise<void> {
    return this.#guard.run("ping", async () => {
      await this.#db.get("ping");
    });
  }

  /**
   * A map without a TTL keeps each field under a key of its own, and the list of its fields
   * under another (fieldKey, indexKey): a change writes only the fields it changes, however
   * many the map holds (the journal's map of a process holds every answer it streams). A map
   * with a TTL (putInMap), or one an earlier version wrote, is one value under the map's own
   * key; it is read as well, and one without a TTL moves to fields at its next change.
   */
  async #entries<T>(key: string): Promise<Record<string, T>> {
    const map = await this.#mapFields(key);
    const fields = [...map.fields];
    const [values, whole] = await Promise.all([
      fields.length === 0 ? [] : this.#keyv.getMany<T>(fields.map((f) => fieldKey(key, f))),
      map.whole ? this.#wholeMap<T>(key) : {},
    ]);
    const entries: Record<string, T> = { ...whole };
    fields.forEach((field, i) => {
      const value = values[i];
      if (value !== undefined) entries[field] = value;
    });
    return entries;
  }

  /** What this process knows of map `key`'s fields, read from the store the first time. */
  #mapFields(key: string): Promise<MapFields> {
    let known = this.#maps.get(key);
    if (!known) {
      known = this.#readMapFields(key);
      // A failed read is tried again next time.
      known.catch(() => this.#maps.delete(key));
      this.#maps.set(key, known);
    }
    return known;
  }

  async #readMapFields(key: string): Promise<MapFields> {
    const [index, value] = await this.#keyv.getMany<unknown>([indexKey(key), key]);
    return {
      fields: new Set(
        Array.isArray(index) ? index.filter((f): f is string => typeof f === "string") : [],
      ),
      whole: typeof value === "object" && value !== null && !Array.isArray(value),
    };
  }

  /** A map kept as one object under its key (one with a TTL, or an earlier version's). */
  async #wholeMap<T>(key: string): Promise<Record<string, T>> {
    const value = await this.#keyv.get<unknown>(key);
    const isMap = typeof value === "object" && value !== null && !Array.isArray(value);
    return isMap ? (value as Record<string, T>) : {};
  }

  /**
   * Writes `put`'s fields and deletes `remove`'s (the list of fields only when it changes).
   * Called under the map's lock; a failed write has the map read from disk again next time.
   */
  async #changeMap(
    key: string,
    put: Readonly<Record<string, unknown>>,
    remove: readonly string[],
  ): Promise<void> {
    const map = await this.#mapFields(key);
    const whole = map.whole ? await this.#wholeMap(key) : {};
    const moved = map.whole;
    map.whole = false;
    const { fields } = map;
    const size = fields.size;
    const writes = { ...whole, ...put };
    for (const field of remove) delete writes[field];
    for (const field of Object.keys(writes)) fields.add(field);
    for (const field of remove) fields.delete(field);
    const listChanged = moved || fields.size !== size || remove.length > 0;
    const entries = Object.entries(writes);
    try {
      await Promise.all([
        entries.length === 0
          ? undefined
          : this.#keyv.setMany(
              entries.map(([field, value]) => ({ key: fieldKey(key, field), value })),
            ),
        remove.length === 0
          ? undefined
          : this.#keyv.deleteMany(remove.map((f) => fieldKey(key, f))),
        moved ? this.#keyv.delete(key) : undefined,
        !listChanged
          ? undefined
          : fields.size === 0
            ? this.#keyv.delete(indexKey(key))
            : this.#keyv.set(indexKey(key), [...fields]),
      ]);
    } catch (error) {
      this.#maps.delete(key);
      throw error;
    }
    // A map that ends empty is no longer known: this process touches many that it empties.
    if (fields.size === 0) this.#maps.delete(key);
  }

  /**
   * A map's fields and their list go (it is one value now, or no key at all): how many. Any
   * key may be deleted: one that is not a known map is not remembered as one.
   */
  async #dropFields(key: string): Promise<number> {
    const known = this.#maps.get(key);
    this.#maps.delete(key);
    const fields = [...(await (known ?? this.#readMapFields(key))).fields];
    if (fields.length > 0) {
      await this.#keyv.deleteMany([...fields.map((f) => fieldKey(key, f)), indexKey(key)]);
    }
    return fields.length;
  }

  /** A set is kept as one array of its members: the mutex makes each change atomic. */
  async #members(key: string): Promise<string[]> {
    const value = await this.#keyv.get<unknown>(key);
    return Array.isArray(value) ? value.filter((m): m is string => typeof m === "string") : [];
  }

  /** Deletes expired entries now (the timer does it every `sweepIntervalMs`); returns how many. */
  sweep(): Promise<number> {
    return this.#guard.run("sweep", () => this.#adapter.sweep());
  }

  close(): Promise<void> {
    clearInterval(this.#sweepTimer);
    // The guard waits for operations in flight, a running sweep included.
    return this.#guard.close(() => this.#db.close());
  }
}

/**
 * A map's fields as this process knows them; `whole`: its key may hold the map as one value
 * (one with a TTL, or an earlier version's).
 */
interface MapFields {
  fields: Set<string>;
  whole: boolean;
}

/** Where a map's list of fields is, and each field (see EmbeddedStore.#entries). */
const indexKey = (key: string) => `${key}\u0001`;
const fieldKey = (key: string, field: string) => `${key}\u0000${field}`;

function describeOpenError(dataDir: string, error: unknown): Error {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  if (cause?.code === "LEVEL_LOCKED") {
    // The embedded store is one process's: say the ways on, a second bot or an export run
    // against a running one being the usual cause.
    return new Error(
      `DATA_DIR ${dataDir} is in use by another process (a running bot?): stop it, set another DATA_DIR, or share a Redis with STORE_URL`,
      { cause: error },
    );
  }
  return new Error(`cannot open DATA_DIR ${dataDir}: ${messageOf(error)}`, { cause: error });
}
