import { describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { FakeSlack } from "../support/fake-slack.ts";
import { startFakeTelegram } from "../support/fake-telegram.ts";
import { startHeldBackend } from "../support/held-backend.ts";
import { type InProcessBot, startBotInProcess } from "../support/in-process-bot.ts";
import { cleanupAfterEach, slackBotEnv, telegramBotEnv } from "../support/process-test.ts";
import { freePort, hasRedisServerBinary, spawnRedisServer } from "../support/redis.ts";
import { until } from "../support/run-bot.ts";

const track = cleanupAfterEach();

const ownRedis = hasRedisServerBinary();
if (!ownRedis) console.warn("[readiness] Redis outage skipped: no redis-server on PATH to stop");

interface Probe {
  status: number;
  body: { status: string; problems?: string[] };
}

/** The process's /healthz and /readyz, as a kubelet reads them. */
function probes(port: unknown) {
  const ask = async (path: string): Promise<Probe> => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`);
    return { status: response.status, body: (await response.json()) as Probe["body"] };
  };
  return {
    healthz: () => ask("/healthz"),
    readyz: () => ask("/readyz"),
    metrics: async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text(),
    /** Asks /readyz until it answers `status`, and gives that answer. */
    readyzBecomes: async (status: number, timeoutMs = 10_000) => {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const last = await ask("/readyz");
        if (last.status === status) return last;
        if (performance.now() > deadline) {
          throw new Error(
            `/readyz still ${last.status} after ${timeoutMs} ms: ${JSON.stringify(last.body)}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

async function listening(bot: InProcessBot) {
  const { port } = await bot.logLine("HTTP server listening (/healthz, /metrics)");
  return probes(port);
}

describe("/readyz says whether to send a process work; /healthz only that it works", () => {
  it("is 503 while the process starts (Slack not reached yet), 200 once its channel is up", async () => {
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    // Nothing listens here yet: the process keeps trying Slack, serving its probes meanwhile.
    const slackPort = await freePort();
    const bot = track(
      startBotInProcess({
        env: slackBotEnv(
          { apiUrl: `http://127.0.0.1:${slackPort}/api/`, botToken: "xoxb-fake-bot-token" },
          simulator,
        ),
      }),
      (b) => b.stop(),
    );
    const probe = await listening(bot);
    await bot.logLine("Slack auth.test failed; retrying");
    const starting = await probe.readyz();
    expect(starting.status).toBe(503);
    expect(starting.body.problems).toEqual(["starting", "slack: Slack channel not started"]);
    expect(await probe.healthz()).toEqual({ status: 200, body: { status: "ok" } });

    track(await FakeSlack.start({ port: slackPort }), (f) => f.close());
    await bot.logLine("channel started");
    expect(await probe.readyzBecomes(200)).toEqual({ status: 200, body: { status: "ready" } });
  });

  it("is 503 while the process drains on SIGTERM, the answer it streams finishing meanwhile", async () => {
    const backend = track(await startHeldBackend(), (b) => b.close());
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const alice = fake.user(1001, "Alice", "alice_example");
    const dm = fake.addChat({ id: alice.id, type: "private", first_name: "Alice" });
    const bot = track(startBotInProcess({ env: { ...telegramBotEnv(fake, backend) } }), (b) =>
      b.stop(),
    );
    const probe = await listening(bot);
    await probe.readyzBecomes(200);
    fake.write({ chat: dm.id, from: alice, text: "a long one" });
    await until("the answer under way", () => (backend.open === 1 ? true : undefined));

    const exited = bot.stop();
    const draining = await probe.readyzBecomes(503);
    expect(draining.body.problems).toContain("shutting down");
    // Alive: a liveness probe must not kill the process that finishes the answer.
    expect(await probe.healthz()).toEqual({ status: 200, body: { status: "ok" } });

    backend.releaseAll();
    expect(await exited).toBe(0);
    expect(fake.botMessages(dm.id).at(-1)?.text).toContain("Answer to a long one.");
  });

  it.skipIf(!ownRedis)(
    "is 503 while Redis does not answer, /healthz staying 200, and 200 again once it does",
    async () => {
      const redis = track(await spawnRedisServer(), (r) => r.close());
      const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
      const fake = track(await startFakeTelegram(), (f) => f.close());
      const bot = track(
        startBotInProcess({
          env: { ...telegramBotEnv(fake, simulator), STORE_URL: redis.url, TAKEOVER_MS: "1500" },
        }),
        (b) => b.stop(),
      );
      const probe = await listening(bot);
      await probe.readyzBecomes(200);

      await redis.stop();
      const down = await probe.readyzBecomes(503);
      expect(down.body.problems).toContain("store unreachable");
      expect(await probe.healthz()).toEqual({ status: 200, body: { status: "ok" } });

      await redis.start();
      expect(await probe.readyzBecomes(200)).toEqual({ status: 200, body: { status: "ready" } });
    },
  );

  it("is 503 while the Slack Socket Mode connection is lost, and 200 once it is back", async () => {
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const fake = track(await FakeSlack.start(), (f) => f.close());
    const bot = track(
      startBotInProcess({
        env: {
          ...slackBotEnv({ apiUrl: fake.apiUrl, botToken: fake.options.botToken }, simulator),
          SLACK_SIGNING_SECRET: "",
          SLACK_APP_TOKEN: fake.options.appToken,
        },
      }),
      (b) => b.stop(),
    );
    const probe = await listening(bot);
    await bot.logLine({ msg: "channel started", mode: "socket" });
    await probe.readyzBecomes(200);

    fake.socket.drop();
    const down = await probe.readyzBecomes(503);
    expect(down.body.problems).toEqual(["slack: Slack Socket Mode connection is down"]);
    expect(await probe.healthz()).toEqual({ status: 200, body: { status: "ok" } });
    expect(await probe.metrics()).toMatch(/^chatbot_bridge_ready 0$/m);

    fake.socket.accept();
    expect(await probe.readyzBecomes(200, 15_000)).toEqual({
      status: 200,
      body: { status: "ready" },
    });
  });
});
