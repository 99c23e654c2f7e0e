import { cpuUsage } from "node:process";

/**
 * The work of the longest turn of the event loop while it runs: how much CPU time the process
 * spent between two looks of a timer that looks every millisecond. A turn that does a second
 * of work blocks the loop for at least that long; a busy machine that leaves the process
 * waiting for a core makes the turn take longer, but not do more work, so a bound on this
 * holds wherever the tests run, where one on the loop's delay does not.
 */
export class TurnWork {
  #timer: NodeJS.Timeout | undefined;
  #last = cpuUsage();
  #most = 0;

  start(): this {
    this.#last = cpuUsage();
    const look = () => {
      const spent = cpuUsage(this.#last);
      this.#most = Math.max(this.#most, (spent.user + spent.system) / 1_000);
      this.#last = cpuUsage();
      this.#timer = setTimeout(look, 1);
    };
    this.#timer = setTimeout(look, 1);
    return this;
  }

  /** Stops looking; the most CPU ms one stretch between two looks took. */
  stop(): number {
    clearTimeout(this.#timer);
    const spent = cpuUsage(this.#last);
    return Math.max(this.#most, (spent.user + spent.system) / 1_000);
  }
}

/** Runs `run` (synchronous: one turn's work) and gives its result with the CPU ms it took. */
export function cpuTimed<T>(run: () => T): { result: T; ms: number } {
  const before = cpuUsage();
  const result = run();
  const spent = cpuUsage(before);
  return { result, ms: (spent.user + spent.system) / 1_000 };
}
