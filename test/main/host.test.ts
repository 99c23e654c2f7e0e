import { describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { startFakeTelegram } from "../support/fake-telegram.ts";
import { trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";

const track = cleanupAfterEach();

/** The status of GET /healthz at `address`, or the connection error's code. */
async function healthAt(address: string, port: number): Promise<number | string> {
  try {
    const response = await fetch(`http://${address}:${port}/healthz`);
    await response.arrayBuffer();
    return response.status;
  } catch (error) {
    return String((error as { cause?: { code?: unknown } }).cause?.code);
  }
}

/** Starts a Telegram bot with `env` added; resolves with the port it serves on once started. */
async function botPort(env: Record<string, string>): Promise<number> {
  const fake = track(await startFakeTelegram(), (f) => f.close());
  const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
  const bot = trackedBot(track, {
    ...telegramBotEnv(fake, simulator),
    LEADS_POLL_INTERVAL: "0",
    ...env,
  });
  const { port } = await bot.started;
  return Number(port);
}

describe("HOST", () => {
  it("binds the HTTP server to that address only", async () => {
    const port = await botPort({ HOST: "127.0.0.1" });
    expect(await healthAt("127.0.0.1", port)).toBe(200);
    // Another loopback address of the same machine: nothing listens there.
    expect(await healthAt("127.0.0.2", port)).toBe("ECONNREFUSED");
  });

  it("unset, the server listens on every interface, as before", async () => {
    const port = await botPort({});
    expect(await healthAt("127.0.0.1", port)).toBe(200);
    expect(await healthAt("127.0.0.2", port)).toBe(200);
  });
});
