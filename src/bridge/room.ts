import type { Metrics } from "../metrics.ts";

/** One answer's room under MAX_ACTIVE_ANSWERS, held from its start to its end. */
export interface Slot {
  /** The answer ended: its room is free for the next. Once; later calls do nothing. */
  free(): void;
}

/**
 * How many answers this process streams at once: at most `maxActive` (MAX_ACTIVE_ANSWERS).
 * Only a question whose thread's turn came takes a slot, and only to answer at once: one that
 * finds none goes to the deployment's queue (src/coordination/shared-queue.ts), which takes
 * it back as soon as a slot frees, here or in any other process. So a slot is never held by a
 * question that waits for anything, and the cap cannot wedge (docs/architecture.md, "A question's life").
 */
export class Room {
  readonly #maxActive: number;
  readonly #metrics: Metrics | undefined;
  readonly #onFree: (() => void)[] = [];
  #active = 0;

  constructor(maxActive: number, metrics?: Metrics) {
    this.#maxActive = maxActive;
    this.#metrics = metrics;
  }

  /** Answers streaming now. */
  get active(): number {
    return this.#active;
  }

  /** Slots free now. */
  get free(): number {
    return Math.max(0, this.#maxActive - this.#active);
  }

  /** A slot, if one is free now. */
  take(): Slot | undefined {
    return this.#active >= this.#maxActive ? undefined : this.#slot();
  }

  #slot(): Slot {
    this.#active += 1;
    this.#metrics?.activeAnswers.inc();
    let freed = false;
    return {
      free: () => {
        if (freed) return;
        freed = true;
        this.#active -= 1;
        this.#metrics?.activeAnswers.dec();
        for (const listener of this.#onFree) listener();
      },
    };
  }

  /**
   * A slot past the cap, for a question no other process could answer (the terminal's): one
   * person's questions, one at a time, never an overload.
   */
  beyondCap(): Slot {
    return this.#slot();
  }

  /** Calls `listener` each time a slot frees. */
  onFree(listener: () => void): void {
    this.#onFree.push(listener);
  }
}
