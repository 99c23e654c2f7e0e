import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "./log.ts";

export interface StartRetryOptions {
  /** What is called, for the log line: "Telegram getMe", "Slack auth.test". */
  what: string;
  log: Logger;
  /** Calls in all before giving up. */
  attempts: number;
  /** Errors that say "later", not "never": the network, a 429, the platform's own 5xx. */
  isPassing: (error: unknown) => boolean;
  /** The wait the platform asked for (a 429's retry-after), when it gave one. */
  retryAfterMs?: (error: unknown) => number | undefined;
}

/** Calls at start before giving up, with waits of 1, 2, 4 and 8 s: a 15-second outage. */
export const START_ATTEMPTS = 5;

/**
 * A platform call at start-up, tried again while the platform's trouble is passing, so a
 * brief outage does not end the process (and every other channel with it) in a crash loop.
 * An answer that says "never" (a wrong token) fails at once: no retry changes it.
 */
export async function retryAtStart<T>(
  call: () => Promise<T>,
  options: StartRetryOptions,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!options.isPassing(error) || attempt >= options.attempts) throw error;
      const waitMs = options.retryAfterMs?.(error) ?? 1_000 * 2 ** (attempt - 1);
      options.log.warn({ err: error, attempt, waitMs }, `${options.what} failed; retrying`);
      await sleep(waitMs);
    }
  }
}
