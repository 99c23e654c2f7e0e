// A bench-only Chatbot Backend API for the pipeline figures, run in a process of its own:
// `node --import <tsx loader> test/bench/stamp-backend.ts` prints {"url": …} on stdout.
//
// It streams like the simulator (header and delimiter, a "thinking" pause, then small
// chunks with 10–60 ms between them) but its first answer chunk carries the moment it was
// written, `t=<epoch ms>;`, so the process that shows the answer can tell how long the
// first text took from the backend's write to the reply surface. Both processes read the
// same machine clock (performance.timeOrigin + performance.now(), sub-millisecond).
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { pathToFileURL } from "node:url";
import { STREAM_DELIMITER } from "../../src/backend/stream-parser.ts";
import { type LoopbackServer, listenOnLoopback } from "./loopback-server.ts";
import { epochMs } from "./stats.ts";

export interface StampBackendOptions {
  /** Answer chunks per answer, the stamped first one included. */
  chunks: number;
  /** Pause before each chunk after the first, drawn per chunk. */
  intervalMs: readonly [number, number];
  /** Pause between the header and the first answer chunk. */
  thinkMs: number;
  /** Characters of each chunk after the first, drawn per chunk. */
  chunkChars: readonly [number, number];
  /**
   * The last chunk is `e=<epoch ms>;`, written together with the end of the body, so the
   * process that shows the answer can tell how long the final text took after the stream
   * ended. Default false.
   */
  stampEnd?: boolean;
}

/** Pacing of the simulator's defaults (src/simulator/options.ts), with 100 chunks. */
export const STAMP_BACKEND_DEFAULTS: StampBackendOptions = {
  chunks: 100,
  intervalMs: [10, 60],
  thinkMs: 240,
  chunkChars: [2, 16],
};

/** How long one answer of the defaults streams, on average: the loads ramp over it. */
export const STAMP_ANSWER_MS =
  STAMP_BACKEND_DEFAULTS.thinkMs +
  (STAMP_BACKEND_DEFAULTS.chunks - 1) *
    ((STAMP_BACKEND_DEFAULTS.intervalMs[0] + STAMP_BACKEND_DEFAULTS.intervalMs[1]) / 2);

/** A question holding this gets a short, fast answer (for warming up). */
export const QUICK = "#quick";
const QUICK_ANSWER: Partial<StampBackendOptions> = { chunks: 5, intervalMs: [0, 1], thinkMs: 0 };

/** The stamp in a first chunk: `t=1732250000123.456;`. */
export const STAMP = /t=(\d+\.\d+);/;

/** The stamp in the last chunk with `stampEnd`: `e=1732250000123.456;`. */
export const END_STAMP = /e=(\d+\.\d+);/;

const CHAT_PATH = /^\/api\/v1\/backend\/chatbot\/[^/]+\/chat$/;
const FILLER = "streaming answers grow in place while the backend is still writing them ";

export function startStampBackend(options: StampBackendOptions): Promise<LoopbackServer> {
  const server = createServer({ noDelay: true }, (req, res) => {
    if (req.method === "GET" && req.url === "/clock") return sendText(res, String(epochMs()));
    if (req.method === "GET" && req.url === "/stats") {
      const cpu = process.cpuUsage();
      return sendText(res, JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000 }));
    }
    if (req.method === "POST" && CHAT_PATH.test(req.url ?? "")) {
      // A request it cannot read ends the connection: the client reports it as failed.
      streamAnswer(req, res, options).catch(() => res.destroy());
      return;
    }
    res.writeHead(404).end();
  });
  return listenOnLoopback(server);
}

function sendText(res: ServerResponse, text: string): void {
  res.writeHead(200, { "content-type": "text/plain" }).end(text);
}

async function streamAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  defaults: StampBackendOptions,
): Promise<void> {
  let body = "";
  for await (const chunk of req) body += chunk;
  const { q, conversation_uid: asked } = JSON.parse(body) as {
    q: string;
    conversation_uid?: string;
  };
  const options = q.includes(QUICK) ? { ...defaults, ...QUICK_ANSWER } : defaults;
  const header = JSON.stringify({
    answer: "",
    question: "",
    related_docs: [],
    conversation_uid: asked ?? `c-${randomUUID()}`,
    is_qa_mode: false,
    system_message: "",
  });
  res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
  res.write(header + STREAM_DELIMITER);
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  res.once("close", () => clearTimeout(timer));
  const next = () => {
    if (res.destroyed) return;
    if (sent === options.chunks) {
      res.end();
      return;
    }
    if (options.stampEnd && sent > 0 && sent === options.chunks - 1) {
      res.end(` e=${epochMs().toFixed(3)};`);
      return;
    }
    // The stamp is taken as the chunk is handed to the socket: the backend's "write".
    res.write(sent === 0 ? `t=${epochMs().toFixed(3)}; ` : filler(options.chunkChars));
    sent++;
    timer = setTimeout(next, between(options.intervalMs));
  };
  timer = setTimeout(next, options.thinkMs);
}

function filler([min, max]: readonly [number, number]): string {
  const length = Math.round(between([min, max]));
  const at = Math.floor(Math.random() * (FILLER.length - length));
  return FILLER.slice(at, at + length);
}

function between([min, max]: readonly [number, number]): number {
  return min + Math.random() * (max - min);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const options = {
    ...STAMP_BACKEND_DEFAULTS,
    ...(JSON.parse(process.env.STAMP_BACKEND_OPTIONS ?? "{}") as Partial<StampBackendOptions>),
  };
  const backend = await startStampBackend(options);
  console.log(JSON.stringify({ url: backend.url }));
  const stop = () => void backend.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
