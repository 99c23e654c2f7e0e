import { createHistogram } from "node:perf_hooks";
import { Gauge, type Registry } from "prom-client";

/** How often the monitor looks while it runs: prom-client's default period. */
export const LOOP_DELAY_RESOLUTION_MS = 10;

/**
 * prom-client's default event-loop delay figures, by their names. Their monitor (a timer
 * every 10 ms for the life of the process) cannot be paused; these are measured here instead.
 */
const FIGURES = {
  nodejs_eventloop_lag_min_seconds: ["The minimum recorded event loop delay.", "min"],
  nodejs_eventloop_lag_max_seconds: ["The maximum recorded event loop delay.", "max"],
  nodejs_eventloop_lag_mean_seconds: ["The mean of the recorded event loop delays.", "mean"],
  nodejs_eventloop_lag_stddev_seconds: [
    "The standard deviation of the recorded event loop delays.",
    "stddev",
  ],
  nodejs_eventloop_lag_p50_seconds: ["The 50th percentile of the recorded event loop delays.", 50],
  nodejs_eventloop_lag_p90_seconds: ["The 90th percentile of the recorded event loop delays.", 90],
  nodejs_eventloop_lag_p99_seconds: ["The 99th percentile of the recorded event loop delays.", 99],
} as const;

type Figure = (typeof FIGURES)[keyof typeof FIGURES][1];

export const LOOP_DELAY_METRICS = Object.keys(FIGURES);

/**
 * The event loop's delay, under prom-client's names and with their meaning (each sample is
 * the time between two looks, the 10 ms period included), measured only while there is work
 * (`running`): the monitor wakes the process a hundred times a second, which was most of
 * what a bot nobody talks to cost. A scrape reads the samples since the one before; with
 * none (no work meanwhile), the figures are those of a loop that ran on time.
 */
export class LoopDelay {
  readonly #samples = createHistogram();
  #timer: NodeJS.Timeout | undefined;
  #last = 0n;

  constructor(registry: Registry) {
    const gauges: [Gauge, Figure][] = [];
    const collect = () => {
      for (const [gauge, figure] of gauges) gauge.set(this.#figure(figure) / 1e9);
      this.#samples.reset();
    };
    for (const [name, [help, figure]] of Object.entries(FIGURES)) {
      // The first gauge read at a scrape sets them all, and starts the next window.
      const first = gauges.length === 0;
      gauges.push([
        new Gauge({ name, help, registers: [registry], ...(first && { collect }) }),
        figure,
      ]);
    }
  }

  /** Starts looking (work began); a second start changes nothing. */
  start(): void {
    if (this.#timer) return;
    this.#last = process.hrtime.bigint();
    // A timer of our own, not perf_hooks.monitorEventLoopDelay: that one, enabled again after
    // a pause, records the whole pause as one delay.
    this.#timer = setInterval(() => {
      const now = process.hrtime.bigint();
      this.#samples.record(now - this.#last);
      this.#last = now;
    }, LOOP_DELAY_RESOLUTION_MS).unref();
  }

  /** Stops looking (no work left). */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One figure of the samples, in ns. */
  #figure(figure: Figure): number {
    const samples = this.#samples;
    if (samples.count === 0) return figure === "stddev" ? 0 : LOOP_DELAY_RESOLUTION_MS * 1e6;
    if (typeof figure === "number") return samples.percentile(figure);
    return samples[figure];
  }
}
