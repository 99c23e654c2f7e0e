import { afterEach, describe, expect, it } from "vitest";
import { startHttpServer } from "../../src/http-server.ts";
import { createLogger } from "../../src/log.ts";
import { Metrics } from "../../src/metrics.ts";
import type { Channel } from "../../src/ports.ts";
import { runService } from "../../src/service.ts";
import { type Harness, incoming, startHarness } from "../support/bridge-harness.ts";
import { MemorySurface } from "../support/memory-surface.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A channel that serves one webhook route and can be switched to unhealthy. */
function fakeChannel(): Channel & { down: string | undefined; started: boolean } {
  return {
    name: "fake",
    down: undefined,
    started: false,
    routes: [
      {
        method: "POST",
        path: "/fake/webhook",
        handler: (_request, response) => {
          response.writeHead(200);
          response.end("ok");
        },
      },
    ],
    async start() {
      this.started = true;
      return { mode: "fake" };
    },
    async stop() {},
    unhealthyReason() {
      return this.down;
    },
  };
}

async function waitForPort(getPort: () => number | undefined): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const port = getPort();
    if (port) return port;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("server did not start");
}

describe("the service's HTTP server", () => {
  it("serves /healthz, /readyz, /metrics and the channel routes, and refuses deliveries while draining", async () => {
    const metrics = new Metrics();
    harness = await startHarness({ bridge: { metrics } });
    const channel = fakeChannel();
    let stop!: () => void;
    const stopRequested = new Promise<void>((resolve) => {
      stop = resolve;
    });
    let port: number | undefined;
    const log = createLogger({ level: "silent", secrets: [] });
    const running = runService({
      channels: [channel],
      bridge: harness.bridge,
      store: harness.store,
      metrics,
      log: new Proxy(log, {
        get: (target, name) =>
          name === "info"
            ? (fields: { port?: number }) => {
                port ??= fields.port;
              }
            : Reflect.get(target, name, target),
      }),
      port: 0,
      shutdownGraceMs: 1_000,
      stopRequested,
    });
    const url = `http://127.0.0.1:${await waitForPort(() => port)}`;

    const alive = await fetch(`${url}/healthz`);
    expect(alive.status).toBe(200);
    expect(await alive.json()).toEqual({ status: "ok" });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready" });
    expect(channel.started).toBe(true);

    channel.down = "polling stalled";
    const notReady = await fetch(`${url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.json()).toEqual({
      status: "not ready",
      problems: ["fake: polling stalled"],
    });
    expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/^chatbot_bridge_ready 0$/m);
    // Alive all the same: a restart would not bring the platform back.
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    channel.down = undefined;

    expect((await fetch(`${url}/fake/webhook`, { method: "POST" })).status).toBe(200);
    expect((await fetch(`${url}/fake/webhook`)).status).toBe(405);
    expect((await fetch(`${url}/nowhere`)).status).toBe(404);

    await harness.bridge.handle(incoming("count me"), new MemorySurface());
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toContain('chatbot_bridge_questions_total{channel="test",outcome="complete"} 1');
    expect(text).toMatch(/chatbot_bridge_first_text_seconds_count\{channel="test"\} 1/);
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    expect(text).not.toContain("count me");

    stop();
    await running;
  });
});

describe("a route handler that throws", () => {
  it("at once, before any await, answers 500 and the server goes on serving", async () => {
    const server = await startHttpServer({
      port: 0,
      host: "127.0.0.1",
      routes: [
        {
          method: "POST",
          path: "/throws",
          handler: () => {
            throw new Error("a handler bug");
          },
        },
      ],
      readiness: async () => ({ problems: [] }),
      metrics: new Metrics(),
      log: createLogger({ level: "silent", secrets: [] }),
    });
    try {
      const url = `http://127.0.0.1:${server.port}`;
      expect((await fetch(`${url}/throws`, { method: "POST" })).status).toBe(500);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
