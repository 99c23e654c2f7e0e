import { afterAll, describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { FakeSlack } from "../support/fake-slack.ts";
import { viewMrkdwn } from "../support/fake-slack-view.ts";
import { startFakeTelegram } from "../support/fake-telegram.ts";
import {
  asked,
  CHANNELS,
  cardClaimedBySam,
  claimedBySam,
  deliver,
  labels,
  pressInSlack,
  pressInTelegram,
  salesInSlack,
  seen,
  slackCard,
  USERS,
  writeUnderCard,
} from "../support/handover-rig.ts";
import { httpOf, trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, slackBotEnv, telegramBotEnv } from "../support/process-test.ts";
import { startTestRedis } from "../support/redis.ts";
import { until } from "../support/run-bot.ts";
import { mention, message } from "../support/slack-harness.ts";

const track = cleanupAfterEach();
const redis = await startTestRedis("hand-overs, two processes");
afterAll(() => redis?.close());

describe("a seller talks with a lead's customer through the bot", () => {
  it("Slack sales, Telegram customer: Talk to them, both ways relayed, the chatbot not asked, Hand back, the same conversation", async () => {
    // The chatbot answers in Carl's chat only: #sales is no place for questions, and talking
    // there is none.
    const setUp = await salesInSlack(track, { ALLOWED_CHANNELS: "2001" });
    const { slack, telegram, simulator, events, carl, toCarl } = setUp;
    const card = await claimedBySam(setUp);
    expect(slackCard(slack, card).buttons).toEqual(["Release", "Talk to them"]);
    const [first] = asked(simulator);

    // Bob did not take the lead: he is told so, privately, and nothing opens.
    await pressInSlack(events, slack, card, "Talk to them", "UBOB");
    await until("Bob's refusal", () =>
      slack.ephemerals.find((e) => e.user === "UBOB" && e.text.includes("Only @sam")),
    );
    await pressInSlack(events, slack, card, "Talk to them", "USAM");
    await until("Carl told a person joined", () =>
      toCarl().find((text) => text.includes("@sam from our team has joined this chat")),
    );
    await until("the card says Sam talks", () =>
      slackCard(slack, card).status.includes("@sam is talking with them") ? true : undefined,
    );
    expect(slackCard(slack, card).buttons).toEqual(["Hand back"]);

    // Carl's next message goes under the card, not to the chatbot.
    const questions = asked(simulator).length;
    telegram.write({ chat: carl.id, from: carl, text: "are you a <b>person</b>?" });
    const relayed = await until("Carl's line under the card", () =>
      slack.thread("CSALES", card.ts).find((m) => m.text.includes("are you a")),
    );
    expect(seen(relayed)).toBe("💬 Carl: are you a <b>person</b>?");
    expect(viewMrkdwn(relayed.text).pings).toEqual([]);
    expect(asked(simulator)).toHaveLength(questions);

    // Sam answers in the card's thread: Carl reads it, and Sam sees it delivered.
    const ts = "1700000900.000100";
    await writeUnderCard(events, slack, card, { ts, user: "USAM" }, "Yes, I am *Sam*");
    await until("Sam's line in Carl's chat", () =>
      toCarl().find((text) => text === "@sam (Sales): Yes, I am *Sam*"),
    );
    await until("the ✅ on Sam's line", () =>
      slack.reactions.find((r) => r.ts === ts && r.name === "white_check_mark"),
    );
    // Bob writes there too: not his to say; Carl gets nothing of it.
    const bobTs = "1700000901.000100";
    await writeUnderCard(events, slack, card, { ts: bobTs, user: "UBOB" }, "hi from Bob");
    await until("Bob told privately", () =>
      slack.ephemerals.find(
        (e) => e.user === "UBOB" && e.text.includes("can talk with this customer"),
      ),
    );
    expect(toCarl().some((text) => text.includes("Bob"))).toBe(false);

    await pressInSlack(events, slack, card, "Hand back", "USAM");
    await until("Carl told the chatbot is back", () =>
      toCarl().find((text) => text === "The chatbot answers again in this chat."),
    );
    await until("the card says handed back", () =>
      slackCard(slack, card).status.includes("Handed back to the chatbot") ? true : undefined,
    );
    expect(slackCard(slack, card).buttons).toEqual(["Release", "Talk to them"]);

    // The chatbot answers again, in the same conversation, and never heard the hand-over.
    telegram.write({ chat: carl.id, from: carl, text: "and the price?" });
    await until("the chatbot's answer", () =>
      toCarl().find((text) => text.includes("and the price?")),
    );
    expect(asked(simulator).map((a) => a.q)).toEqual([
      "please call me back #lead",
      "and the price?",
    ]);
    const uid = asked(simulator).at(-1)?.conversationUid ?? "";
    expect(first?.conversationUid).toBeUndefined();
    expect(simulator.conversationTurns(uid)).toBe(2);
  });
});

describe("the other way round", () => {
  it("Telegram sales, Slack customer: the answer streaming is paused, replies to the card and to a relayed line reach the thread, an admin's handback ends it", async () => {
    const slack = track(await FakeSlack.start({ channels: CHANNELS, users: USERS }), (f) =>
      f.close(),
    );
    const telegram = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0, leads: 1 }), (s) => s.close());
    const sam = telegram.user(3001, "Sam", "sam_sells");
    const sales = telegram.addChat(
      { id: -1005, type: "supergroup", title: "Sales" },
      { [sam.id]: "member" },
    );
    const bot = trackedBot(track, {
      ...telegramBotEnv(telegram, simulator),
      ...slackBotEnv({ apiUrl: slack.apiUrl, botToken: slack.options.botToken }, simulator),
      LEADS_TELEGRAM_CHATS: String(sales.id),
      LEADS_POLL_INTERVAL: "3600",
      LEADS_AFTER_ANSWER_S: "1",
    });
    const events = `${await httpOf(bot)}/slack/events`;
    await bot.logLine("first lead poll: existing leads recorded as seen, not announced");
    const thread = "1700000700.000100";
    const inThread = () => slack.thread("C1", thread).map(seen);
    await deliver(events, mention("price for ten seats? #lead", { ts: thread }));
    const card = await until("the card in the Telegram group", () =>
      telegram.botMessages(sales.id).find((m) => m.text.startsWith("New lead")),
    );
    pressInTelegram(telegram, sales.id, card, "I'll take it", sam);
    await until("Talk to them", () =>
      labels(telegram, sales.id, card.message_id).includes("Talk to them") ? true : undefined,
    );

    // A second question streams, stuck half-way, when Sam takes the thread over.
    await deliver(
      events,
      message("and for twenty? #stall", { ts: "1700000701.000100", threadTs: thread }),
    );
    await until("the second answer streaming", () =>
      simulator.requests.filter((r) => r.chat).length === 2 ? true : undefined,
    );
    pressInTelegram(telegram, sales.id, card, "Talk to them", sam);
    await until("the answer paused for Sam", () =>
      inThread().find((text) => text.includes("⏹ paused: @sam_sells from Sales took over")),
    );
    await until("the thread told Sam joined", () =>
      inThread().find((text) => text.includes("@sam_sells from our team has joined this chat")),
    );
    await until("Hand back on the card", () =>
      labels(telegram, sales.id, card.message_id).includes("Hand back") ? true : undefined,
    );

    await deliver(
      events,
      message("is anyone there?", { ts: "1700000702.000100", threadTs: thread }),
    );
    const relayed = await until("the customer's line under the card", () =>
      telegram.botMessages(sales.id).find((m) => m.text.endsWith(": is anyone there?")),
    );
    expect(relayed.replyTo).toBe(card.message_id);
    const toCard = telegram.write({
      chat: sales.id,
      from: sam,
      text: "Hi, <i>Sam</i> here",
      replyTo: card.message_id,
    });
    await until("Sam's reply in the thread", () =>
      inThread().find((text) => text === "@sam_sells (Sales): Hi, <i>Sam</i> here"),
    );
    await until("👌 on Sam's reply", () =>
      telegram.reactions.find(
        (r) => r.messageId === toCard.message?.message_id && r.emoji === "👌",
      ),
    );
    telegram.write({
      chat: sales.id,
      from: sam,
      text: "Ten seats: 90 €",
      replyTo: relayed.message_id,
    });
    await until("Sam's reply to the relayed line", () =>
      inThread().find((text) => text === "@sam_sells (Sales): Ten seats: 90 €"),
    );
    expect(simulator.requests.filter((r) => r.chat)).toHaveLength(2);

    // Only an admin of the chat hands it back from there.
    await deliver(events, mention("handback", { ts: "1700000703.000100", threadTs: thread }));
    await until("the asker told only an admin may", () =>
      slack.ephemerals.find((e) => e.text.includes("Only an admin of this chat")),
    );
    await deliver(
      events,
      mention("handback", { ts: "1700000704.000100", threadTs: thread, user: "UADMIN" }),
    );
    await until("the thread told the chatbot is back", () =>
      inThread().find((text) => text === "The chatbot answers again in this chat."),
    );
    await until("the card offers Talk to them again", () =>
      labels(telegram, sales.id, card.message_id).includes("Talk to them") ? true : undefined,
    );
    expect(telegram.message(sales.id, card.message_id)?.text).toContain(
      "Handed back to the chatbot",
    );

    await deliver(events, message("thanks, bye", { ts: "1700000705.000100", threadTs: thread }));
    await until("the chatbot's answer", () =>
      simulator.requests.filter((r) => r.chat).length === 3 ? true : undefined,
    );
    const questions = simulator.requests.flatMap((r) => (r.chat ? [r.chat] : []));
    expect(questions.map((q) => q.q)).toEqual([
      "price for ten seats? #lead",
      "and for twenty? #stall",
      "thanks, bye",
    ]);
    expect(questions[2]?.conversationUid).toBe(questions[1]?.conversationUid);
    expect(await bot.stop()).toBe(0);
  });
});

describe.skipIf(!redis?.server)("on two processes sharing Redis, and across a restart", () => {
  it("a customer's message to the process that did not open the hand-over is relayed, never asked; a restart keeps it", async () => {
    const slack = track(await FakeSlack.start({ channels: CHANNELS, users: USERS }), (f) =>
      f.close(),
    );
    const simulator = track(await startSimulator({ chunkDelayMs: 0, leads: 1 }), (s) => s.close());
    const env = {
      ...slackBotEnv({ apiUrl: slack.apiUrl, botToken: slack.options.botToken }, simulator),
      STORE_URL: `${redis?.url}/12`,
      LEADS_SLACK_CHANNELS: "CSALES",
      LEADS_POLL_INTERVAL: "3600",
      LEADS_AFTER_ANSWER_S: "1",
    };
    const a = trackedBot(track, env);
    await a.logLine("first lead poll: existing leads recorded as seen, not announced");
    const b = trackedBot(track, env);
    const [atA, atB] = [`${await httpOf(a)}/slack/events`, `${await httpOf(b)}/slack/events`];
    const thread = "1700000800.000100";
    const inThread = () => slack.thread("C1", thread).map(seen);
    await deliver(atA, mention("call me back #lead", { ts: thread }));
    const card = await cardClaimedBySam(atA, slack);
    await pressInSlack(atA, slack, card, "Talk to them", "USAM");
    await until("the thread told Sam joined", () =>
      inThread().find((text) => text.includes("has joined this chat")),
    );

    await deliver(atB, message("hello?", { ts: "1700000801.000100", threadTs: thread }));
    await until("relayed by the other process", () =>
      slack.thread("CSALES", card.ts).find((m) => m.text.endsWith(": hello?")),
    );
    const sellerTs = "1700000802.000100";
    await writeUnderCard(atB, slack, card, { ts: sellerTs, user: "USAM" }, "hi, Sam here");
    await until("Sam's line in the thread", () =>
      inThread().find((text) => text === "@sam (Sales): hi, Sam here"),
    );
    expect(await a.stop()).toBe(0);
    expect(await b.stop()).toBe(0);

    // A new process on the same Redis: the thread is still Sam's.
    const c = trackedBot(track, env);
    const atC = `${await httpOf(c)}/slack/events`;
    await deliver(atC, message("still there?", { ts: "1700000803.000100", threadTs: thread }));
    await until("relayed after the restart", () =>
      slack.thread("CSALES", card.ts).find((m) => m.text.endsWith(": still there?")),
    );
    expect(simulator.requests.filter((r) => r.chat).map((r) => r.chat?.q)).toEqual([
      "call me back #lead",
    ]);
    await pressInSlack(atC, slack, card, "Hand back", "USAM");
    await until("the thread told the chatbot is back", () =>
      inThread().find((text) => text === "The chatbot answers again in this chat."),
    );
    expect(await c.stop()).toBe(0);
  });
});
