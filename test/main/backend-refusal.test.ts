import { describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { startFakeTelegram } from "../support/fake-telegram.ts";
import { runBotInProcess, trackedBot } from "../support/in-process-bot.ts";
import { type BackendAddress, cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";
import { freePort } from "../support/redis.ts";
import { logEntries, until } from "../support/run-bot.ts";

const track = cleanupAfterEach();

/**
 * The terminal chat asking `input` of `chatbot`; it ends well (exit 0) whatever the chatbot
 * says. Returns what the person read and the error lines' words.
 */
async function askChatbot(
  chatbot: BackendAddress,
  input = "hello\n",
): Promise<{ stdout: string; stderr: string; errors: string[] }> {
  const run = await runBotInProcess({
    env: {
      CHATBOT_BASE_URL: chatbot.url,
      CHATBOT_API_KEY: chatbot.apiKey,
      CHATBOT_BOT_UID: chatbot.botUid,
    },
    input,
  });
  expect(run.code).toBe(0);
  const errors = logEntries(run.stderr).filter((entry) => entry.level >= 50);
  return { stdout: run.stdout, stderr: run.stderr, errors: errors.map((e) => e.msg) };
}

describe("a backend that refuses the bot's settings", () => {
  it("a rejected API key (401): the person sees why, the operator gets an error naming CHATBOT_API_KEY", async () => {
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const run = await askChatbot(
      { url: simulator.url, apiKey: "not-the-right-key", botUid: simulator.botUid },
      "hello\nagain\n",
    );
    // Each question is told why; the operator once, while the key stays rejected.
    expect(run.stdout.match(/the chatbot rejected the API key \(HTTP 401\)/g)).toHaveLength(2);
    expect(run.errors).toEqual([
      "the chatbot rejected the API key (HTTP 401): check CHATBOT_API_KEY",
    ]);
    expect(run.stderr).not.toContain("not-the-right-key");
  });

  it("an account without the paid plan (403): the operator gets an error naming the subscription", async () => {
    const simulator = track(await startSimulator({ chunkDelayMs: 0, paidPlan: false }), (s) =>
      s.close(),
    );
    const run = await askChatbot({
      url: simulator.url,
      apiKey: simulator.apiKey,
      botUid: simulator.botUid,
    });
    expect(run.stdout).toContain("HTTP 403");
    expect(run.errors).toEqual([
      "the chatbot refused the chat operation (HTTP 403): streaming chat needs a paid subscription on the chatbot's account",
    ]);
  });

  it("an unknown bot id (404): the operator gets an error naming CHATBOT_BASE_URL and CHATBOT_BOT_UID", async () => {
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const run = await askChatbot({
      url: simulator.url,
      apiKey: simulator.apiKey,
      botUid: "no-such-bot",
    });
    expect(run.stdout).toContain("the chatbot was not found (HTTP 404)");
    expect(run.errors).toEqual([
      "the chatbot was not found (HTTP 404): check CHATBOT_BASE_URL and CHATBOT_BOT_UID",
    ]);
  });

  it("a backend nothing answers at: the operator gets an error naming CHATBOT_BASE_URL and why", async () => {
    // A port nothing listens on: the connection is refused.
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = await askChatbot({ url, apiKey: "key", botUid: "bot" });
    expect(run.stdout).toContain("could not reach the chatbot");
    expect(run.errors).toEqual([
      "could not reach the chatbot (ECONNREFUSED): check CHATBOT_BASE_URL, and that the chatbot is up",
    ]);
  });

  it("a lead poll with a rejected API key: an error naming CHATBOT_API_KEY", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const bot = trackedBot(track, {
      ...telegramBotEnv(fake, simulator),
      CHATBOT_API_KEY: "not-the-right-key",
      LEADS_POLL_INTERVAL: "1",
    });
    const line = await bot.logLine({
      msg: "the chatbot rejected the API key (HTTP 401): check CHATBOT_API_KEY",
      call: "leads",
    });
    expect(line.level).toBe(50);
  });

  it("a chatbot refused for a while: one error line, however many questions and polls, until a call succeeds", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const alice = fake.user(1001, "Alice", "alice_example");
    const dm = fake.addChat({ id: alice.id, type: "private", first_name: "Alice" });
    const bot = trackedBot(track, { ...telegramBotEnv(fake, simulator), LEADS_POLL_INTERVAL: "1" });
    await bot.logLine("first lead poll: existing leads recorded as seen, not announced");
    const key = simulator.apiKey;
    const refusal = "the chatbot rejected the API key (HTTP 401): check CHATBOT_API_KEY";
    const errors = () => logEntries(bot.stderr).filter((entry) => entry.level >= 50);
    const replies = () => fake.botMessages(dm.id).map((m) => m.text);
    /** Alice asks; resolves with the bot's reply (its message once it no longer grows). */
    const ask = async (text: string, ending: RegExp) => {
      const before = replies().length;
      fake.write({ chat: dm.id, from: alice, text });
      return until(`the reply to “${text}”`, () =>
        replies()
          .slice(before)
          .find((r) => ending.test(r)),
      );
    };

    // The key is revoked: every question is told why, and the lead poll fails.
    simulator.setApiKey("another-key");
    for (const question of ["one", "two", "three"]) {
      expect(await ask(question, /HTTP 401/)).toBe("⚠️ the chatbot rejected the API key (HTTP 401)");
    }
    const refusedPolls = () =>
      simulator.requests.filter((r) => r.path.endsWith("/leads") && r.status === 401).length;
    await until("two refused lead polls", () => (refusedPolls() >= 2 ? true : undefined));
    expect(errors().map((e) => e.msg)).toEqual([refusal]);

    // The key works again: the next call that succeeds says so, once.
    simulator.setApiKey(key);
    expect(await ask("four", /Put #docs/)).toContain("You asked: “four”");
    const back = await bot.logLine("the chatbot accepts the bot's calls again");
    expect(back.level).toBe(30);

    // Refused anew: said anew.
    simulator.setApiKey("another-key");
    expect(await ask("five", /HTTP 401/)).toBe("⚠️ the chatbot rejected the API key (HTTP 401)");
    await until("the second error line", () => (errors().length === 2 ? true : undefined));
    expect(errors().map((e) => e.msg)).toEqual([refusal, refusal]);
    expect(bot.stderr).not.toContain("another-key");
  });
});
