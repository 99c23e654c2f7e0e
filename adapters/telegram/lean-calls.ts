import type { Api } from "grammy";
import { getGlobalDispatcher } from "undici";
import { splitUrl } from "./undici-fetch.ts";

/** Where grammY sends calls when TELEGRAM_API_ROOT does not say (its own default). */
export const DEFAULT_API_ROOT = "https://api.telegram.org";

/**
 * The methods an answer calls many times over while it streams. Their payloads are the
 * surface's: never a file (a rich message's media are never uploaded), never a null (grammY
 * drops nulls from JSON; here none can occur).
 */
const LEAN_METHODS: ReadonlySet<string> = new Set([
  "sendMessageDraft",
  "sendRichMessageDraft",
  "sendMessage",
  "sendRichMessage",
  "editMessageText",
  "sendChatAction",
]);

const JSON_HEADERS = { "content-type": "application/json" };

/**
 * Installs, innermost, the transformer that makes the answer's calls itself, as grammY's
 * client would (one JSON POST to `<apiRoot>/bot<token>/<method>`, Telegram's JSON answer
 * returned as is, a call bounded by the client's timeout) without what costs as much as the
 * request but serves no such call: a scan of the payload for files, an AbortController, a
 * timer and three promises raced per call, a JSON replacer. Every other call, and any call
 * given an abort signal, goes through grammY. Install it before every other transformer, so
 * they all see these calls too.
 */
export function installLeanCalls(
  api: Api,
  options: { apiRoot: string; token: string; timeoutSeconds: number },
): void {
  const { origin, path } = splitUrl(`${options.apiRoot}/bot${options.token}/`);
  const timeoutMs = options.timeoutSeconds * 1000;
  api.config.use(async (prev, method, payload, signal) => {
    if (signal !== undefined || !LEAN_METHODS.has(method)) return prev(method, payload, signal);
    const response = await getGlobalDispatcher().request({
      origin,
      path: `${path}${method}`,
      method: "POST",
      headers: JSON_HEADERS,
      body: JSON.stringify(payload),
      // undici's own timers, cheaper than an AbortSignal: the wait for the answer's headers,
      // then each pause in its body (connecting has undici's own bound).
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    return (await response.body.json()) as Awaited<ReturnType<typeof prev>>;
  });
}
