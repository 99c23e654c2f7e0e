import { describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { FakeSlack } from "../support/fake-slack.ts";
import { startFakeTelegram } from "../support/fake-telegram.ts";
import { httpOf, trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, slackBotEnv, telegramBotEnv } from "../support/process-test.ts";
import { until } from "../support/run-bot.ts";
import { eventEnvelope, signedJsonHeaders } from "../support/slack-events.ts";
import { mention } from "../support/slack-harness.ts";

const track = cleanupAfterEach();

/**
 * One bot on Slack and Telegram whose leads go to a Slack channel and a Telegram group, each
 * card saying where its lead was captured; the lead poll runs a second after an answer.
 */
async function bothPlatforms() {
  const channels = {
    C1: { type: "channel", name: "support" },
    CSALES: { type: "channel", name: "sales" },
  } as const;
  const slack = track(await FakeSlack.start({ channels }), (f) => f.close());
  const telegram = track(await startFakeTelegram(), (f) => f.close());
  const simulator = track(await startSimulator({ chunkDelayMs: 0, leads: 1 }), (s) => s.close());
  const sales = telegram.addChat({ id: -1005, type: "supergroup", title: "Sales" });
  const bot = trackedBot(track, {
    ...telegramBotEnv(telegram, simulator),
    ...slackBotEnv({ apiUrl: slack.apiUrl, botToken: slack.options.botToken }, simulator),
    LEADS_SLACK_CHANNELS: "CSALES",
    LEADS_TELEGRAM_CHATS: String(sales.id),
    LEADS_POLL_INTERVAL: "3600",
    LEADS_AFTER_ANSWER_S: "1",
  });
  const events = `${await httpOf(bot)}/slack/events`;
  await bot.logLine("first lead poll: existing leads recorded as seen, not announced");
  /** The card of the lead named `name` in each lead channel, once both show it. */
  const cardsOf = (name: string) =>
    until(`${name}'s cards`, () => {
      const inTelegram = telegram
        .botMessages(sales.id)
        .find((m) => m.text.includes(`Name: ${name}`));
      const inSlack = [...slack.messages.values()].find(
        (m) => m.channel === "CSALES" && JSON.stringify(m.blocks).includes(name),
      );
      return inTelegram && inSlack
        ? { telegram: inTelegram, slack: JSON.stringify(inSlack.blocks) }
        : undefined;
    });
  const askInSlack = async (text: string, ts: string) => {
    const body = JSON.stringify(eventEnvelope(mention(text, { ts })));
    const response = await fetch(events, {
      method: "POST",
      headers: signedJsonHeaders(body),
      body,
    });
    expect(response.status).toBe(200);
  };
  return { slack, telegram, simulator, bot, cardsOf, askInSlack };
}

describe("a lead card says where its lead was captured", () => {
  it("in a private Telegram chat with its person, in a Telegram group with a link, in a Slack thread with a link, or outside the bot's chats", async () => {
    const { telegram, simulator, bot, cardsOf, askInSlack } = await bothPlatforms();

    // A private chat: the person's name, no link (Telegram has none to a private chat).
    const ann = telegram.user(2001, "Ann");
    telegram.addChat({ id: ann.id, type: "private", first_name: "Ann" });
    telegram.write({ chat: ann.id, from: ann, text: "call me back, please #lead" });
    const fromAnn = await cardsOf("Lead 2");
    expect(fromAnn.telegram.text).toContain("Captured: in a private Telegram chat with Ann");
    expect(fromAnn.telegram.raw).not.toContain('<a href="https');
    expect(fromAnn.slack).toContain("in a private Telegram chat with Ann");
    expect(fromAnn.slack).not.toContain(simulator.url);

    // A supergroup: its title, escaped, and a link to the message for its members.
    const bob = telegram.user(2002, "Bob");
    const team = telegram.addChat(
      { id: -1001234567, type: "supergroup", title: "Team <b>A</b>" },
      { [bob.id]: "member" },
    );
    const asked = telegram.write({
      chat: team.id,
      from: bob,
      text: "@ChatBridgeBot a quote for us #lead",
    });
    const fromTeam = await cardsOf("Lead 3");
    const link = `https://t.me/c/1234567/${asked.message?.message_id}`;
    expect(fromTeam.telegram.text).toContain("Captured: in the Telegram group Team <b>A</b>");
    expect(fromTeam.telegram.raw).toContain(
      `<a href="${link}">in the Telegram group Team &lt;b&gt;A&lt;/b&gt;</a>`,
    );
    expect(fromTeam.slack).toContain(`<${link}|in the Telegram group Team &lt;b&gt;A&lt;/b&gt;>`);

    // A lead the website's chatbot captured: no chat of this bot's.
    simulator.addLead({ name: "Web Visitor" });
    // A Slack thread: its channel, and the thread's link as Slack gives it.
    await askInSlack("can someone call me? #lead", "1700000700.000100");
    const fromSlack = await cardsOf("Lead 5");
    const permalink = "https://fake.slack.com/archives/C1/p1700000700000100";
    expect(fromSlack.telegram.raw).toContain(
      `<a href="${permalink}">in a Slack thread in #support</a>`,
    );
    expect(fromSlack.slack).toContain(`<${permalink}|in a Slack thread in #support>`);
    const fromWeb = await cardsOf("Web Visitor");
    expect(fromWeb.telegram.text).toContain("Captured: outside the chats this bot serves");
    expect(fromWeb.slack).toContain("outside the chats this bot serves");
    expect(await bot.stop()).toBe(0);
  });
});
