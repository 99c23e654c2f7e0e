// The fake Slack and Telegram of the whole-bot bench, in a process of their own:
// `node --import <tsx loader> test/bench/fake-platforms.ts` prints {"url": …} on stdout.
//
// One HTTP server answers both APIs (Slack's Web API under /api/, the Bot API under
// /bot<token>/) plus the bench's own routes: GET /clock (this process's epoch ms), GET
// /finals (a line with the conversation's key each time an answer closes, for as long as the
// request stays open), GET /report (what the answer log saw) and POST /reset.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { pathToFileURL } from "node:url";
import { AnswerLog } from "./answer-log.ts";
import { BenchSlackApi, type FakeReply } from "./bench-slack-api.ts";
import { BenchTelegramApi } from "./bench-telegram-api.ts";
import { type LoopbackServer, listenOnLoopback } from "./loopback-server.ts";
import { epochMs } from "./stats.ts";

const TELEGRAM_PATH = /^\/bot([^/]+)\/([A-Za-z]+)$/;

export function startFakePlatforms(): Promise<LoopbackServer> {
  const finals = new FinalsFeed();
  const log = new AnswerLog((key) => finals.push(key));
  const slack = new BenchSlackApi(log);
  const telegram = new BenchTelegramApi(log);

  const server = createServer({ noDelay: true }, (req, res) => {
    route(req, res).catch(() => res.destroy());
  });
  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (req.method === "GET" && path === "/clock") return send(res, 200, epochMs());
    if (req.method === "GET" && path === "/finals") return finals.subscribe(res);
    if (req.method === "GET" && path === "/report") return send(res, 200, log.report());
    if (req.method === "POST" && path === "/reset") {
      log.reset();
      return send(res, 200, { ok: true });
    }
    const body = await readBody(req);
    if (path.startsWith("/api/")) {
      const args = Object.fromEntries(new URLSearchParams(body));
      const token = (req.headers.authorization ?? "").replace(/^Bearer /, "") || args.token;
      return reply(res, slack.handle(path.slice("/api/".length), args, token ?? ""));
    }
    const telegramCall = TELEGRAM_PATH.exec(path);
    if (telegramCall) {
      const params = body ? (JSON.parse(body) as Record<string, unknown>) : {};
      return reply(res, telegram.handle(telegramCall[2] ?? "", params, telegramCall[1] ?? ""));
    }
    send(res, 404, { ok: false });
  };

  return listenOnLoopback(server, () => finals.close());
}

/** The open GET /finals responses; keys written together once per turn of the event loop. */
class FinalsFeed {
  readonly #subscribers = new Set<ServerResponse>();
  #pending: string[] = [];

  subscribe(res: ServerResponse): void {
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    res.flushHeaders();
    this.#subscribers.add(res);
    res.once("close", () => this.#subscribers.delete(res));
  }

  push(key: string): void {
    if (this.#pending.push(key) > 1) return;
    setImmediate(() => {
      const lines = `${this.#pending.join("\n")}\n`;
      this.#pending = [];
      for (const res of this.#subscribers) res.write(lines);
    });
  }

  close(): void {
    for (const res of this.#subscribers) res.end();
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function reply(res: ServerResponse, { status, body, headers }: FakeReply): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function send(res: ServerResponse, status: number, body: unknown): void {
  reply(res, { status, body });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const platforms = await startFakePlatforms();
  console.log(JSON.stringify({ url: platforms.url }));
  const stop = () => void platforms.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
