/**
 * Runs functions one at a time per key, in call order; different keys run concurrently.
 * The embedded store needs it because LevelDB has no compare-and-set: a read followed by a
 * write is only atomic if nobody else touches that key in between, within this process.
 */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key);
    let unlock!: () => void;
    const current = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    const tail = previous ? previous.then(() => current) : current;
    this.#tails.set(key, tail);
    try {
      if (previous) await previous;
      return await fn();
    } finally {
      unlock();
      // Drop the entry when nobody queued behind us, so the map stays as small as the contention.
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
