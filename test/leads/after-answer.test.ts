import { afterAll, describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { FakeSlack } from "../support/fake-slack.ts";
import { startFakeTelegram } from "../support/fake-telegram.ts";
import { httpOf, trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, slackBotEnv, telegramBotEnv } from "../support/process-test.ts";
import { startTestRedis } from "../support/redis.ts";
import { until } from "../support/run-bot.ts";
import { eventEnvelope, signedJsonHeaders } from "../support/slack-events.ts";
import { mention } from "../support/slack-harness.ts";

const track = cleanupAfterEach();
const redis = await startTestRedis("leads after an answer, two processes");
afterAll(() => redis?.close());

/** A Telegram bot whose lead poll runs hourly, and again a second after an answer. */
async function leadsSetUp(env: Record<string, string> = {}) {
  const fake = track(await startFakeTelegram(), (f) => f.close());
  const simulator = track(await startSimulator({ chunkDelayMs: 0, leads: 2 }), (s) => s.close());
  const sales = fake.addChat({ id: -1005, type: "supergroup", title: "Sales" });
  const bot = trackedBot(track, {
    ...telegramBotEnv(fake, simulator),
    LEADS_TELEGRAM_CHATS: String(sales.id),
    LEADS_POLL_INTERVAL: "3600",
    LEADS_AFTER_ANSWER_S: "1",
    LOG_LEVEL: "debug",
    ...env,
  });
  await bot.logLine("first lead poll: existing leads recorded as seen, not announced");
  const leadPolls = () => simulator.hits(`/api/v1/backend/chatbot/${simulator.botUid}/leads`);
  /** A person who writes to the bot in a private chat (its id is theirs). */
  const customer = (id: number, name: string) => {
    const person = fake.user(id, name);
    fake.addChat({ id: person.id, type: "private", first_name: name });
    return person;
  };
  const cards = () => fake.botMessages(sales.id).filter((m) => m.text.startsWith("New lead"));
  return { fake, simulator, bot, leadPolls, customer, cards };
}

describe("leads captured in a conversation the bot carried", () => {
  it("are announced within LEADS_AFTER_ANSWER_S of the answer, long before the next poll", async () => {
    const { fake, bot, leadPolls, customer, cards } = await leadsSetUp();
    const ann = customer(2001, "Ann");
    expect(leadPolls()).toBe(1);

    fake.write({ chat: ann.id, from: ann, text: "please call me back #lead" });
    await until("the answer", () =>
      fake.botMessages(ann.id).find((m) => m.text.includes("please call me back")),
    );
    const [card] = await until("the lead's card", () => (cards().length > 0 ? cards() : undefined));
    expect(card?.text).toContain("Name:");
    expect(cards()).toHaveLength(1);
    // One poll at the start, one after the answer: the hourly one is an hour away.
    expect(leadPolls()).toBe(2);
    expect(bot.logs.filter((l) => l.msg === "lead poll after an answer")).toHaveLength(1);
    expect(await bot.stop()).toBe(0);
  });

  it("answers ending together share one poll", async () => {
    const { fake, bot, leadPolls, customer, cards } = await leadsSetUp();
    const people = [customer(2001, "Ann"), customer(2002, "Bob"), customer(2003, "Cem")];
    for (const person of people) {
      fake.write({ chat: person.id, from: person, text: `${person.first_name} here #lead` });
    }
    await until("three cards", () => (cards().length === 3 ? true : undefined));
    // The orderly stop waits for a poll under way: a second one would have come by then.
    expect(await bot.stop()).toBe(0);
    expect(leadPolls()).toBe(2);
  });
});

// LEADS_AFTER_ANSWER_S's default (10 s, test/config.test.ts) is the poll's interval: the
// test takes 1 s of it, as the others, so that the suite does not wait out ten.
describe("with the default LEADS_POLL_INTERVAL (300 s)", () => {
  it("a lead captured in a Telegram private chat is on the Slack lead channel within 15 s of the answer", async () => {
    const channels = { C1: { type: "channel" }, CSALES: { type: "channel" } } as const;
    const slack = track(await FakeSlack.start({ channels }), (f) => f.close());
    const telegram = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0, leads: 1 }), (s) => s.close());
    const bot = trackedBot(track, {
      ...telegramBotEnv(telegram, simulator),
      ...slackBotEnv({ apiUrl: slack.apiUrl, botToken: slack.options.botToken }, simulator),
      LEADS_SLACK_CHANNELS: "CSALES",
      // The default, which slackBotEnv turns off.
      LEADS_POLL_INTERVAL: "300",
      LEADS_AFTER_ANSWER_S: "1",
    });
    await bot.logLine("first lead poll: existing leads recorded as seen, not announced");
    const ann = telegram.user(2001, "Ann");
    telegram.addChat({ id: ann.id, type: "private", first_name: "Ann" });
    telegram.write({ chat: ann.id, from: ann, text: "please call me back #lead" });
    await bot.logLine("question answered");
    const card = await until(
      "the lead's card in Slack",
      () => [...slack.messages.values()].find((m) => m.channel === "CSALES" && m.byBot),
      15_000,
    );
    expect(JSON.stringify(card.blocks)).toContain("in a private Telegram chat with Ann");
    expect(await bot.stop()).toBe(0);
  }, 30_000);
});

describe.skipIf(!redis?.server)("two processes on one Redis", () => {
  it("a lead captured in an answer of the process that does not poll is announced by the one that does, in seconds", async () => {
    const channels = { C1: { type: "channel" }, CSALES: { type: "channel" } } as const;
    const fake = track(await FakeSlack.start({ channels }), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0, leads: 2 }), (s) => s.close());
    const env = {
      ...slackBotEnv({ apiUrl: fake.apiUrl, botToken: fake.options.botToken }, simulator),
      STORE_URL: `${redis?.url}/11`,
      LEADS_SLACK_CHANNELS: "CSALES",
      LEADS_POLL_INTERVAL: "3600",
      LEADS_AFTER_ANSWER_S: "1",
      LOG_LEVEL: "debug",
    };
    // The first to start takes the poll; the other answers the question.
    const poller = trackedBot(track, env);
    await poller.logLine("first lead poll: existing leads recorded as seen, not announced");
    const other = trackedBot(track, env);
    const events = `${await httpOf(other)}/slack/events`;
    const body = JSON.stringify(
      eventEnvelope(mention("call me back #lead", { ts: "1700000600.000100" })),
    );
    const response = await fetch(events, {
      method: "POST",
      headers: signedJsonHeaders(body),
      body,
    });
    expect(response.status).toBe(200);

    const card = await until("the lead's card", () =>
      [...fake.messages.values()].find((m) => m.channel === "CSALES" && m.byBot),
    );
    expect(card.text).toContain("New lead");
    expect(other.logs.some((l) => l.msg === "question answered")).toBe(true);
    expect(poller.logs.filter((l) => l.msg === "lead poll after an answer")).toHaveLength(1);
    expect(other.logs.some((l) => l.msg === "lead poll after an answer")).toBe(false);
    expect(simulator.hits(`/api/v1/backend/chatbot/${simulator.botUid}/leads`)).toBe(2);
    expect(await other.stop()).toBe(0);
    expect(await poller.stop()).toBe(0);
  });
});
