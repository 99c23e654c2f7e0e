import { interceptStore, type StoreOperation } from "../../src/store/instrumented-store.ts";
import type { Store } from "../../src/store/types.ts";

/**
 * A store (both ports) that counts calls, each one store round trip (every operation of both
 * stores is one round trip on Redis: a command, a script or a pipeline).
 */
export interface CountingStore {
  readonly store: Store;
  readonly counts: Map<StoreOperation, number>;
  /** Calls so far, ping left out (it serves /healthz). */
  readonly roundTrips: number;
  reset(): void;
}

export function countingStore(inner: Store): CountingStore {
  const counts = new Map<StoreOperation, number>();
  return {
    store: interceptStore(inner, (operation, run) => {
      counts.set(operation, (counts.get(operation) ?? 0) + 1);
      return run();
    }),
    counts,
    get roundTrips() {
      let total = 0;
      for (const [operation, count] of counts) if (operation !== "ping") total += count;
      return total;
    },
    reset: () => counts.clear(),
  };
}
