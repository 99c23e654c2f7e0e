import type { Bridge } from "./bridge/bridge.ts";
import { type RunningHttpServer, startHttpServer } from "./http-server.ts";
import type { Logger } from "./log.ts";
import type { Metrics } from "./metrics.ts";
import type { Channel, ChannelStarted, HttpRoute } from "./ports.ts";
import type { Store } from "./store/types.ts";

export interface BackgroundJob {
  start(): void;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  channels: readonly Channel[];
  bridge: Bridge;
  /** Asked on /readyz whether it answers. */
  store: Pick<Store, "ping">;
  metrics: Metrics;
  log: Logger;
  port: number;
  /** The address to bind; undefined: every interface. */
  host?: string | undefined;
  /** How long running answers may finish after a stop signal before they are cut. */
  shutdownGraceMs: number;
  /** Work that runs beside the channels (the lead poll), started after them. */
  background?: readonly BackgroundJob[];
  /** Resolves when the process should stop (a signal arrived). */
  stopRequested: Promise<unknown>;
  /** Called once every channel has started, with the HTTP server's port. */
  onStarted?: (port: number) => void;
}

/**
 * Runs the platform channels behind the shared HTTP server until a stop is requested, then
 * shuts down in order: refuse new deliveries (503, so the platform re-delivers elsewhere),
 * stop the channels, let running answers finish within the grace period and cut the rest
 * visibly, close the server.
 */
export async function runService(options: ServiceOptions): Promise<void> {
  const { log } = options;
  let started = false;
  let draining = false;
  const routes = options.channels.flatMap((c) =>
    c.routes.map((r) => refuseWhileDraining(r, () => draining)),
  );
  const server: RunningHttpServer = await startHttpServer({
    port: options.port,
    host: options.host,
    routes,
    metrics: options.metrics,
    log,
    readiness: async () => {
      const problems: string[] = [];
      if (!started) problems.push("starting");
      if (draining) problems.push("shutting down");
      await options.store.ping().catch(() => problems.push("store unreachable"));
      for (const channel of options.channels) {
        const reason = channel.unhealthyReason();
        if (reason) problems.push(`${channel.name}: ${reason}`);
      }
      return { problems };
    },
  });
  log.info(
    { host: options.host ?? "every interface", port: server.port },
    "HTTP server listening (/healthz, /metrics)",
  );
  // A stop while a channel still starts (Telegram asking to wait, Slack unreachable) ends
  // the start's retries at once: the process stops as asked instead of being killed.
  const stopping = new AbortController();
  void options.stopRequested.then(() => stopping.abort());
  try {
    for (const channel of options.channels) {
      let started: ChannelStarted;
      try {
        started = await channel.start(stopping.signal);
      } catch (error) {
        if (stopping.signal.aborted) return;
        throw error;
      }
      log.info({ channel: channel.name, ...started }, "channel started");
    }
    for (const job of options.background ?? []) job.start();
    started = true;
    options.onStarted?.(server.port);
    await options.stopRequested;
  } finally {
    draining = true;
    for (const job of options.background ?? []) await job.stop();
    log.info({ answers: options.bridge.busy }, "shutting down: finishing running answers");
    for (const channel of options.channels) {
      await channel
        .stop()
        .catch((error: unknown) =>
          log.warn({ err: error, channel: channel.name }, "channel stop failed"),
        );
    }
    await options.bridge.drain(options.shutdownGraceMs);
    await server.close();
  }
}

function refuseWhileDraining(route: HttpRoute, isDraining: () => boolean): HttpRoute {
  return {
    ...route,
    handler: (request, response) => {
      if (!isDraining()) return route.handler(request, response);
      // The platforms re-deliver on a 5xx: another process (or this one, restarted) answers.
      response.writeHead(503, { "content-type": "text/plain", "retry-after": "1" });
      response.end("shutting down\n");
    },
  };
}
