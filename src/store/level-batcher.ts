import type { ClassicLevel } from "classic-level";

export type LevelWrite = { type: "put"; key: string; value: string } | { type: "del"; key: string };

/**
 * LevelDB reads at once and writes grouped while the disk is busy. A read is done on this
 * thread (`getSync`): a lookup in LevelDB's memory table and block cache, or in the OS's page
 * cache, costs a few µs, where a trip to libuv's thread pool and back costs ~35 µs of CPU and
 * two thread switches (a key nobody read since the process started may cost a disk read, as
 * it would in the thread pool, while this thread waits). A write goes to the thread pool: the
 * first at once, those that come while it runs together as one `batch` when it is done, so
 * under load one trip serves many and idle it adds no wait. Writes keep their order: each
 * group is applied in the order its writes came, and LevelDB applies a batch whole (one
 * record in its log), so every write is on disk (handed to the OS) before its promise
 * resolves, as one by one.
 */
export class LevelBatcher {
  readonly #db: ClassicLevel<string, string>;
  readonly #writes: Grouped<LevelWrite>;

  constructor(db: ClassicLevel<string, string>, writeOptions: { sync: boolean }) {
    this.#db = db;
    this.#writes = new Grouped((writes) => db.batch(writes, writeOptions));
  }

  /** The values of `keys`, in their order; undefined for a missing key. */
  read(keys: readonly string[]): Promise<(string | undefined)[]> {
    try {
      return Promise.resolve(keys.map((key) => this.#db.getSync(key)));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  write(ops: readonly LevelWrite[]): Promise<void> {
    return this.#writes.add(ops);
  }
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

/** Calls that come while one runs, made together as one call when it is done. */
class Grouped<T> {
  /** Makes one call for all the items of the calls grouped, in their order. */
  readonly #call: (items: T[]) => Promise<void>;
  #parts: (readonly T[])[] = [];
  #waiters: Waiter[] = [];
  #busy = false;

  constructor(call: (items: T[]) => Promise<void>) {
    this.#call = call;
  }

  add(part: readonly T[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#parts.push(part);
      this.#waiters.push({ resolve, reject });
      if (!this.#busy) this.#next();
    });
  }

  #next(): void {
    if (this.#parts.length === 0) return;
    const parts = this.#parts;
    const waiters = this.#waiters;
    this.#parts = [];
    this.#waiters = [];
    this.#busy = true;
    const done = () => {
      this.#busy = false;
      this.#next();
    };
    this.#call(parts.flat()).then(
      () => {
        for (const waiter of waiters) waiter.resolve();
        done();
      },
      (error: unknown) => {
        for (const waiter of waiters) waiter.reject(error);
        done();
      },
    );
  }
}
