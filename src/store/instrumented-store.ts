import type { Metrics } from "../metrics.ts";
import type { Store } from "./types.ts";

/** A store operation's name: a method of Store. */
export type StoreOperation = {
  [K in keyof Store]: Store[K] extends (...args: never[]) => unknown ? K : never;
}[keyof Store];

/**
 * `store` with every operation run through `around` (its name, and the call to make), the same
 * for every operation there is: a new one of the ports is intercepted without a change here.
 * The connection's life (close) and a subscription's (subscribe) go straight through.
 */
export function interceptStore(
  store: Store,
  around: <T>(operation: StoreOperation, run: () => Promise<T>) => Promise<T>,
): Store {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || property === "close" || property === "subscribe") {
        return typeof value === "function" ? value.bind(target) : value;
      }
      let call = wrapped.get(property);
      if (!call) {
        const operation = property as StoreOperation;
        call = (...args: unknown[]) =>
          around(operation, () =>
            (value as (...a: unknown[]) => Promise<unknown>).apply(target, args),
          );
        wrapped.set(property, call);
      }
      return call;
    },
  });
}

/** The store with every operation timed and every failure counted in the process metrics. */
export function instrumentStore(store: Store, metrics: Metrics): Store {
  return interceptStore(store, <T>(operation: StoreOperation, run: () => Promise<T>) => {
    // No async frame: a store call is on every message's path, many times over.
    const stop = metrics.storeSeconds.startTimer({ operation });
    let work: Promise<T>;
    try {
      work = run();
    } catch (error) {
      work = Promise.reject(error);
    }
    return work.then(
      (value) => {
        stop();
        return value;
      },
      (error: unknown) => {
        stop();
        metrics.storeErrors.inc();
        throw error;
      },
    );
  });
}
