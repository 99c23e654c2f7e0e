import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { StartupError } from "./errors.ts";
import type { Logger } from "./log.ts";
import type { Metrics } from "./metrics.ts";
import type { HttpRoute } from "./ports.ts";

export interface ReadinessReport {
  /** Why the process should not be sent work now; empty while it takes work. */
  problems: string[];
}

export interface HttpServerOptions {
  port: number;
  host?: string;
  routes: readonly HttpRoute[];
  /** Asked on /readyz, and on /metrics for the `ready` gauge. */
  readiness: () => Promise<ReadinessReport>;
  metrics: Metrics;
  log: Logger;
}

export interface RunningHttpServer {
  readonly port: number;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * The one HTTP server of the process: the channels' endpoints (Slack events, Telegram
 * webhook) plus `/healthz`, `/readyz` and `/metrics`.
 *
 * `/healthz` says the process works (it answers at all): a liveness probe restarts only a
 * process that cannot recover, never one waiting out a Redis or platform outage, which would
 * cut the answers it streams. `/readyz` says whether to send it work (docs/operations.md, "Health").
 */
export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const routes = new Map(
    options.routes.map((r) => [`${r.method} ${r.path}`, timed(r, options.metrics)]),
  );
  const readiness = async () => {
    const report = await options.readiness();
    options.metrics.ready.set(report.problems.length === 0 ? 1 : 0);
    return report;
  };
  routes.set("GET /healthz", (_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ status: "ok" }));
  });
  routes.set("GET /readyz", async (_request, response) => {
    const { problems } = await readiness();
    const status = problems.length === 0 ? 200 : 503;
    response.writeHead(status, { "content-type": "application/json" });
    response.end(
      JSON.stringify(status === 200 ? { status: "ready" } : { status: "not ready", problems }),
    );
  });
  routes.set("GET /metrics", async (_request, response) => {
    // The gauge as /readyz would answer now, whether or not a probe asked lately.
    await readiness();
    const body = await options.metrics.registry.metrics();
    response.writeHead(200, { "content-type": options.metrics.registry.contentType });
    response.end(body);
  });

  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    const handler = routes.get(`${request.method} ${path}`);
    if (!handler) {
      const known = [...routes.keys()].some((key) => key.endsWith(` ${path}`));
      response.writeHead(known ? 405 : 404, { "content-type": "text/plain" });
      response.end(known ? "method not allowed\n" : "not found\n");
      return;
    }
    // Run inside the promise, so a handler that throws before its first await is caught too.
    new Promise<void>((resolve) => resolve(handler(request, response))).catch((error: unknown) => {
      options.log.error({ err: error, path }, "HTTP handler failed");
      if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
      response.end();
    });
  });
  // Slack and Telegram keep connections open; idle ones must not hold a shutdown.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => reject(listenProblem(error, options.port, options.host));
    server.once("error", failed);
    server.listen(options.port, options.host, () => {
      server.off("error", failed);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

/**
 * A platform's route, its time to respond measured: Slack retries what it has not seen
 * answered within 3 s, so an operator watches this (a connection dropped before the
 * response is not counted).
 */
function timed(route: HttpRoute, metrics: Metrics): HttpRoute["handler"] {
  const seconds = metrics.deliverySeconds.labels({ route: route.path });
  // The series is there at 0 from the start, as the other known ones.
  metrics.deliverySeconds.zero({ route: route.path });
  return (request, response) => {
    response.once("finish", seconds.startTimer());
    return route.handler(request, response);
  };
}

/** A server that cannot listen, as the setting to change: PORT or HOST. */
function listenProblem(error: Error, port: number, host: string | undefined): Error {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case "EADDRINUSE":
      return new StartupError(
        "PORT",
        `port ${port} is in use by another process: stop it, or set PORT to a free port`,
        error,
      );
    case "EACCES":
      return new StartupError(
        "PORT",
        `port ${port} needs privileges this process lacks: set PORT to 1024 or above`,
        error,
      );
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new StartupError(
        "HOST",
        `HOST ${host} could not be resolved (${code}): unset it to listen on all addresses, or set one this machine has`,
        error,
      );
    case "EADDRNOTAVAIL":
      return new StartupError(
        "HOST",
        `HOST ${host} is no address of this machine: unset it to listen on all addresses, or set one this machine has`,
        error,
      );
    default:
      return error;
  }
}
