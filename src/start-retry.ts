import { messageOf, StartupError, systemCodeOf } from "./errors.ts";
import type { Logger } from "./log.ts";
import { withRetry } from "./retry.ts";

export interface StartRetryOptions {
  /** What is called, for the log line: "Telegram getMe", "Slack auth.test". */
  what: string;
  /**
   * The setting that points at the platform (SLACK_API_URL, TELEGRAM_API_ROOT): named in the
   * line that stops the start when the platform could not be reached in all the tries.
   */
  address: string;
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

/** The longest wait a platform may ask for that the start sits out. */
const MAX_RETRY_AFTER_MS = 60_000;

/** Calls at start before giving up, about 1, 2, 4 and 8 s apart: a 15-second outage. */
export const START_ATTEMPTS = 5;

/**
 * A platform call at start-up, tried again while the platform's trouble is passing, so a
 * brief outage does not end the process (and every other channel with it) in a crash loop.
 * An answer that says "never" (a wrong token) fails at once: no retry changes it. A platform
 * that asks for more than a minute's wait, or a stop signal, ends the tries.
 */
export async function retryAtStart<T>(
  call: () => Promise<T>,
  options: StartRetryOptions,
): Promise<T> {
  try {
    return await withRetry(
      {
        attempts: options.attempts,
        baseDelayMs: 1_000,
        maxDelayMs: 8_000,
        maxRetryAfterMs: MAX_RETRY_AFTER_MS,
        onRetry: ({ attempt, delayMs, error }) =>
          options.log.warn(
            { reason: reasonOf(error), attempt, waitMs: delayMs },
            `${options.what} failed; retrying`,
          ),
      },
      { retryable: options.isPassing, retryAfterMs: options.retryAfterMs, signal: options.signal },
      call,
    );
  } catch (error) {
    // Still passing trouble after every try: the operator's line, not a crash's stack.
    if (!options.isPassing(error) || options.signal?.aborted) throw error;
    const waitMs = options.retryAfterMs?.(error);
    if (waitMs !== undefined && waitMs > MAX_RETRY_AFTER_MS) {
      throw new StartupError(
        options.address,
        `${options.what} was refused for now: the platform asks to wait ${Math.ceil(waitMs / 1000)} s; start again after that`,
        error,
      );
    }
    const reason = reasonOf(error).replace(`${options.what}: `, "");
    throw new StartupError(
      options.address,
      `${options.what} kept failing: ${reason}. Check this machine's network and, if set, ${options.address}; then start again`,
      error,
    );
  }
}

/** A failure in a few words: the system's code where there is one (ENOTFOUND, ECONNREFUSED). */
function reasonOf(error: unknown): string {
  const message = messageOf(error);
  const code = systemCodeOf(error);
  return code && !message.includes(code) ? `${message}: ${code}` : message;
}
