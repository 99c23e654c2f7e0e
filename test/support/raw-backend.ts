import { once } from "node:events";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { STREAM_DELIMITER } from "../../src/backend/stream-parser.ts";

/** A request as the server received it. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What a script uses to write a response byte by byte and moment by moment. */
export interface ScriptContext {
  req: IncomingMessage;
  res: ServerResponse;
  request: RecordedRequest;
  /** 1 for the first request this server received. */
  hit: number;
  /** Writes one chunk, waits until it left the process, then pauses so it arrives alone. */
  write(chunk: string | Uint8Array, pauseMs?: number): Promise<void>;
  /** Sends a complete JSON response. */
  json(status: number, value: unknown, headers?: Record<string, string>): void;
  /** Kills the connection without ending the response ("other side closed" for the client). */
  destroy(): void;
  /** True once the client's connection is gone. */
  readonly closed: boolean;
  /** Resolves when the client's connection closes. */
  closedPromise: Promise<void>;
}

export type Script = (ctx: ScriptContext) => void | Promise<void>;

export interface RawBackend {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Replaces the script answering every next request. */
  handle(script: Script): void;
  /** Connections the client closed or that were destroyed. */
  readonly closedConnections: number;
  close(): Promise<void>;
}

/**
 * A tiny HTTP server on 127.0.0.1 whose tests script exactly which bytes go out and when.
 * Nagle is off and every write is awaited then followed by a pause, so chunks reach the
 * client as separate reads.
 */
export async function startRawBackend(script?: Script, port = 0): Promise<RawBackend> {
  let current: Script = script ?? ((ctx) => ctx.json(404, {}));
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let closedConnections = 0;

  const server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const request: RecordedRequest = {
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(parts).toString("utf8"),
    };
    requests.push(request);
    const socket = req.socket;
    socket.setNoDelay(true);
    const closedPromise = socketClosed(socket);
    const ctx: ScriptContext = {
      req,
      res,
      request,
      hit: requests.length,
      get closed() {
        return socket.destroyed;
      },
      closedPromise,
      async write(chunk, pauseMs = 5) {
        if (socket.destroyed) return;
        if (!res.headersSent) res.writeHead(res.statusCode);
        // Node never calls back a write to a socket destroyed meanwhile: race the close.
        const written = new Promise<void>((resolve) => res.write(chunk, () => resolve()));
        await Promise.race([written, closedPromise]);
        await sleep(pauseMs);
      },
      json(status, value, headers = {}) {
        const body = JSON.stringify(value);
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(body);
      },
      destroy() {
        socket.destroy();
      },
    };
    try {
      await current(ctx);
    } catch {
      socket.destroy();
    }
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      closedConnections += 1;
    });
  });
  server.listen(port, "127.0.0.1");
  await once(server, "listening");
  const actualPort = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${actualPort}`,
    port: actualPort,
    requests,
    handle(script) {
      current = script;
    },
    get closedConnections() {
      return closedConnections;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// One listener per socket, however many keep-alive requests it carries.
const closings = new WeakMap<Socket, Promise<void>>();
function socketClosed(socket: Socket): Promise<void> {
  let closing = closings.get(socket);
  if (!closing) {
    // Not events.once: it rejects on the "error" (ECONNRESET) of a client that hung up hard.
    closing = socket.destroyed
      ? Promise.resolve()
      : new Promise<void>((resolve) => socket.once("close", () => resolve()));
    closings.set(socket, closing);
  }
  return closing;
}

/** A port that refuses connections: one that was just listened on and closed again. */
export async function refusedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The question a streaming request asks, from its JSON body. */
export function askedQuestion(ctx: ScriptContext): string {
  return String((JSON.parse(ctx.request.body) as { q?: unknown }).q);
}

/**
 * Starts a streamed answer as the spec has it: the 200, then the JSON header of
 * `conversationUid` and the delimiter; the script writes the answer's text after it.
 */
export async function openStream(
  ctx: ScriptContext,
  question: string,
  conversationUid: string,
): Promise<void> {
  const header = {
    answer: "",
    question,
    related_docs: [],
    conversation_uid: conversationUid,
    is_qa_mode: false,
    system_message: "",
  };
  ctx.res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
  await ctx.write(`${JSON.stringify(header)}${STREAM_DELIMITER}`);
}
