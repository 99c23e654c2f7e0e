import { describe, expect, it } from "vitest";
import { telegramWithHeldBackend } from "../support/held-backend.ts";
import { httpOf, trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";
import { until } from "../support/run-bot.ts";

const track = cleanupAfterEach();

describe("the bot with MAX_ACTIVE_ANSWERS and MAX_QUEUED_QUESTIONS", () => {
  it("answers one question at a time, tells the next its place and the one past the bound that the bot is busy, answers commands meanwhile, and stays healthy", async () => {
    const { fake, backend } = await telegramWithHeldBackend(track);
    const chats = [1001, 1002, 1003].map((id) => {
      const person = fake.user(id, `Person ${id}`);
      fake.addChat({ id, type: "private", first_name: person.first_name });
      return person;
    });
    const [alice, bob, carol] = chats as [(typeof chats)[0], (typeof chats)[0], (typeof chats)[0]];
    const bot = trackedBot(track, {
      ...telegramBotEnv(fake, backend),
      MAX_ACTIVE_ANSWERS: "1",
      MAX_QUEUED_QUESTIONS: "1",
      LEADS_POLL_INTERVAL: "0",
    });
    const url = await httpOf(bot);
    const shown = (chat: number) => fake.botMessages(chat).at(-1)?.text;

    fake.write({ chat: alice.id, from: alice, text: "q1" });
    await until("q1 answering", () => (backend.open === 1 ? true : undefined));
    fake.write({ chat: bob.id, from: bob, text: "q2" });
    await until("q2 in line", () =>
      shown(bob.id) === "⏳ many questions right now: yours is number 1 in line" ? true : undefined,
    );
    fake.write({ chat: carol.id, from: carol, text: "q3" });
    await until("q3 told the bot is busy", () =>
      shown(carol.id) === "⏳ The bot is busy right now: please try again in a minute."
        ? true
        : undefined,
    );
    // A command costs no answer: it does not wait for room.
    fake.write({ chat: alice.id, from: alice, text: "/help" });
    await until(
      "the /help reply",
      () =>
        fake.botMessages(alice.id).some((m) => m.text.startsWith("Ask me anything")) || undefined,
    );

    // Busy is not unhealthy: a load balancer must keep sending work here.
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/^chatbot_bridge_active_answers 1$/m);
    expect(metrics).toMatch(/^chatbot_bridge_queued_questions 1$/m);
    expect(metrics).toMatch(/^chatbot_bridge_questions_refused_total\{channel="telegram"\} 1$/m);
    expect(backend.asked).toEqual(["q1"]);

    backend.releaseAll();
    await until("q1 and q2 answered", () =>
      shown(bob.id) === "Answer to q2." &&
      fake.botMessages(alice.id).some((m) => m.text === "Answer to q1.")
        ? true
        : undefined,
    );
    expect(backend.asked).toEqual(["q1", "q2"]);
    expect(backend.mostOpen).toBe(1);
    expect(await bot.stop()).toBe(0);
  });
});
