import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as delay } from "node:timers/promises";

/** One response under way: where it goes, its id, and the signal that ends it early. */
export interface Reply {
  res: ServerResponse;
  requestId: string;
  textField: "msg" | "message";
  /** Aborts when the client goes away or the simulator closes. */
  signal: AbortSignal;
}

/** The envelope every JSON response carries: `{code, data, msg, request_id}`. */
export function envelopeBody(
  reply: Reply,
  code: number,
  data: object,
  text: string,
): Record<string, unknown> {
  return { code, data, [reply.textField]: text, request_id: reply.requestId };
}

export function sendEnvelope(
  reply: Reply,
  code: number,
  data: object,
  text: string,
  status = 200,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify(envelopeBody(reply, code, data, text));
  reply.res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    ...headers,
  });
  reply.res.end(body);
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  401: "authentication failed: send Authorization: Bearer <API key>",
  403: "no permission: chat needs a paid subscription",
  404: "not found",
  405: "method not allowed",
  429: "too many requests",
  500: "internal server error",
};

/**
 * A non-200 answer. The spec does not show these bodies; the simulator sends the envelope
 * with code equal to the status, except 502–504, which come as the HTML page a proxy in
 * front of the API would send. 429 and 503 carry `Retry-After: 1`.
 */
export function sendStatus(reply: Reply, status: number, text?: string): void {
  const headers: Record<string, string> =
    status === 429 || status === 503 ? { "retry-after": "1" } : {};
  if (status >= 502 && status <= 504) {
    const body = `<html><head><title>${status}</title></head><body><h1>${status}</h1></body></html>\n`;
    reply.res.writeHead(status, {
      "content-type": "text/html",
      "content-length": Buffer.byteLength(body),
      ...headers,
    });
    reply.res.end(body);
    return;
  }
  sendEnvelope(reply, status, {}, text ?? STATUS_TEXT[status] ?? `HTTP ${status}`, status, headers);
}

/** The request body, or undefined when it passes `limit` bytes. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** Waits `ms`; rejects with an AbortError when `signal` fires first. */
export async function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms > 0) await delay(ms, undefined, { signal });
  else signal.throwIfAborted();
}

/** Resolves only when `signal` fires: the way a stalled server "never" answers. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** Writes `chunk` and waits until it has left for the socket, so a following cut or pause
 * happens after the bytes went out rather than while they sit in a buffer. */
export function writeFlushed(res: ServerResponse, chunk: Buffer | string): Promise<void> {
  return new Promise((resolve, reject) => {
    res.write(chunk, (error) => (error ? reject(error) : resolve()));
  });
}

/** Writes `chunk`, waiting for `drain` when the socket is backed up (large answers, 0 delay). */
export async function write(
  res: ServerResponse,
  chunk: Buffer | string,
  signal: AbortSignal,
): Promise<void> {
  if (!res.write(chunk)) await once(res, "drain", { signal });
}

/** Ends the connection without finishing the response: what a crashed backend looks like. */
export function cutConnection(res: ServerResponse): void {
  res.socket?.destroy();
  res.destroy();
}
