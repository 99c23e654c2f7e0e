import { describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { startFakeTelegram } from "../support/fake-telegram.ts";
import { httpOf, metricsWhen, trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";
import { until } from "../support/run-bot.ts";

const track = cleanupAfterEach();

/** The bot's /metrics once it holds `sample`. */
const metricsOnce = (url: string, sample: string) =>
  metricsWhen(url, (text) => text.includes(sample));

describe("the bot with a Telegram token", () => {
  it("answers over the Bot API, serves /healthz and /metrics, announces leads, and stops the orderly way", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0, leads: 3 }), (s) => s.close());
    const alice = fake.user(1001, "Alice", "alice_example");
    const dm = fake.addChat({ id: alice.id, type: "private", first_name: "Alice" });
    const sales = fake.addChat(
      { id: -1005, type: "supergroup", title: "Sales" },
      { [alice.id]: "member" },
    );
    const bot = trackedBot(track, {
      ...telegramBotEnv(fake, simulator),
      LEADS_TELEGRAM_CHATS: String(sales.id),
      LEADS_POLL_INTERVAL: "1",
    });
    const url = await httpOf(bot);
    await bot.logLine("first lead poll: existing leads recorded as seen, not announced");

    fake.write({ chat: dm.id, from: alice, text: "hello from Telegram" });
    const answer = await until("the answer", () =>
      fake.botMessages(dm.id).find((m) => m.text.includes("Put #docs")),
    );
    expect(answer.text).toContain("You asked: “hello from Telegram”");
    // TELEGRAM_RICH_MESSAGES unset: an HTML message, and no rich call at all.
    expect(answer.parseMode).toBe("HTML");
    expect(fake.calls.filter((c) => c.method.startsWith("sendRich"))).toEqual([]);

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    // Counted once the answer's journal record is gone, just after the fake saw its text.
    const counted = 'chatbot_bridge_questions_total{channel="telegram",outcome="complete"} 1';
    expect(await metricsOnce(url, counted)).toContain(counted);

    simulator.addLead({ name: "Process Lead", email: "lead@example.com" });
    const announcement = await until("the lead announcement", () =>
      fake.botMessages(sales.id).find((m) => m.text.includes("Process Lead")),
    );
    expect(announcement.text.startsWith("New lead\nName: Process Lead")).toBe(true);
    // The counters move once the post has been recorded as done, just after the fake saw it.
    // The series starts at 0: wait for the count itself.
    const afterPolls = await metricsOnce(url, 'leads_announced_total{channel="telegram"} 1');
    expect(afterPolls).toMatch(/chatbot_bridge_lead_polls_total\{outcome="ok"\} [1-9]/);
    expect(afterPolls).toMatch(/chatbot_bridge_leads_announced_total\{channel="telegram"\} 1/);
    expect(bot.stderr).not.toContain("Process Lead");
    expect(bot.stderr).not.toContain(fake.token);

    expect(await bot.stop()).toBe(0);
  });

  it("answers as rich messages with TELEGRAM_RICH_MESSAGES=on", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const alice = fake.user(1001, "Alice");
    const dm = fake.addChat({ id: alice.id, type: "private", first_name: "Alice" });
    const env = { ...telegramBotEnv(fake, simulator), TELEGRAM_RICH_MESSAGES: "on" };
    const bot = trackedBot(track, env);
    fake.write({ chat: dm.id, from: alice, text: "hello in rich" });
    const answer = await until("the answer", () =>
      fake.botMessages(dm.id).find((m) => m.text.includes("Put #docs")),
    );
    expect(answer.rich).toBeDefined();
    expect(fake.callsTo("sendRichMessage", dm.id).filter((c) => c.ok)).toHaveLength(1);
    expect(await bot.stop()).toBe(0);
  });
});
