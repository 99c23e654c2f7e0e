import type { Api } from "grammy";
import { BridgeError } from "../../src/errors.ts";

/**
 * The Bot API answered `ok: false`. Carries the method and Telegram's own code and text,
 * never the URL (it holds the bot token) or the payload (it holds people's text).
 */
export class TelegramApiError extends BridgeError {
  readonly code = "TELEGRAM_API";
  constructor(
    readonly method: string,
    readonly errorCode: number,
    readonly description: string,
    /** `parameters.retry_after` of a 429, in seconds. */
    readonly retryAfterSeconds?: number,
  ) {
    super(`Telegram ${method}: ${errorCode} ${description}`, {
      userText: {
        key: "errorTelegramRefused",
        values: { error: `${errorCode}: ${description}` },
      },
    });
  }
}

/**
 * A Bot API call failed on the way (connection refused, timeout, a body that is not JSON).
 * grammY's HttpError keeps the failed fetch error, whose message holds the request URL with
 * the bot token in it; this error keeps only the error's code, so it can be logged as is.
 */
export class TelegramNetworkError extends BridgeError {
  readonly code = "TELEGRAM_NETWORK";
  constructor(
    readonly method: string,
    readonly reason: string,
  ) {
    super(`Telegram ${method}: network request failed (${reason})`, {
      userText: { key: "errorTelegramUnreachable" },
    });
  }
}

/**
 * Installs the one transformer every Bot API call goes through: API errors and network
 * failures become the errors above, so no error object leaving grammY holds the token.
 */
export function installErrorBoundary(api: Api): void {
  api.config.use(async (prev, method, payload, signal) => {
    let response: Awaited<ReturnType<typeof prev>>;
    try {
      response = await prev(method, payload, signal);
    } catch (error) {
      throw new TelegramNetworkError(method, reasonOf(error));
    }
    if (!response.ok) {
      throw new TelegramApiError(
        method,
        response.error_code,
        response.description,
        response.parameters?.retry_after,
      );
    }
    return response;
  });
}

/** A short, secret-free name for why a call failed: `ECONNREFUSED`, `AbortError`, `timeout`. */
function reasonOf(error: unknown): string {
  const inner = (error as { error?: unknown } | undefined)?.error ?? error;
  if (typeof inner !== "object" || inner === null) return "unknown";
  const { code, type, name, message } = inner as Record<string, unknown>;
  // undici's timers on the calls an answer makes itself (lean-calls.ts).
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") return "timeout";
  if (typeof code === "string") return code;
  if (typeof message === "string" && /timed out/i.test(message) && !message.includes("/"))
    return "timeout";
  if (typeof type === "string" && type !== "system") return type;
  return typeof name === "string" ? name : "unknown";
}

const apiError = (error: unknown, code: number, pattern: RegExp): boolean =>
  error instanceof TelegramApiError && error.errorCode === code && pattern.test(error.description);

/** "Bad Request: message is not modified": the message already shows this text. */
export const isNotModified = (error: unknown) => apiError(error, 400, /message is not modified/i);

/** The message to edit is gone (a person deleted it) or can no longer be edited. */
export const isMessageGone = (error: unknown) =>
  apiError(error, 400, /message to edit not found|message can't be edited|MESSAGE_ID_INVALID/i);

/**
 * "Bad Request: can't parse entities: …" (an HTML message) or "can't parse rich message: …":
 * the markup was not accepted.
 */
export const isParseError = (error: unknown) =>
  apiError(error, 400, /can't parse (entities|rich message)/i);

/** "Conflict": another getUpdates poller, or a webhook is set. */
export const isConflict = (error: unknown) =>
  error instanceof TelegramApiError && error.errorCode === 409;

/** Milliseconds a 429 says to wait, or undefined for any other error. */
export function retryAfterMs(error: unknown): number | undefined {
  if (!(error instanceof TelegramApiError) || error.errorCode !== 429) return undefined;
  const seconds =
    error.retryAfterSeconds ?? Number(/retry after (\d+)/i.exec(error.description)?.[1] ?? 1);
  return Math.max(0, seconds * 1000);
}
