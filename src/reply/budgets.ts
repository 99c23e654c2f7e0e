import type { KeyValueStore } from "../store/types.ts";
import type { Budget, RateBudgetOptions } from "./call-budget.ts";
import { createRateBudget } from "./shared-budget.ts";

// How many new keys between two sweeps for idle budgets.
const SWEEP_EVERY = 1_000;

/**
 * One budget per key (a workspace id, a chat id), made on first use; with `shared`, each is
 * drawn from the store under `<prefix>:<key>` (see createRateBudget). Budgets that are full
 * and unused are dropped from time to time, so a bot that met a million chats does not keep
 * a million buckets; a dropped one is made anew, full, which is what it was.
 */
export class RateBudgets {
  readonly #budgets = new Map<string, Budget>();
  readonly #shared: { store: KeyValueStore; prefix: string } | undefined;
  #created = 0;

  constructor(
    readonly options: RateBudgetOptions,
    shared?: { store: KeyValueStore; prefix: string },
  ) {
    this.#shared = shared;
  }

  for(key: string): Budget {
    let budget = this.#budgets.get(key);
    if (!budget) {
      if (++this.#created % SWEEP_EVERY === 0) this.#sweep();
      const shared = this.#shared;
      budget = createRateBudget(
        this.options,
        shared && { store: shared.store, key: `${shared.prefix}:${key}` },
      );
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
