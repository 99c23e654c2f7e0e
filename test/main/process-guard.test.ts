import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { startFakeTelegram } from "../support/fake-telegram.ts";
import { cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";
import { botWorkDir, startBot, until } from "../support/run-bot.ts";

const track = cleanupAfterEach();

const STRAY_FAILURE = pathToFileURL(resolve(import.meta.dirname, "../support/stray-failure.mjs"));

/** A Telegram bot process that fails on SIGUSR2 the way `kind` says (test/support/stray-failure.mjs). */
async function botWithStrayFailure(kind: "rejection" | "exception") {
  const fake = track(await startFakeTelegram(), (f) => f.close());
  const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
  const alice = fake.user(1001, "Alice", "alice_example");
  const dm = fake.addChat({ id: alice.id, type: "private", first_name: "Alice" });
  const bot = track(
    startBot({
      cwd: await botWorkDir(),
      env: {
        ...telegramBotEnv(fake, simulator),
        LEADS_POLL_INTERVAL: "0",
        SHUTDOWN_GRACE_MS: "1000",
        NODE_OPTIONS: `--import ${STRAY_FAILURE.href}`,
        STRAY_FAILURE: kind,
      },
    }),
    (b) => b.stop("SIGKILL"),
  );
  const { port } = await bot.logLine("HTTP server listening (/healthz, /metrics)");
  await bot.logLine("channel started");
  const ask = async (text: string) => {
    fake.write({ chat: dm.id, from: alice, text });
    return until(`the answer to "${text}"`, () =>
      fake.botMessages(dm.id).find((m) => m.text.includes(`You asked: “${text}”`)),
    );
  };
  return { bot, healthz: `http://127.0.0.1:${port}/healthz`, ask };
}

describe("a failure no request handler caught", () => {
  it("a rejected promise nobody awaits is logged once and the bot keeps answering", async () => {
    const { bot, healthz, ask } = await botWithStrayFailure("rejection");
    bot.child.kill("SIGUSR2");
    const line = await bot.logLine("unhandled promise rejection: logged, the bot keeps serving");
    expect(line.level).toBe(50);
    expect(JSON.stringify(line)).toContain("stray rejection nobody awaits");

    expect((await fetch(healthz)).status).toBe(200);
    await ask("still answering?");
    expect(bot.child.exitCode).toBeNull();
    expect(await bot.stop("SIGTERM")).toBe(0);
  });

  it("an uncaught exception stops the bot for a restart, saying so, with exit code 1", async () => {
    const { bot } = await botWithStrayFailure("exception");
    bot.child.kill("SIGUSR2");
    const line = await bot.logLine(
      "uncaught exception: the process state is unknown, stopping for a restart",
    );
    expect(line.level).toBe(60);
    expect(JSON.stringify(line)).toContain("stray exception from a timer");
    expect(await bot.exited).toBe(1);
  });
});
