import { createHistogram } from "node:perf_hooks";

/**
 * Event-loop delay over a run: how late a timer due every `resolutionMs` actually runs, as
 * perf_hooks.monitorEventLoopDelay measures it, but with pauses. A pause (around a forced
 * GC the bench itself causes) leaves that stretch out, which the built-in monitor cannot:
 * its histogram counts the stretch across disable/enable and cannot be merged.
 */
export class LoopDelayMonitor {
  readonly #resolutionMs: number;
  readonly #histogram = createHistogram();
  #timer: NodeJS.Timeout | undefined;

  constructor(resolutionMs = 2) {
    this.#resolutionMs = resolutionMs;
  }

  resume(): void {
    if (this.#timer) return;
    let due = performance.now() + this.#resolutionMs;
    const tick = () => {
      const now = performance.now();
      // record() takes whole nanoseconds ≥ 1.
      this.#histogram.record(Math.max(1, Math.round((now - due) * 1e6)));
      due = now + this.#resolutionMs;
      this.#timer = setTimeout(tick, this.#resolutionMs);
    };
    this.#timer = setTimeout(tick, this.#resolutionMs);
  }

  pause(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** ms by which the timer ran late: the 99th percentile and the worst. */
  result(): { p99Ms: number; maxMs: number } {
    this.pause();
    return { p99Ms: this.#histogram.percentile(99) / 1e6, maxMs: this.#histogram.max / 1e6 };
  }
}
