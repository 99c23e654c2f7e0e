import { describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { startFakeTelegram } from "../support/fake-telegram.ts";
import { cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";
import { freePort } from "../support/redis.ts";
import { botWorkDir, runBot, startBot } from "../support/run-bot.ts";

const track = cleanupAfterEach();

/** Error-level JSON log lines of a run's stderr. */
function errorLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => Number(entry.level) >= 50);
}

describe("a backend that refuses the bot's settings", () => {
  it("a rejected API key (401): the person sees why, the operator gets an error naming CHATBOT_API_KEY", async () => {
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const run = await runBot({
      cwd: await botWorkDir(),
      env: {
        CHATBOT_BASE_URL: simulator.url,
        CHATBOT_API_KEY: "not-the-right-key",
        CHATBOT_BOT_UID: simulator.botUid,
      },
      input: "hello\nagain\n",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("the chatbot rejected the API key (HTTP 401)");
    const errors = errorLines(run.stderr);
    expect(errors.map((e) => e.msg)).toEqual([
      "the chatbot rejected the API key (HTTP 401): check CHATBOT_API_KEY",
      "the chatbot rejected the API key (HTTP 401): check CHATBOT_API_KEY",
    ]);
    expect(run.stderr).not.toContain("not-the-right-key");
  });

  it("an unknown bot id (404): the operator gets an error naming CHATBOT_BASE_URL and CHATBOT_BOT_UID", async () => {
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const run = await runBot({
      cwd: await botWorkDir(),
      env: {
        CHATBOT_BASE_URL: simulator.url,
        CHATBOT_API_KEY: simulator.apiKey,
        CHATBOT_BOT_UID: "no-such-bot",
      },
      input: "hello\n",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("the chatbot was not found (HTTP 404)");
    expect(errorLines(run.stderr).map((e) => e.msg)).toEqual([
      "the chatbot was not found (HTTP 404): check CHATBOT_BASE_URL and CHATBOT_BOT_UID",
    ]);
  });

  it("a backend nothing answers at: the operator gets an error naming CHATBOT_BASE_URL and why", async () => {
    const run = await runBot({
      cwd: await botWorkDir(),
      env: {
        // A port nothing listens on: the connection is refused.
        CHATBOT_BASE_URL: `http://127.0.0.1:${await freePort()}`,
        CHATBOT_API_KEY: "key",
        CHATBOT_BOT_UID: "bot",
      },
      input: "hello\n",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("could not reach the chatbot");
    expect(errorLines(run.stderr).map((e) => e.msg)).toEqual([
      "could not reach the chatbot (ECONNREFUSED): check CHATBOT_BASE_URL, and that the chatbot is up",
    ]);
  });

  it("a lead poll with a rejected API key: an error naming CHATBOT_API_KEY", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const bot = track(
      startBot({
        cwd: await botWorkDir(),
        env: {
          ...telegramBotEnv(fake, simulator),
          CHATBOT_API_KEY: "not-the-right-key",
          LEADS_POLL_INTERVAL: "1",
        },
      }),
      (b) => b.stop("SIGKILL"),
    );
    const line = await bot.logLine(
      "lead poll failed: the chatbot rejected the API key (HTTP 401): check CHATBOT_API_KEY",
    );
    expect(line.level).toBe(50);
  });
});
