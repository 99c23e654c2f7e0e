import type { ClassicLevel } from "classic-level";

export type LevelWrite = { type: "put"; key: string; value: string } | { type: "del"; key: string };

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

/**
 * LevelDB reads and writes grouped while the disk is busy: the first goes at once; those
 * that come while it runs go together as one `getMany` or one `batch` when it is done. Each
 * call into the database is a trip to libuv's thread pool and back; under load this makes
 * one trip of many, and idle it adds no wait. Writes keep their order: each group is applied
 * in the order its writes came, and LevelDB applies a batch whole (one record in its log),
 * so every write is on disk (handed to the OS) before its promise resolves, as one by one.
 */
export class LevelBatcher {
  readonly #db: ClassicLevel<string, string>;
  readonly #writeOptions: { sync: boolean };
  #reads:
    | { keys: string[]; waiters: Waiter<(string | undefined)[]>[]; counts: number[] }
    | undefined;
  #reading = false;
  #writes: { ops: LevelWrite[]; waiters: Waiter<void>[] } | undefined;
  #writing = false;

  constructor(db: ClassicLevel<string, string>, writeOptions: { sync: boolean }) {
    this.#db = db;
    this.#writeOptions = writeOptions;
  }

  /** The values of `keys`, in their order; undefined for a missing key. */
  read(keys: readonly string[]): Promise<(string | undefined)[]> {
    return new Promise((resolve, reject) => {
      this.#reads ??= { keys: [], waiters: [], counts: [] };
      this.#reads.keys.push(...keys);
      this.#reads.counts.push(keys.length);
      this.#reads.waiters.push({ resolve, reject });
      if (!this.#reading) this.#flushReads();
    });
  }

  write(ops: readonly LevelWrite[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#writes ??= { ops: [], waiters: [] };
      this.#writes.ops.push(...ops);
      this.#writes.waiters.push({ resolve, reject });
      if (!this.#writing) this.#flushWrites();
    });
  }

  #flushReads(): void {
    const group = this.#reads;
    this.#reads = undefined;
    if (!group) return;
    this.#reading = true;
    this.#db.getMany(group.keys).then(
      (values) => {
        let at = 0;
        group.waiters.forEach((waiter, i) => {
          const count = group.counts[i] ?? 0;
          waiter.resolve(values.slice(at, at + count));
          at += count;
        });
        this.#readsDone();
      },
      (error: unknown) => {
        for (const waiter of group.waiters) waiter.reject(error);
        this.#readsDone();
      },
    );
  }

  #readsDone(): void {
    this.#reading = false;
    this.#flushReads();
  }

  #flushWrites(): void {
    const group = this.#writes;
    this.#writes = undefined;
    if (!group) return;
    this.#writing = true;
    this.#db.batch(group.ops, this.#writeOptions).then(
      () => {
        for (const waiter of group.waiters) waiter.resolve();
        this.#writesDone();
      },
      (error: unknown) => {
        for (const waiter of group.waiters) waiter.reject(error);
        this.#writesDone();
      },
    );
  }

  #writesDone(): void {
    this.#writing = false;
    this.#flushWrites();
  }
}
