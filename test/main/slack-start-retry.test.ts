import { describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { FakeSlack } from "../support/fake-slack.ts";
import { isRunning, trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, slackBotEnv } from "../support/process-test.ts";
import { freePort } from "../support/redis.ts";
import { logEntries } from "../support/run-bot.ts";

const track = cleanupAfterEach();

describe("Slack's start-up", () => {
  it("rides out a Slack API that is briefly unreachable, instead of ending the bot", async () => {
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    // Nothing listens here yet: Slack's API is down when the bot starts.
    const port = await freePort();
    const bot = trackedBot(
      track,
      slackBotEnv(
        { apiUrl: `http://127.0.0.1:${port}/api/`, botToken: "xoxb-fake-bot-token" },
        simulator,
      ),
    );
    const retrying = await bot.logLine("Slack auth.test failed; retrying");
    expect(retrying.level).toBe(40);

    // Slack is back before the next attempt (a second later at the earliest).
    const fake = track(await FakeSlack.start({ port }), (f) => f.close());
    const started = await bot.logLine("channel started");
    expect(fake.callsTo("auth.test").map((c) => c.outcome)).toEqual(["ok"]);
    // One line says the channel is up, with what the operator checks of it.
    expect(started).toMatchObject({ channel: "slack", mode: "http", bot: expect.any(String) });
    expect(bot.stderr.match(/started"/g)).toHaveLength(1);
    // Each failed try is said once, by the bot, with its reason: not again by Slack's client.
    const warnings = logEntries(bot.stderr).filter((entry) => entry.level >= 40);
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings.map((w) => w.msg)).toEqual(
      warnings.map(() => "Slack auth.test failed; retrying"),
    );
    expect(await isRunning(bot)).toBe(true);
  });

  it("stops at once, exit 0, when asked to while it waits to try Slack again", async () => {
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const port = await freePort();
    const bot = trackedBot(
      track,
      slackBotEnv(
        { apiUrl: `http://127.0.0.1:${port}/api/`, botToken: "xoxb-fake-bot-token" },
        simulator,
      ),
    );
    await bot.logLine("Slack auth.test failed; retrying");
    const asked = performance.now();
    expect(await bot.stop()).toBe(0);
    // Well before the retries would have run out (1 + 2 + 4 + 8 s).
    expect(performance.now() - asked).toBeLessThan(5_000);
    expect(bot.stderr).not.toMatch(/"level":60/);
  });

  it("tries a Slack that reports its own trouble (internal_error) again", async () => {
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const fake = track(await FakeSlack.start(), (f) => f.close());
    fake.failNext("auth.test", "internal_error");
    const bot = trackedBot(
      track,
      slackBotEnv({ apiUrl: fake.apiUrl, botToken: fake.options.botToken }, simulator),
    );
    await bot.logLine("channel started");
    expect(fake.callsTo("auth.test").map((c) => c.outcome)).toEqual(["internal_error", "ok"]);
  });
});
