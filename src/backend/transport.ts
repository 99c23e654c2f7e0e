import type { IncomingHttpHeaders } from "node:http";
import { Agent, type Dispatcher } from "undici";
import {
  AbortedError,
  AuthenticationError,
  BridgeError,
  InvalidInputError,
  messageOf,
  NetworkError,
  NotFoundError,
  PermissionError,
  ProtocolError,
  ServerError,
  TimeoutError,
} from "../errors.ts";

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  idleTimeoutMs: number;
  connectTimeoutMs: number;
  maxHttpHeaderBytes?: number | undefined;
}

export interface HttpRequest {
  method: "GET" | "POST";
  /** Full path without the query: also the endpoint named in errors. */
  path: string;
  query?: URLSearchParams | undefined;
  json?: unknown;
  signal?: AbortSignal | undefined;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Dispatcher.ResponseData["body"];
}

/** Steers a response whose body is read by callbacks. */
export interface ResponseControl {
  /** Closes the request; the sink hears nothing more of it. */
  abort(): void;
}

/**
 * Takes a response's body chunk by chunk, as it arrives, after `start`: then `end` or `fail`
 * ends it, unless `control.abort` closed it first (then it hears nothing more).
 */
export interface BodySink {
  start(status: number, headers: IncomingHttpHeaders, control: ResponseControl): void;
  data(chunk: Buffer): void;
  end(): void;
  fail(error: BridgeError): void;
}

export interface Transport {
  /** The path prefix of the base URL joined with `path` (which starts with "/"). */
  pathFor(path: string): string;
  /** Resolves once the response headers arrived; throws a BridgeError otherwise. */
  send(request: HttpRequest): Promise<HttpResponse>;
  /**
   * Sends the request and hands the response to `sink` as it comes: no stream object and no
   * promise per chunk, for a body of many small pieces. Resolves once `sink.start` ran;
   * rejects with a BridgeError when the request failed before the response began.
   */
  stream(request: HttpRequest, sink: BodySink): Promise<void>;
  /** Any failure as a BridgeError that holds no secret. */
  toBridgeError(error: unknown, path: string, signal: AbortSignal | undefined): BridgeError;
  readonly closed: boolean;
  close(): Promise<void>;
}

// Failures that happen before a byte of the request leaves this process: the server never
// saw the request, so even a chat question may be sent again.
const NOT_SENT = new Set([
  "ECONNREFUSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CLOSED",
  "UND_ERR_DESTROYED",
]);

/** A keep-alive pool for one backend, with its timeouts and the bearer key. */
export function createTransport(options: TransportOptions): Transport {
  const base = parseBaseUrl(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, "");
  const agent = new Agent({
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.idleTimeoutMs,
    connect: { timeout: options.connectTimeoutMs },
    ...(options.maxHttpHeaderBytes ? { maxHeaderSize: options.maxHttpHeaderBytes } : {}),
  });
  let closing: Promise<void> | undefined;

  const toBridgeError = (error: unknown, path: string, signal: AbortSignal | undefined) => {
    if (error instanceof BridgeError) return error;
    if (signal?.aborted) return new AbortedError(`backend ${path}`);
    const cause = safeCause(error, options.apiKey);
    const code = (error as { code?: unknown } | null)?.code;
    switch (code) {
      case "UND_ERR_HEADERS_TIMEOUT":
        return new TimeoutError(path, "headers", options.timeoutMs, cause);
      case "UND_ERR_BODY_TIMEOUT":
        return new TimeoutError(path, "idle", options.idleTimeoutMs, cause);
      case "UND_ERR_HEADERS_OVERFLOW":
        return new ProtocolError(path, "response headers too large", cause);
      default:
        return new NetworkError(path, typeof code === "string" && NOT_SENT.has(code), cause);
    }
  };

  const dispatchOptions = (request: HttpRequest): Dispatcher.DispatchOptions => {
    const query = request.query?.toString();
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.apiKey}`,
      "user-agent": "chatbot-bridge",
    };
    if (request.json !== undefined) headers["content-type"] = "application/json";
    return {
      origin: base.origin,
      path: query ? `${request.path}?${query}` : request.path,
      method: request.method,
      headers,
      body: request.json === undefined ? null : JSON.stringify(request.json),
    };
  };

  return {
    pathFor: (path) => `${prefix}${path}`,
    get closed() {
      return closing !== undefined;
    },
    async send(request) {
      if (request.signal?.aborted) throw new AbortedError(`backend ${request.path}`);
      try {
        const response = await agent.request({
          ...dispatchOptions(request),
          signal: request.signal ?? null,
        });
        return { status: response.statusCode, headers: response.headers, body: response.body };
      } catch (error) {
        throw toBridgeError(error, request.path, request.signal);
      }
    },
    stream(request, sink) {
      const { signal, path } = request;
      if (signal?.aborted) return Promise.reject(new AbortedError(`backend ${path}`));
      return new Promise<void>((resolve, reject) => {
        let controller: Dispatcher.DispatchController | undefined;
        let started = false;
        let over = false;
        const finish = () => {
          over = true;
          signal?.removeEventListener("abort", onAbort);
        };
        function onAbort() {
          controller?.abort(signal?.reason);
        }
        signal?.addEventListener("abort", onAbort, { once: true });
        const control: ResponseControl = {
          abort: () => {
            if (over) return;
            finish();
            controller?.abort(new AbortedError(`backend ${path}`));
          },
        };
        agent.dispatch(dispatchOptions(request), {
          onRequestStart(requestController) {
            controller = requestController;
            if (signal?.aborted) requestController.abort(signal.reason);
          },
          onResponseStart(_controller, status, headers) {
            started = true;
            sink.start(status, headers as IncomingHttpHeaders, control);
            resolve();
          },
          onResponseData(_controller, chunk) {
            if (!over) sink.data(chunk);
          },
          onResponseEnd() {
            if (over) return;
            finish();
            sink.end();
          },
          onResponseError(_controller, error) {
            if (over) return;
            finish();
            const failure = toBridgeError(error, path, signal);
            if (started) sink.fail(failure);
            else reject(failure);
          },
        });
      });
    },
    toBridgeError,
    close() {
      closing ??= agent.close();
      return closing;
    },
  };
}

/** The error for a status other than 200, or undefined for 200. */
export function statusError(path: string, status: number): BridgeError | undefined {
  switch (status) {
    case 200:
      return undefined;
    case 401:
      return new AuthenticationError(path);
    case 403:
      return new PermissionError(path);
    case 404:
      return new NotFoundError(path);
    default:
      return new ServerError(path, status);
  }
}

/** Reads a whole body, at most `limit` bytes; the body is consumed or destroyed either way. */
export async function readBody(
  response: HttpResponse,
  limit: number,
  path: string,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      size += chunk.length;
      if (size > limit) throw new ProtocolError(path, `response larger than ${limit} bytes`);
      chunks.push(chunk);
    }
  } finally {
    if (!response.body.destroyed) response.body.destroy();
  }
  return Buffer.concat(chunks, size);
}

/** An error status's body is read this far, so its socket can serve again, and no further. */
export const MAX_DISCARDED_BYTES = 64 * 1024;

/** Drops a body nobody will read, so its socket returns to the pool (or closes). */
export async function discardBody(response: HttpResponse): Promise<void> {
  try {
    await response.body.dump({ limit: MAX_DISCARDED_BYTES });
  } catch {
    // The status already says what went wrong; a failing body adds nothing.
  } finally {
    if (!response.body.destroyed) response.body.destroy();
  }
}

function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new InvalidInputError("the backend base URL is not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new InvalidInputError("the backend base URL must start with http:// or https://");
  }
  return url;
}

// undici's errors hold no headers today, but a cause is kept for logs, so it is rebuilt from
// its name, code and message alone, with the key masked should it ever appear there.
function safeCause(error: unknown, secret: string): Error {
  const name = error instanceof Error ? error.name : typeof error;
  const message = messageOf(error);
  const code = (error as { code?: unknown } | null)?.code;
  const text = `${name}${typeof code === "string" ? ` ${code}` : ""}: ${message}`;
  const cause = new Error(secret ? text.split(secret).join("[redacted]") : text);
  if (typeof code === "string") Object.assign(cause, { code });
  return cause;
}
