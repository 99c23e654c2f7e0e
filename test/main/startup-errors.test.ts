import { writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { FakeSlack } from "../support/fake-slack.ts";
import { startFakeTelegram } from "../support/fake-telegram.ts";
import { type InProcessRun, runBotInProcess } from "../support/in-process-bot.ts";
import { cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";
import { hasRedisServerBinary, spawnRedisServer } from "../support/redis.ts";
import { type BotRun, botWorkDir, runBot } from "../support/run-bot.ts";
import { SIGNING_SECRET } from "../support/slack-events.ts";

const track = cleanupAfterEach();

const WEBHOOK = {
  TELEGRAM_WEBHOOK_URL: "https://bot.example.com/telegram/webhook",
  TELEGRAM_WEBHOOK_SECRET: "a-good-secret_1",
};

/**
 * What an operator sees of a start that a setting stops: exit code 1 and one plain line on
 * stderr (no JSON, no stack trace) that names the variable to fix. Returns that line.
 */
function expectOneLine(run: BotRun | InProcessRun, variable: string): string {
  const lines = run.stderr.split("\n").filter((line) => line.trim() !== "");
  expect(lines, run.stderr).toHaveLength(1);
  const line = lines[0] ?? "";
  expect(line).toMatch(/^chatbot-bridge cannot start: /);
  expect(line).toContain(variable);
  expect(line).not.toMatch(/^\s*\{|\bat .+:\d+:\d+/);
  expect(run.code).toBe(1);
  return line;
}

/** Starts the bot in this process with only `env`: it must stop with one line naming `variable`. */
async function failsWithOneLine(env: Record<string, string>, variable: string): Promise<string> {
  return expectOneLine(await runBotInProcess({ env, input: "" }), variable);
}

async function backend() {
  const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
  return {
    CHATBOT_BASE_URL: simulator.url,
    CHATBOT_API_KEY: simulator.apiKey,
    CHATBOT_BOT_UID: simulator.botUid,
    LEADS_POLL_INTERVAL: "0",
    PORT: "0",
  };
}

describe("npm start stopped by a setting: the process itself", () => {
  // src/main.ts writes the line and ends the process: these two go through it, a setting the
  // bot refuses at its start and one the configuration refuses.
  it("DATA_DIR that cannot be created: exit 1 at once, one line naming DATA_DIR", async () => {
    const run = await runBot({
      cwd: await botWorkDir(),
      env: { DATA_DIR: "/proc/chatbot-bridge/data" },
      input: "",
    });
    const line = expectOneLine(run, "DATA_DIR");
    expect(line).toContain("/proc/chatbot-bridge/data");
  });

  it("a duration past what Node's timers wait (30 days): exit 1 at once, a line naming each, no lead asked", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0, leads: 1 }), (s) => s.close());
    const sales = fake.addChat({ id: -1005, type: "supergroup", title: "Sales" });
    const run = await runBot({
      cwd: await botWorkDir(),
      env: {
        ...telegramBotEnv(fake, simulator),
        LEADS_TELEGRAM_CHATS: String(sales.id),
        LEADS_POLL_INTERVAL: "2592000",
        CHATBOT_ANSWER_TIMEOUT_MS: "2592000000",
      },
      input: "",
      timeoutMs: 5_000,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^chatbot-bridge cannot start: /);
    expect(run.stderr).toContain("LEADS_POLL_INTERVAL must be at most 86400 (1 day)");
    expect(run.stderr).toContain("CHATBOT_ANSWER_TIMEOUT_MS must be at most 3600000 (1 hour)");
    expect(simulator.hits()).toBe(0);
  });
});

describe("a start that a setting stops", () => {
  it("DATA_DIR that is a file: the same one line, before anything else tries it", async () => {
    const file = join(await botWorkDir(), "not-a-folder");
    await writeFile(file, "");
    const line = await failsWithOneLine({ DATA_DIR: file }, "DATA_DIR");
    expect(line).toContain(file);
  });

  it("a PORT another process listens on: one line naming PORT", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    track(taken, (server) => new Promise((resolve) => server.close(resolve)));
    const port = String((taken.address() as AddressInfo).port);
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const line = await failsWithOneLine(
      { ...telegramBotEnv(fake, simulator), ...WEBHOOK, PORT: port, HOST: "127.0.0.1" },
      "PORT",
    );
    expect(line).toContain(`port ${port} is in use`);
  });

  it("a HOST that is no address of this machine: one line naming HOST", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const line = await failsWithOneLine(
      { ...telegramBotEnv(fake, simulator), ...WEBHOOK, HOST: "not-a-host.invalid" },
      "HOST",
    );
    expect(line).toContain("not-a-host.invalid");
  });

  it("a Slack token Slack does not know (invalid_auth): one line naming SLACK_BOT_TOKEN, no retry", async () => {
    const fake = track(await FakeSlack.start(), (f) => f.close());
    const line = await failsWithOneLine(
      {
        ...(await backend()),
        SLACK_BOT_TOKEN: "xoxb-not-the-right-one",
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: fake.apiUrl,
      },
      "SLACK_BOT_TOKEN",
    );
    expect(line).toContain("invalid_auth");
    expect(line).not.toContain("xoxb-not-the-right-one");
    expect(fake.callsTo("auth.test")).toHaveLength(1);
  });

  it("a Slack app token Slack does not know: one line naming SLACK_APP_TOKEN", async () => {
    const fake = track(await FakeSlack.start(), (f) => f.close());
    await failsWithOneLine(
      {
        ...(await backend()),
        SLACK_BOT_TOKEN: fake.options.botToken,
        SLACK_APP_TOKEN: "xapp-not-the-right-one",
        SLACK_API_URL: fake.apiUrl,
      },
      "SLACK_APP_TOKEN",
    );
  });

  it("a Telegram token Telegram does not know (401): one line naming TELEGRAM_BOT_TOKEN", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const line = await failsWithOneLine(
      { ...telegramBotEnv(fake, simulator), TELEGRAM_BOT_TOKEN: "1234:not-the-right-one" },
      "TELEGRAM_BOT_TOKEN",
    );
    expect(line).toContain("401");
    expect(line).not.toContain("not-the-right-one");
  });

  it("a webhook secret setWebhook refuses: one line naming TELEGRAM_WEBHOOK_SECRET", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    fake.failNext({
      method: "setWebhook",
      errorCode: 400,
      description: "Bad Request: secret token contains unallowed characters",
    });
    const line = await failsWithOneLine(
      { ...telegramBotEnv(fake, simulator), ...WEBHOOK },
      "TELEGRAM_WEBHOOK_SECRET",
    );
    expect(line).not.toContain(WEBHOOK.TELEGRAM_WEBHOOK_SECRET);
  });

  it("a webhook URL setWebhook refuses: one line naming TELEGRAM_WEBHOOK_URL", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    fake.failNext({
      method: "setWebhook",
      errorCode: 400,
      description: "Bad Request: bad webhook: Failed to resolve host: Name or service not known",
    });
    const line = await failsWithOneLine(
      { ...telegramBotEnv(fake, simulator), ...WEBHOOK },
      "TELEGRAM_WEBHOOK_URL",
    );
    expect(line).toContain("Failed to resolve host");
  });

  it.runIf(hasRedisServerBinary())(
    "a Redis password Redis refuses: one line naming STORE_URL, saying the cause once",
    async () => {
      const redis = track(await spawnRedisServer({ password: "the-right-one" }), (r) => r.close());
      const line = await failsWithOneLine(
        { ...(await backend()), STORE_URL: `redis://:the-wrong-one@127.0.0.1:${redis.port}` },
        "STORE_URL",
      );
      expect(line.match(/WRONGPASS/g)).toHaveLength(1);
      expect(line).not.toContain("the-wrong-one");
    },
  );

  it.runIf(hasRedisServerBinary())(
    "rediss:// to a Redis that does not speak TLS: one line naming STORE_URL, saying to use redis://",
    async () => {
      const redis = track(await spawnRedisServer(), (r) => r.close());
      const line = await failsWithOneLine(
        { ...(await backend()), STORE_URL: `rediss://127.0.0.1:${redis.port}` },
        "STORE_URL",
      );
      expect(line).toContain(`redis 127.0.0.1:${redis.port} (TLS)`);
      expect(line).toContain("does not speak TLS: use redis://");
    },
  );
});
