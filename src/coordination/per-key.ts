import type { Budget } from "./call-budget.ts";

// How many new keys between two sweeps for idle values.
const SWEEP_EVERY = 1_000;

/**
 * One value per key (a workspace id, a chat id), made by `make` on first use. With `isIdle`,
 * values it calls idle are dropped from time to time, so a bot that met a million chats does
 * not keep a million of them; a dropped one is made anew, which must be what it was.
 */
export class PerKey<T> {
  readonly #values = new Map<string, T>();
  readonly #make: (key: string) => T;
  readonly #isIdle: ((value: T) => boolean) | undefined;
  #created = 0;

  constructor(make: (key: string) => T, isIdle?: (value: T) => boolean) {
    this.#make = make;
    this.#isIdle = isIdle;
  }

  for(key: string): T {
    let value = this.#values.get(key);
    if (value === undefined) {
      if (++this.#created % SWEEP_EVERY === 0) this.#sweep();
      value = this.#make(key);
      this.#values.set(key, value);
    }
    return value;
  }

  get size(): number {
    return this.#values.size;
  }

  #sweep(): void {
    const isIdle = this.#isIdle;
    if (!isIdle) return;
    for (const [key, value] of this.#values) if (isIdle(value)) this.#values.delete(key);
  }
}

/** One budget per key; a budget that is full and unused is dropped and made anew, full. */
export class RateBudgets extends PerKey<Budget> {
  constructor(make: (key: string) => Budget) {
    super(make, (budget) => budget.idle);
  }
}
