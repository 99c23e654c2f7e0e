import { StoreUnavailableError } from "../errors.ts";

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
  readonly #inFlight = new Set<Promise<unknown>>();
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

  run<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    if (this.#closed) {
      return Promise.reject(new StoreUnavailableError(operation, new Error("the store is closed")));
    }
    const result = this.#withDeadline(operation, fn);
    this.#inFlight.add(result);
    const forget = () => this.#inFlight.delete(result);
    result.then(forget, forget);
    return result;
  }

  /** Refuses new operations, waits for those in flight (each has a deadline), then runs `release`. */
  async close(release: () => Promise<void>): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#inFlight]);
    await release();
  }

  async #withDeadline<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await withDeadline(fn(), this.#timeoutMs, () => new DeadlineError(this.#timeoutMs));
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      // Described first: describing may be how the store learns of the outage.
      const cause = this.#describe(error);
      throw new StoreUnavailableError(operation, cause, { duringOutage: this.#duringOutage() });
    }
  }
}

/** `work`, or `onTimeout()`'s error once `ms` have passed without it settling. */
export async function withDeadline<T>(
  work: Promise<T>,
  ms: number,
  onTimeout: () => Error,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    // Timers run before I/O in each turn of the event loop: after a busy spell, a deadline
    // would fire ahead of an answer that is already in. setImmediate runs after the I/O, so
    // only a store that really did not answer fails.
    timer = setTimeout(() => setImmediate(() => reject(onTimeout())), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
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

/** Rejects with RangeError for a TTL that is not a positive finite number: a caller bug, not an outage. */
export function checkTtl(ttlMs: number | undefined): number | undefined {
  if (ttlMs === undefined) return undefined;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`ttlMs must be a positive number of milliseconds, got ${ttlMs}`);
  }
  // Redis PX takes whole milliseconds; rounding up never shortens a lease.
  return Math.ceil(ttlMs);
}
