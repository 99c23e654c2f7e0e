import { webApi } from "@slack/bolt";
import { type Dispatcher, getGlobalDispatcher } from "undici";

/**
 * The methods an answer calls many times over while it streams, the statuses it sets, and
 * users.info (asked for each new asker). They go out through `StreamingCalls`: the WebClient's request queue, retry
 * wrapper and debug serialisation of every body cost about five times the request itself
 * (0.31 against 0.05 CPU ms a call, measured on loopback; users.info more, as the client
 * also serialises its whole answer for a debug line), and none of them is used for these
 * calls (no retries, 429s rejected at once; see createWebClient).
 */
export const STREAMING_METHODS: ReadonlySet<string> = new Set([
  "chat.postMessage",
  "chat.update",
  "chat.startStream",
  "chat.appendStream",
  "chat.stopStream",
  "assistant.threads.setStatus",
  "agents.sessions.setStatus",
  "users.info",
]);

/**
 * One Web API call over undici, answered or failed exactly as the WebClient would with
 * `rejectRateLimitedCalls` and no retries: the same result, the same error classes (a 429's
 * WebAPIRateLimitedError, WebAPIPlatformError for `ok: false`, WebAPIHTTPError, and
 * WebAPIRequestError when no answer came), so every caller handles both paths alike.
 */
export class StreamingCalls {
  /** The API's origin and path, split once: undici would parse the whole URL on every call. */
  readonly #origin: string;
  readonly #path: string;
  readonly #token: string | undefined;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;

  constructor(options: { apiUrl: string; token: string | undefined; timeoutMs: number }) {
    const url = new URL(options.apiUrl.endsWith("/") ? options.apiUrl : `${options.apiUrl}/`);
    this.#origin = url.origin;
    this.#path = url.pathname;
    this.#token = options.token;
    this.#headers = headersFor(options.token);
    this.#timeoutMs = options.timeoutMs;
  }

  async call(method: string, args: Record<string, unknown>): Promise<webApi.WebAPICallResult> {
    const token = typeof args.token === "string" ? args.token : this.#token;
    let response: Dispatcher.ResponseData;
    try {
      // The global dispatcher at each call, as undici's `request` takes it (tests swap it).
      response = await getGlobalDispatcher().request({
        origin: this.#origin,
        path: `${this.#path}${method}`,
        method: "POST",
        headers: token === this.#token ? this.#headers : headersFor(token),
        body: formBody(args),
        // Slack's answer (and any stall of its body) within the timeout, as the WebClient
        // bounds a call; undici's own timers cost less than an AbortSignal for every call.
        headersTimeout: this.#timeoutMs,
        bodyTimeout: this.#timeoutMs,
      });
    } catch (error) {
      throw new webApi.WebAPIRequestError(
        error instanceof Error ? error : new Error(String(error)),
      );
    }
    const { statusCode, headers, body } = response;
    if (statusCode === 429) {
      await body.dump();
      const retryAfter = Number.parseInt(String(headers["retry-after"]), 10);
      if (Number.isNaN(retryAfter)) {
        throw new webApi.WebAPIRequestError(new Error(`${method}: 429 without a Retry-After`));
      }
      throw new webApi.WebAPIRateLimitedError(retryAfter);
    }
    if (statusCode !== 200) {
      const text = await body.text().catch(() => "");
      throw new webApi.WebAPIHTTPError(statusCode, "", flatHeaders(headers), text);
    }
    let result: webApi.WebAPICallResult;
    try {
      result = (await body.json()) as webApi.WebAPICallResult;
    } catch (error) {
      throw new webApi.WebAPIRequestError(
        error instanceof Error ? error : new Error(String(error)),
      );
    }
    if (!result.ok) {
      const { error } = result as { error?: string };
      throw new webApi.WebAPIPlatformError({ ...result, error: error ?? "unknown_error" });
    }
    return result;
  }
}

function headersFor(token: string | undefined): Record<string, string> {
  return {
    accept: "application/json",
    "content-type": "application/x-www-form-urlencoded",
    ...(token && { authorization: `Bearer ${token}` }),
  };
}

/** The Web API's form encoding: objects (blocks, chunks) as JSON, no token in the body. */
function formBody(args: Record<string, unknown>): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === null || key === "token") continue;
    form.append(
      key,
      typeof value === "string" || typeof value === "number" || typeof value === "boolean"
        ? String(value)
        : JSON.stringify(value),
    );
  }
  return form.toString();
}

function flatHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}
