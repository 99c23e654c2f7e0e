import type { Budget } from "./call-budget.ts";

// How many new keys between two sweeps for idle budgets.
const SWEEP_EVERY = 1_000;

/**
 * One budget per key (a workspace id, a chat id), made by `make` on first use. Budgets that
 * are full and unused are dropped from time to time, so a bot that met a million chats does
 * not keep a million buckets; a dropped one is made anew, full, which is what it was.
 */
export class RateBudgets {
  readonly #budgets = new Map<string, Budget>();
  readonly #make: (key: string) => Budget;
  #created = 0;

  constructor(make: (key: string) => Budget) {
    this.#make = make;
  }

  for(key: string): Budget {
    let budget = this.#budgets.get(key);
    if (!budget) {
      if (++this.#created % SWEEP_EVERY === 0) this.#sweep();
      budget = this.#make(key);
      this.#budgets.set(key, budget);
    }
    return budget;
  }

  get size(): number {
    return this.#budgets.size;
  }

  #sweep(): void {
    for (const [key, budget] of this.#budgets) if (budget.idle) this.#budgets.delete(key);
  }
}
