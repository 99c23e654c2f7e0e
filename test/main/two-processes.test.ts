import { afterAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { type FakeTelegram, startFakeTelegram, type Update } from "../support/fake-telegram.ts";
import { cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";
import { startTestRedis } from "../support/redis.ts";
import { botWorkDir, type RunningBot, startBot, until } from "../support/run-bot.ts";

const redis = await startTestRedis("two bot processes on Redis");
afterAll(() => redis?.close());
// The bots use the default key prefix, so they need a Redis of their own, not a shared one.
const ownRedis = redis?.server !== undefined;
if (redis && !ownRedis) console.warn("[two bot processes] skipped: no redis-server of its own");

const SECRET = "two-process-secret";

const track = cleanupAfterEach();

/** A bot process in webhook mode on a port of its own; all of them share one Redis. */
async function startWebhookBot(
  fake: FakeTelegram,
  simulator: Simulator,
): Promise<{ bot: RunningBot; webhook: string }> {
  const env = {
    ...telegramBotEnv(fake, simulator),
    TELEGRAM_WEBHOOK_URL: "https://bot.example.com/telegram/webhook",
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    STORE_URL: `${redis?.url}/5`,
    LEADS_POLL_INTERVAL: "0",
  };
  const bot = track(startBot({ cwd: await botWorkDir(), env }), (b) => b.stop("SIGKILL"));
  const { port } = await bot.logLine("HTTP server listening (/healthz, /metrics)");
  await bot.logLine("channel started");
  return { bot, webhook: `http://127.0.0.1:${port}/telegram/webhook` };
}

async function deliver(webhook: string, update: Update): Promise<number> {
  const response = await fetch(webhook, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
    body: JSON.stringify(update),
  });
  await response.arrayBuffer();
  return response.status;
}

describe.skipIf(!ownRedis)("two bot processes behind one load balancer, on one Redis", () => {
  it("answer a delivery that reached both once, and one thread's questions in order", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 2 }), (s) => s.close());
    const alice = fake.user(1001, "Alice", "alice_example");
    const dm = fake.addChat({ id: alice.id, type: "private", first_name: "Alice" });
    const [a, b] = [await startWebhookBot(fake, simulator), await startWebhookBot(fake, simulator)];

    // A re-delivery that the load balancer sent to the other process.
    const first = fake.compose({ chat: dm.id, from: alice, text: "first question" });
    expect(await deliver(a.webhook, first)).toBe(200);
    expect(await deliver(b.webhook, first)).toBe(200);
    // The next question in the same chat lands on the other process while the first streams.
    const second = fake.compose({ chat: dm.id, from: alice, text: "second question" });
    expect(await deliver(b.webhook, second)).toBe(200);

    const answers = await until("both answers", () => {
      const done = fake.botMessages(dm.id).filter((m) => m.text.includes("to see more."));
      return done && done.length >= 2 ? done : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const all = fake.botMessages(dm.id).filter((m) => m.text.includes("You asked"));
    expect(all).toHaveLength(2);
    expect(answers[0]?.text).toContain("You asked: “first question”");
    expect(answers[1]?.text).toContain("You asked: “second question”");
    expect(answers[1]?.text).toContain("This is question 2 in our conversation.");
    const chats = simulator.requests.filter((r) => r.route === "chat");
    expect(chats).toHaveLength(2);
  });
});
