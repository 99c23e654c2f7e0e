import type { Ttl } from "../coordination/port.ts";
import { StoreUnavailableError } from "../errors.ts";
import { storeCallTrace } from "../tracing.ts";

/**
 * Runs every store operation with a deadline and one error type, and knows what is in
 * flight so `close()` can wait for it. Both stores use it, so "never a hang, never a silent
 * undefined" holds by construction rather than by each method remembering it.
 */
export class OperationGuard {
  readonly #timeoutMs: number;
  /** Turns a library error into a cause a person can read (e.g. "redis 10.0.0.5:6379 is not connected"). */
  readonly #describe: (error: unknown) => Error;
  /** Whether the store has logged an outage that explains a failure now. */
  readonly #duringOutage: () => boolean;
  /** Operations under way, and who waits for them all to settle (close). */
  #inFlight = 0;
  #drained: (() => void) | undefined;
  #closed = false;

  constructor(
    timeoutMs: number,
    options: { describe?: (error: unknown) => Error; duringOutage?: () => boolean } = {},
  ) {
    this.#timeoutMs = timeoutMs;
    this.#describe = options.describe ?? asError;
    this.#duringOutage = options.duringOutage ?? (() => false);
  }

  get closed(): boolean {
    return this.#closed;
  }

  // One promise and one timer per operation, no async frames: a store call is on every
  // message's path, many times over.
  run<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    if (this.#closed) {
      return Promise.reject(new StoreUnavailableError(operation, new Error("the store is closed")));
    }
    this.#inFlight++;
    const traced = storeCallTrace(operation);
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const settle = (failed = false) => {
        settled = true;
        traced?.(failed);
        clearTimeout(timer);
        if (--this.#inFlight === 0) this.#drained?.();
      };
      // Timers run before I/O in each turn of the event loop: after a busy spell, a deadline
      // would fire ahead of an answer that is already in. setImmediate runs after the I/O, so
      // only a store that really did not answer fails.
      const timer = setTimeout(
        () =>
          setImmediate(() => {
            if (settled) return;
            settle(true);
            reject(this.#failure(operation, new DeadlineError(this.#timeoutMs)));
          }),
        this.#timeoutMs,
      );
      let work: Promise<T>;
      try {
        work = fn();
      } catch (error) {
        work = Promise.reject(error);
      }
      work.then(
        (value) => {
          if (settled) return;
          settle();
          resolve(value);
        },
        (error: unknown) => {
          if (settled) return;
          settle(true);
          reject(this.#failure(operation, error));
        },
      );
    });
  }

  /** Refuses new operations, waits for those in flight (each has a deadline), then runs `release`. */
  async close(release: () => Promise<void>): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#inFlight > 0) {
      await new Promise<void>((resolve) => {
        this.#drained = resolve;
      });
    }
    await release();
  }

  #failure(operation: string, error: unknown): StoreUnavailableError {
    if (error instanceof StoreUnavailableError) return error;
    // Described first: describing may be how the store learns of the outage.
    const cause = this.#describe(error);
    return new StoreUnavailableError(operation, cause, { duringOutage: this.#duringOutage() });
  }
}

/** The operation did not settle within the guard's deadline. */
export class DeadlineError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = "DeadlineError";
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * A TTL's milliseconds, kept or not. Rejects with RangeError for a TTL that is not a positive
 * finite number: a caller bug, not an outage.
 */
export function checkTtl(ttl: Ttl | undefined): number | undefined {
  if (ttl === undefined) return undefined;
  const ttlMs = typeof ttl === "number" ? ttl : ttl.keptMs;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`ttlMs must be a positive number of milliseconds, got ${ttlMs}`);
  }
  // Redis PX takes whole milliseconds; rounding up never shortens a lease.
  return Math.ceil(ttlMs);
}

/** Whether the record must outlive memory pressure (see Ttl). */
export function isKept(ttl: Ttl | undefined): boolean {
  return typeof ttl === "object";
}
