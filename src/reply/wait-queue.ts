interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export interface WaitOptions {
  /** Served before every routine waiter. */
  urgent?: boolean;
  /** Aborting it takes the waiter out of the line and rejects its wait with the reason. */
  signal?: AbortSignal;
}

/** Callers waiting for a call of a budget, in order, urgent ones first. */
export class WaitQueue {
  readonly #urgent: Waiter[] = [];
  readonly #routine: Waiter[] = [];

  get size(): number {
    return this.#urgent.length + this.#routine.length;
  }

  /** Resolves when serveNext() reaches this caller. */
  wait(options: WaitOptions = {}): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const { signal } = options;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const queue = options.urgent ? this.#urgent : this.#routine;
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          queue.splice(queue.indexOf(waiter), 1);
          reject(signal?.reason);
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      queue.push(waiter);
    });
  }

  /** Lets the next caller go; false when nobody waits. */
  serveNext(): boolean {
    const next = this.#urgent.shift() ?? this.#routine.shift();
    if (!next) return false;
    next.signal?.removeEventListener("abort", next.onAbort);
    next.resolve();
    return true;
  }
}
