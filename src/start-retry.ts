import type { Logger } from "./log.ts";
import { withRetry } from "./retry.ts";

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
  /** The process is stopping: no more waiting to try again. */
  signal?: AbortSignal | undefined;
}

/** Calls at start before giving up, about 1, 2, 4 and 8 s apart: a 15-second outage. */
export const START_ATTEMPTS = 5;

/**
 * A platform call at start-up, tried again while the platform's trouble is passing, so a
 * brief outage does not end the process (and every other channel with it) in a crash loop.
 * An answer that says "never" (a wrong token) fails at once: no retry changes it. A platform
 * that asks for more than a minute's wait, or a stop signal, ends the tries.
 */
export function retryAtStart<T>(call: () => Promise<T>, options: StartRetryOptions): Promise<T> {
  return withRetry(
    {
      attempts: options.attempts,
      baseDelayMs: 1_000,
      maxDelayMs: 8_000,
      maxRetryAfterMs: 60_000,
      onRetry: ({ attempt, delayMs, error }) =>
        options.log.warn(
          { err: error, attempt, waitMs: delayMs },
          `${options.what} failed; retrying`,
        ),
    },
    { retryable: options.isPassing, retryAfterMs: options.retryAfterMs, signal: options.signal },
    call,
  );
}
