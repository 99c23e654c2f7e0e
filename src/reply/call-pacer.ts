import { setTimeout as sleep } from "node:timers/promises";
import type { CallBudget } from "../ports.ts";

const ENDED = { reason: "the answer ended" };

/** Which line of a shared budget a call waits in (see CallBudget.acquire). */
export interface Turn {
  first: boolean;
  urgent: boolean;
}

/** What the pacer asks the answer again each time it looks at the clock. */
export interface TurnState {
  /** The answer's first text is due: it waits for no interval. */
  first(): boolean;
  /** The answer is over and its last call is no edit (a stream's end, a draft sent). */
  endsWithoutEdit(): boolean;
  ended(): boolean;
}

/**
 * When one answer's next call may go: no sooner than the surface's edit interval after the
 * last one, nor while a 429's wait runs, and only with a token of the shared budget it draws
 * on. The answer's end cuts both waits short, since its last call may need neither.
 */
export class CallPacer {
  readonly #minIntervalMs: number;
  #lastCallAt = Number.NEGATIVE_INFINITY;
  #pausedUntil = 0;
  /** Ends the wait for the edit interval early (the answer ended meanwhile). */
  #cutWait: (() => void) | undefined;
  /** Aborted when the answer ends: one per answer, made only if a call waits for a budget. */
  #ended: AbortController | undefined;
  #cut = false;

  constructor(minIntervalMs: number) {
    this.#minIntervalMs = minIntervalMs;
  }

  /** A call was made (or failed) now: the interval counts from here. */
  called(): void {
    this.#lastCallAt = performance.now();
  }

  /** The platform said to wait `ms`. */
  pause(ms: number): void {
    this.#pausedUntil = performance.now() + ms;
  }

  get paused(): boolean {
    return performance.now() < this.#pausedUntil;
  }

  /** The answer ended: waits for an interval or a routine token end now. */
  cut(): void {
    this.#cut = true;
    // A reason of its own: aborting with none would make (and throw away) an exception.
    this.#ended?.abort(ENDED);
    this.#cutWait?.();
  }

  /**
   * Waits out a rate-limit pause and the edit interval (the first text and an end that is no
   * edit wait for no interval). Says how the coming call queues for a shared budget.
   */
  async turn(state: TurnState): Promise<Turn> {
    for (;;) {
      // The first text goes out at once, unless a failed call asks for a pause first.
      const first = state.first();
      const intervalEnd =
        first || state.endsWithoutEdit() ? 0 : this.#lastCallAt + this.#minIntervalMs;
      const wait = Math.max(this.#pausedUntil, intervalEnd) - performance.now();
      // Timers fire on whole milliseconds: round up so the call never lands early. The end
      // of the answer cuts the wait short: its call may need none.
      if (wait <= 0 || !(await this.#sleepUnlessCut(Math.ceil(wait) + 1, state.ended()))) {
        return { first, urgent: first || state.ended() };
      }
    }
  }

  /**
   * Takes the budget's token for the next call. False when the answer ended meanwhile: its
   * last text is urgent, and may go by another method (a stream's end), so the token is asked
   * for again rather than waited for behind the other answers' edits.
   */
  async acquire(budget: CallBudget | undefined, turn: Turn, final: boolean): Promise<boolean> {
    if (!budget) return true;
    const { first } = turn;
    const urgent = turn.urgent || final;
    if (final) {
      await budget.acquire({ first, urgent });
      return true;
    }
    if (this.#cut) return false;
    this.#ended ??= new AbortController();
    try {
      await budget.acquire({ first, urgent, signal: this.#ended.signal });
      return true;
    } catch (error) {
      if (error === ENDED) return false;
      throw error;
    }
  }

  /** Sleeps `ms`; true when cut() cut the sleep short. */
  #sleepUnlessCut(ms: number, ended: boolean): Promise<boolean> {
    if (ended) return sleep(ms).then(() => false);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.#cutWait = undefined;
        resolve(false);
      }, ms);
      this.#cutWait = () => {
        clearTimeout(timer);
        this.#cutWait = undefined;
        resolve(true);
      };
    });
  }
}
