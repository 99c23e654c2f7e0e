import { describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { FakeSlack } from "../support/fake-slack.ts";
import {
  CHANNELS,
  cardClaimedBySam,
  claimedBySam,
  deliver,
  pressInSlack,
  salesInSlack,
  seen,
  slackCard,
  USERS,
  writeUnderCard,
} from "../support/handover-rig.ts";
import { httpOf, trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, slackBotEnv } from "../support/process-test.ts";
import { until } from "../support/run-bot.ts";
import { blockActions } from "../support/slack-events.ts";
import { message } from "../support/slack-harness.ts";

const track = cleanupAfterEach();

describe("what ends a hand-over, and what it covers", () => {
  it("ends when its lead is released: the chatbot answers the customer again", async () => {
    const setUp = await salesInSlack(track);
    const { slack, telegram, events, carl, toCarl } = setUp;
    const card = await claimedBySam(setUp);
    await pressInSlack(events, slack, card, "Talk to them", "USAM");
    await until("Hand back on the card", () =>
      slackCard(slack, card).buttons.includes("Hand back") ? true : undefined,
    );
    // A card drawn before the hand-over still shows Release: its press ends both.
    await deliver(
      events,
      blockActions({
        actionId: "lead.release:0",
        value: slack.buttonsOf(card)[0]?.value ?? "",
        user: "USAM",
        username: "sam",
        channel: card.channel,
        messageTs: card.ts,
      }),
    );
    await until("Carl told the chatbot is back", () =>
      toCarl().find((text) => text === "The chatbot answers again in this chat."),
    );
    await until("the card free again", () =>
      slackCard(slack, card).buttons.join() === "I'll take it" ? true : undefined,
    );
    telegram.write({ chat: carl.id, from: carl, text: "hello again" });
    await until("the chatbot's answer", () =>
      toCarl().find((text) => text.includes("hello again")),
    );
  });

  it("covers the whole of a Slack DM: a new message there, a thread of its own, goes under the card too", async () => {
    const channels = { ...CHANNELS, D1: { type: "im" } } as const;
    const slack = track(await FakeSlack.start({ channels, users: USERS }), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0, leads: 1 }), (s) => s.close());
    const bot = trackedBot(track, {
      ...slackBotEnv({ apiUrl: slack.apiUrl, botToken: slack.options.botToken }, simulator),
      LEADS_SLACK_CHANNELS: "CSALES",
      LEADS_POLL_INTERVAL: "3600",
      LEADS_AFTER_ANSWER_S: "1",
    });
    const events = `${await httpOf(bot)}/slack/events`;
    await bot.logLine("first lead poll: existing leads recorded as seen, not announced");
    const first = "1700000600.000100";
    await deliver(events, message("call me back #lead", { ts: first, channel: "D1" }));
    const card = await cardClaimedBySam(events, slack);
    await pressInSlack(events, slack, card, "Talk to them", "USAM");
    const inFirst = () => slack.thread("D1", first).map(seen);
    await until("the DM told Sam joined", () =>
      inFirst().find((text) => text.includes("has joined this chat")),
    );

    await deliver(events, message("anyone?", { ts: "1700000601.000100", channel: "D1" }));
    await until("the new DM message under the card", () =>
      slack.thread("CSALES", card.ts).find((m) => m.text.endsWith(": anyone?")),
    );
    await writeUnderCard(events, slack, card, { ts: "1700000602.000100", user: "USAM" }, "Yes!");
    await until("Sam's line in the DM", () =>
      inFirst().find((text) => text === "@sam (Sales): Yes!"),
    );
    expect(simulator.requests.filter((r) => r.chat).map((r) => r.chat?.q)).toEqual([
      "call me back #lead",
    ]);
    await pressInSlack(events, slack, card, "Hand back", "USAM");
    await until("the DM told the chatbot is back", () =>
      inFirst().find((text) => text === "The chatbot answers again in this chat."),
    );
    await deliver(events, message("a question", { ts: "1700000603.000100", channel: "D1" }));
    await until("the chatbot asked again", () =>
      simulator.requests.filter((r) => r.chat).length === 2 ? true : undefined,
    );
  });

  it("tells the seller privately why a line did not reach the customer, and marks it not delivered", async () => {
    const setUp = await salesInSlack(track);
    const { slack, telegram, events, carl, toCarl } = setUp;
    const card = await claimedBySam(setUp);
    await pressInSlack(events, slack, card, "Talk to them", "USAM");
    await until("Carl told a person joined", () =>
      toCarl().find((text) => text.includes("has joined this chat")),
    );
    telegram.failNext({
      method: "sendMessage",
      chatId: carl.id,
      errorCode: 403,
      description: "Forbidden: bot was blocked by the user",
    });
    const ts = "1700000950.000100";
    await writeUnderCard(events, slack, card, { ts, user: "USAM" }, "are you there?");
    await until("Sam told privately", () =>
      slack.ephemerals.find(
        (e) => e.user === "USAM" && e.text.startsWith("Not delivered: Telegram refused"),
      ),
    );
    expect(slack.reactions.filter((r) => r.ts === ts)).toEqual([]);
    expect(toCarl().some((text) => text.includes("are you there?"))).toBe(false);
  });

  it("ends when nothing can go under its card any more (the bot removed from #sales): the chatbot answers", async () => {
    const setUp = await salesInSlack(track);
    const { slack, telegram, events, carl, toCarl } = setUp;
    const card = await claimedBySam(setUp);
    await pressInSlack(events, slack, card, "Talk to them", "USAM");
    await until("Carl told a person joined", () =>
      toCarl().find((text) => text.includes("has joined this chat")),
    );
    slack.failNext("chat.postMessage", "not_in_channel");
    telegram.write({ chat: carl.id, from: carl, text: "hello?" });
    await until("Carl told the chatbot is back", () =>
      toCarl().find((text) => text === "The chatbot answers again in this chat."),
    );
    await until("his message answered by the chatbot", () =>
      toCarl().find((text) => text.includes("You asked: “hello?”")),
    );
    await setUp.bot.logLine({ msg: "a hand-over ended", why: "the card cannot be reached" });
  });

  it("ends after HANDOVER_IDLE_MINUTES without a message either way: the customer and the card are told", async () => {
    const setUp = await salesInSlack(track, {}, (config) => {
      config.leads.handoverIdleMs = 1_500;
    });
    const { slack, events, toCarl } = setUp;
    const card = await claimedBySam(setUp);
    await pressInSlack(events, slack, card, "Talk to them", "USAM");
    await until("Carl told a person joined", () =>
      toCarl().find((text) => text.includes("has joined this chat")),
    );
    await until("Carl told the chatbot is back", () =>
      toCarl().find((text) => text === "The chatbot answers again in this chat."),
    );
    await until("the card says handed back", () =>
      slackCard(slack, card).status.includes("Handed back to the chatbot") ? true : undefined,
    );
    await setUp.bot.logLine({ msg: "a hand-over ended", why: "idle" });
  });
});
