import { Writable } from "node:stream";
import { logEntries } from "../support/run-bot.ts";

/**
 * A bot's log stream (its stderr) that counts the JSON lines saying `msg`, and wakes whoever
 * waits for the nth as it is written. Lines of level warn and up are kept for the report.
 */
export class LogCount {
  readonly problems: string[] = [];
  readonly stream: Writable;
  #count = 0;
  readonly #waiting = new Map<number, () => void>();

  constructor(msg: string) {
    this.stream = new Writable({
      write: (chunk: Buffer | string, _encoding, done) => {
        for (const entry of logEntries(String(chunk))) {
          if (entry.level >= WARN) this.problems.push(String(entry.msg));
          if (entry.msg !== msg) continue;
          this.#count += 1;
          this.#waiting.get(this.#count)?.();
        }
        done();
      },
    });
  }

  /** Lines saying `msg` so far. */
  get count(): number {
    return this.#count;
  }

  /** Resolves once the nth line has been written; rejects after `timeoutMs`. */
  nth(n: number, timeoutMs: number): Promise<void> {
    if (this.#count >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(n);
        reject(
          new Error(`line ${n} not written within ${timeoutMs} ms; ${this.problems[0] ?? ""}`),
        );
      }, timeoutMs);
      this.#waiting.set(n, () => {
        clearTimeout(timer);
        this.#waiting.delete(n);
        resolve();
      });
    });
  }
}

/** pino's level number of warn. */
const WARN = 40;
