import type { UserText } from "./i18n/messages.ts";
import { translator } from "./i18n/translator.ts";
import { stripInvisible } from "./reply/invisible-chars.ts";

/**
 * Every failure a caller handles differently has its own class. `message` is for logs and
 * never holds a secret (no URLs with tokens, no headers, no bodies); `userText` names the
 * sentence shown to a person in a chat, said in that person's language; `userMessage` is
 * that sentence in English (or `message` for a failure no person is shown).
 */
export abstract class BridgeError extends Error {
  abstract readonly code: string;
  readonly userText: UserText | undefined;

  constructor(message: string, options: { userText?: UserText; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.userText = options.userText;
  }

  get userMessage(): string {
    return this.userText ? translator("en").text(this.userText) : this.message;
  }
}

/** The backend answered 401: the API key is missing, wrong or deleted. */
export class AuthenticationError extends BridgeError {
  readonly code = "BACKEND_AUTHENTICATION";
  constructor(path: string) {
    super(`backend ${path}: HTTP 401`, {
      userText: { key: "errorApiKey", values: { status: "HTTP 401" } },
    });
  }
}

/** Which chatbot failed, and the variable that named it (CHATBOTS, CHATBOT_BOT_UID…). */
export interface ChatbotSetting {
  name: string;
  variable: string;
}

/** The chatbot when a list named it (CHATBOTS); CHATBOT_BOT_UID names one, which needs no name. */
export function listedChatbot(chatbot?: ChatbotSetting): ChatbotSetting | undefined {
  return chatbot && chatbot.variable !== "CHATBOT_BOT_UID" ? chatbot : undefined;
}

/** How a line for the operator names a chatbot: "the chatbot sales", or "the chatbot" alone. */
export function chatbotInLog(chatbot?: ChatbotSetting): string {
  const listed = listedChatbot(chatbot);
  return listed ? `the chatbot ${listed.name}` : "the chatbot";
}

/**
 * What the operator must fix when the backend refuses the bot's own key or address, as a log
 * line: no person in a chat can fix that. Undefined for every other failure. `chatbot` names
 * the chatbot refused when a list named it.
 */
export function settingProblem(error: unknown, chatbot?: ChatbotSetting): string | undefined {
  const listed = listedChatbot(chatbot);
  const which = chatbotInLog(chatbot);
  if (error instanceof AuthenticationError) {
    return `${which} rejected the API key (HTTP 401): check CHATBOT_API_KEY`;
  }
  if (error instanceof PermissionError) {
    return `${which} refused the chat operation (HTTP 403): streaming chat needs a paid subscription on the chatbot's account`;
  }
  if (error instanceof NotFoundError) {
    const uid = listed ? `the bot_uid of ${listed.name} in ${listed.variable}` : "CHATBOT_BOT_UID";
    return `${which} was not found (HTTP 404): check CHATBOT_BASE_URL and ${uid}`;
  }
  if (error instanceof NetworkError && error.beforeRequestSent) {
    const why = systemCodeOf(error.cause);
    // This process closing its own connections (a shutdown) is no setting's fault.
    if (why === "UND_ERR_CLOSED" || why === "UND_ERR_DESTROYED") return undefined;
    return `could not reach the chatbot${why ? ` (${why})` : ""}: check CHATBOT_BASE_URL, and that the chatbot is up`;
  }
  return undefined;
}

/** A failure's message, whatever was thrown; never empty for an Error. */
export function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // An AggregateError from a dual-stack connect has an empty message and the reasons inside.
  if (!error.message && error instanceof AggregateError) {
    return error.errors.map(messageOf).join("; ");
  }
  return error.message || error.constructor.name;
}

/** The system's or undici's name for a failure (ECONNREFUSED, ENOTFOUND), however deep. */
export function systemCodeOf(error: unknown): string | undefined {
  for (let at = error, depth = 0; at instanceof Error && depth < 5; depth++) {
    const { code } = at as { code?: unknown };
    // Not this bot's own codes (BACKEND_NETWORK): what lies under them.
    if (!(at instanceof BridgeError) && typeof code === "string" && /^[A-Z][A-Z0-9_]+$/.test(code))
      return code;
    at = at.cause;
  }
  return undefined;
}

/** The backend answered 403: the account may not use this operation (chat needs a paid plan). */
export class PermissionError extends BridgeError {
  readonly code = "BACKEND_PERMISSION";
  constructor(path: string) {
    super(`backend ${path}: HTTP 403`, {
      userText: { key: "errorPermission", values: { status: "HTTP 403" } },
    });
  }
}

/** The backend answered 404: the base URL or the bot id is wrong. */
export class NotFoundError extends BridgeError {
  readonly code = "BACKEND_NOT_FOUND";
  constructor(path: string) {
    super(`backend ${path}: HTTP 404`, {
      userText: { key: "errorNotFound", values: { status: "HTTP 404" } },
    });
  }
}

/** The backend answered with a 5xx status, or another status the spec does not name. */
export class ServerError extends BridgeError {
  readonly code = "BACKEND_SERVER";
  constructor(
    path: string,
    readonly status: number,
  ) {
    super(`backend ${path}: HTTP ${status}`, { userText: describeStatus(status) });
  }
}

/** HTTP 200 with an envelope whose `code` is not 0. */
export class ApiError extends BridgeError {
  readonly code = "BACKEND_API";
  constructor(
    path: string,
    readonly apiCode: number,
    readonly serverText: string | undefined,
  ) {
    // The backend's words reach a person: what would hide or reorder them goes, as in answers.
    const shown = serverText && stripInvisible(serverText).trim();
    const detail = shown ? `: ${shown}` : "";
    super(`backend ${path}: code ${apiCode}${detail}`, {
      userText: shown
        ? { key: "errorApiDetail", values: { code: String(apiCode), detail: shown } }
        : { key: "errorApi", values: { code: String(apiCode) } },
    });
  }
}

/** The response did not keep the protocol: malformed envelope, header or stream. */
export class ProtocolError extends BridgeError {
  readonly code = "BACKEND_PROTOCOL";
  constructor(path: string, detail: string, cause?: unknown) {
    super(`backend ${path}: protocol error: ${detail}`, {
      userText: { key: "errorProtocol" },
      cause,
    });
  }
}

/**
 * No response headers within CHATBOT_TIMEOUT_MS ("headers"), silence mid-stream past
 * CHATBOT_IDLE_TIMEOUT_MS ("idle"), or a whole answer longer than CHATBOT_ANSWER_TIMEOUT_MS
 * ("answer").
 */
export class TimeoutError extends BridgeError {
  readonly code = "BACKEND_TIMEOUT";
  constructor(
    path: string,
    readonly phase: "headers" | "idle" | "answer",
    readonly timeoutMs: number,
    cause?: unknown,
  ) {
    const phases: Record<typeof phase, { message: string; userText: UserText }> = {
      headers: {
        message: `no response within ${timeoutMs} ms`,
        userText: { key: "errorNoResponse" },
      },
      idle: {
        message: `stream silent for ${timeoutMs} ms`,
        userText: { key: "errorSilent" },
      },
      answer: {
        message: `answer longer than ${timeoutMs} ms`,
        userText: { key: "errorTooLong", values: { duration: { durationMs: timeoutMs } } },
      },
    };
    const { message, userText } = phases[phase];
    super(`backend ${path}: ${message}`, { userText, cause });
  }
}

/** The connection failed or dropped. `beforeRequestSent` tells whether a retry is safe. */
export class NetworkError extends BridgeError {
  readonly code = "BACKEND_NETWORK";
  constructor(
    path: string,
    readonly beforeRequestSent: boolean,
    cause?: unknown,
  ) {
    super(
      beforeRequestSent ? `backend ${path}: could not connect` : `backend ${path}: connection lost`,
      {
        userText: { key: beforeRequestSent ? "errorUnreachable" : "errorConnectionLost" },
        cause,
      },
    );
  }
}

/**
 * A streamed answer ended early. The text received so far was already delivered to the
 * caller; `cause` says why the rest is missing (network, idle timeout, protocol, abort).
 */
export class AnswerCutError extends BridgeError {
  readonly code = "ANSWER_CUT";
  constructor(readonly reason: BridgeError) {
    super(`answer cut off: ${reason.message}`, {
      userText: { key: "answerCut", values: { reason: reason.userText ?? UNEXPECTED } },
      cause: reason,
    });
  }
}

/** The caller cancelled (an AbortSignal fired): nobody waits for this answer any more. */
export class AbortedError extends BridgeError {
  readonly code = "ABORTED";
  constructor(reason?: string) {
    super(reason ? `aborted: ${reason}` : "aborted", { userText: { key: "errorInterrupted" } });
  }
}

/**
 * A person stopped the answer (`/stop`, the Stop button): the reason an answer's signal aborts
 * with, so the answer ends with the text it had and the stopped note instead of a cut note.
 */
export class AnswerStoppedError extends BridgeError {
  readonly code = "STOPPED";
  /** `tookOver`: a person of the company took the thread over (src/handover/): "paused". */
  constructor(
    readonly byName: string | undefined,
    readonly tookOver = false,
  ) {
    super("stopped by a person", { userText: { key: "stopped" } });
  }
}

/** A value given to the bot (a language code, a command argument) is not valid. */
export class InvalidInputError extends BridgeError {
  readonly code = "INVALID_INPUT";
}

/** The store did not answer, or answered with an error. Never read as "no value". */
export class StoreUnavailableError extends BridgeError {
  readonly code = "STORE_UNAVAILABLE";
  /**
   * The store is known to be down and has logged so once (store/outage-log.ts): a job that
   * meets this failure on a timer need not log it again.
   */
  readonly duringOutage: boolean;
  constructor(operation: string, cause?: unknown, options: { duringOutage?: boolean } = {}) {
    super(`store ${operation} failed: ${describeCause(cause)}`, {
      userText: { key: "errorStore" },
      cause,
    });
    this.duringOutage = options.duringOutage ?? false;
  }
}

/**
 * The level for a failure a job logs: debug when the store has logged its outage already.
 * Beside the error it reads, so coordination's jobs (src/coordination/) need nothing of
 * src/store/ to log it.
 */
export function storeFailureLevel(error: unknown): "warn" | "debug" {
  return error instanceof StoreUnavailableError && error.duringOutage ? "debug" : "warn";
}

/** The configuration is invalid; one line per problem in `problems`. */
export class ConfigError extends BridgeError {
  readonly code = "CONFIG";
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/**
 * Start-up stopped on a setting that a service refused or that cannot be used: a token, the
 * webhook, the store's password or folder. No retry helps; the operator fixes `variable`.
 * The message is one line that names the variable and holds no secret.
 */
export class StartupError extends BridgeError {
  readonly code = "STARTUP";
  constructor(
    readonly variable: string,
    message: string,
    cause?: unknown,
  ) {
    super(message.replace(/\s*\n\s*/g, " "), { cause });
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) return cause.message;
  return cause === undefined ? "unknown error" : String(cause);
}

/** The platform said "too many requests": nothing more to that surface for `retryAfterMs`. */
export class RateLimitedError extends BridgeError {
  readonly code = "RATE_LIMITED";
  constructor(
    readonly retryAfterMs: number,
    cause?: unknown,
  ) {
    super(`rate limited: retry after ${retryAfterMs} ms`, {
      userText: { key: "errorPlatformRateLimit" },
      cause,
    });
  }
}

/**
 * The platform will not let the bot post where a message came from (on Slack: the bot is not
 * in the channel, or the channel is archived). Not even this error can be shown there, so the
 * bridge tells the operator once per channel, with `hint` (what to do about it), and again
 * only after the bot has answered there since.
 */
export class ChannelUnavailableError extends BridgeError {
  readonly code = "CHANNEL_UNAVAILABLE";
  constructor(
    message: string,
    readonly hint: string,
    options: { userText?: UserText; cause?: unknown } = {},
  ) {
    super(message, { userText: { key: "errorCannotPost" }, ...options });
  }
}

/** The message to edit no longer exists (a person deleted it): continue in a new one. */
export class MessageGoneError extends BridgeError {
  readonly code = "MESSAGE_GONE";
  constructor(cause?: unknown) {
    super("the message to edit no longer exists", { cause });
  }
}

/**
 * The process stopped (SIGTERM) before a queued question's answer began: the question is
 * not answered here, and the person is told to ask again (src/bridge/answer-queue.ts).
 */
export class NotStartedError extends BridgeError {
  readonly code = "NOT_STARTED";
  constructor() {
    super("the process is shutting down before this question's answer began", {
      userText: { key: "errorRestarting" },
    });
  }
}

/**
 * A native stream could not start or go on (the platform refused streaming for this message,
 * this thread or the workspace): the reply engine shows the message by post and edit instead.
 */
export class StreamUnavailableError extends BridgeError {
  readonly code = "STREAM_UNAVAILABLE";
  constructor(reason: string, cause?: unknown) {
    super(reason, { cause });
  }
}

function describeStatus(status: number): UserText {
  const values = { status: `HTTP ${status}` };
  if (status === 429) return { key: "errorBackendBusy", values };
  if (status >= 500) return { key: "errorBackendFailed", values };
  return { key: "errorBackendRefused", values };
}

/** What a person is told of a failure that has no sentence of its own. */
const UNEXPECTED: UserText = { key: "errorUnexpected" };

/** The sentence a person is shown for `error`, in their language. */
export function userTextOf(error: unknown): UserText {
  return (error instanceof BridgeError && error.userText) || UNEXPECTED;
}
