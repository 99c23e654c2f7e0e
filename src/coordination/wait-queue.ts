interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export interface WaitOptions {
  /** An answer's first text: served before everything else. */
  first?: boolean;
  /** Served before every routine waiter (a final text, a notice). */
  urgent?: boolean;
  /** Aborting it takes the waiter out of the line and rejects its wait with the reason. */
  signal?: AbortSignal;
}

/** The lines of a budget's callers, most urgent first. */
const LINES = ["first", "urgent", "routine"] as const;
export type Line = (typeof LINES)[number];

export function lineOf(options: WaitOptions): Line {
  if (options.first) return "first";
  return options.urgent ? "urgent" : "routine";
}

/** Callers waiting for a call of a budget: first texts, then urgent calls, then the rest. */
export class WaitQueue {
  readonly #lines: Record<Line, Waiter[]> = { first: [], urgent: [], routine: [] };

  get size(): number {
    return this.#lines.first.length + this.#lines.urgent.length + this.#lines.routine.length;
  }

  /** The line serveNext() serves from; undefined when nobody waits. */
  get nextLine(): Line | undefined {
    return LINES.find((line) => this.#lines[line].length > 0);
  }

  /** Resolves when serveNext() reaches this caller. */
  wait(options: WaitOptions = {}): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const { signal } = options;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const queue = this.#lines[lineOf(options)];
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
    const line = this.nextLine;
    const next = line && this.#lines[line].shift();
    if (!next) return false;
    next.signal?.removeEventListener("abort", next.onAbort);
    next.resolve();
    return true;
  }
}
