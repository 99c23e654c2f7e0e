// An OTLP/HTTP collector for the bench, in a process of its own (so that what it spends is
// not the bot's): it takes every trace export, answers 200 with an empty (valid protobuf)
// body, and counts what came. GET /stats gives {requests, bytes}.
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";
import { request } from "undici";
import { type ChildServer, printedUrl, startChildServer } from "./child-server.ts";
import { type LoopbackServer, listenOnLoopback } from "./loopback-server.ts";

export interface SinkStats {
  requests: number;
  bytes: number;
}

export function startOtlpSink(): Promise<LoopbackServer> {
  const stats: SinkStats = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    if (req.method === "GET") {
      res.end(JSON.stringify(stats));
      return;
    }
    req.on("data", (chunk: Buffer) => {
      stats.bytes += chunk.length;
    });
    req.on("end", () => {
      stats.requests++;
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  return listenOnLoopback(server);
}

export function startOtlpSinkProcess(): Promise<ChildServer<{ url: string }>> {
  return startChildServer("test/bench/otlp-sink.ts", {}, printedUrl);
}

export async function sinkStats(url: string): Promise<SinkStats> {
  const response = await request(`${url}/stats`);
  return (await response.body.json()) as SinkStats;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const sink = await startOtlpSink();
  console.log(JSON.stringify({ url: sink.url }));
  const stop = () => void sink.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
