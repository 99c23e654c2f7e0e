import { afterAll, describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { type FakeMessage, FakeSlack } from "../support/fake-slack.ts";
import { type FakeTelegram, startFakeTelegram } from "../support/fake-telegram.ts";
import { httpOf, type InProcessBot, trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, slackBotEnv, telegramBotEnv } from "../support/process-test.ts";
import { startTestRedis } from "../support/redis.ts";
import { until } from "../support/run-bot.ts";
import { blockActions, eventEnvelope, signedJsonHeaders } from "../support/slack-events.ts";
import { mention, message } from "../support/slack-harness.ts";

const track = cleanupAfterEach();
const redis = await startTestRedis("hand-overs, two processes");
afterAll(() => redis?.close());

const CHANNELS = {
  C1: { type: "channel", name: "support" },
  CSALES: { type: "channel", name: "sales" },
} as const;
const USERS = { USAM: { name: "Sam" }, UBOB: { name: "Bob" }, UADMIN: { isAdmin: true } };

/** Posts a Slack event or a press to a bot's events endpoint. */
async function deliver(events: string, body: Record<string, unknown>): Promise<void> {
  const press = body.type === "block_actions";
  const payload = press
    ? new URLSearchParams({ payload: JSON.stringify(body) }).toString()
    : JSON.stringify(eventEnvelope(body));
  const headers = {
    ...signedJsonHeaders(payload),
    ...(press ? { "content-type": "application/x-www-form-urlencoded" } : {}),
  };
  const response = await fetch(events, { method: "POST", headers, body: payload });
  expect(response.status).toBe(200);
}

/** What a Slack lead card shows: its status line and its buttons' labels. */
function slackCard(slack: FakeSlack, card: FakeMessage) {
  const status = (card.blocks ?? []).flatMap((block) => {
    const { type, elements } = block as { type: string; elements?: { text: string }[] };
    return type === "context" ? (elements ?? []).map((e) => e.text) : [];
  });
  return { status: status.join(" "), buttons: slack.buttonsOf(card).map((b) => b.label) };
}

/** Presses the button labelled `label` on a Slack card, as `user`. */
async function pressInSlack(
  events: string,
  slack: FakeSlack,
  card: FakeMessage,
  label: string,
  user: string,
) {
  const button = slack.buttonsOf(card).find((b) => b.label === label);
  if (!button)
    throw new Error(`no ${label} on the card: ${JSON.stringify(slackCard(slack, card))}`);
  await deliver(
    events,
    blockActions({
      actionId: button.actionId,
      value: button.value,
      user,
      username: user.slice(1).toLowerCase(),
      channel: card.channel,
      messageTs: card.ts,
    }),
  );
}

/** The questions the chatbot received, with the conversation each continued. */
function asked(simulator: {
  requests: readonly { chat?: { q: string; conversationUid?: string } | undefined }[];
}) {
  return simulator.requests.flatMap((r) =>
    r.chat ? [{ q: r.chat.q, conversationUid: r.chat.conversationUid }] : [],
  );
}

/** A bot on Telegram and Slack whose leads go to the Slack channel #sales. */
async function salesInSlack(env: Record<string, string> = {}) {
  const slack = track(await FakeSlack.start({ channels: CHANNELS, users: USERS }), (f) =>
    f.close(),
  );
  const telegram = track(await startFakeTelegram(), (f) => f.close());
  const simulator = track(await startSimulator({ chunkDelayMs: 0, leads: 1 }), (s) => s.close());
  const bot = trackedBot(track, {
    ...telegramBotEnv(telegram, simulator),
    ...slackBotEnv({ apiUrl: slack.apiUrl, botToken: slack.options.botToken }, simulator),
    LEADS_SLACK_CHANNELS: "CSALES",
    LEADS_POLL_INTERVAL: "3600",
    LEADS_AFTER_ANSWER_S: "1",
    ...env,
  });
  const events = `${await httpOf(bot)}/slack/events`;
  await bot.logLine("first lead poll: existing leads recorded as seen, not announced");
  const carl = telegram.user(2001, "Carl");
  telegram.addChat({ id: carl.id, type: "private", first_name: "Carl" });
  const toCarl = () => telegram.botMessages(carl.id).map((m) => m.text);
  return { slack, telegram, simulator, bot, events, carl, toCarl };
}

/** Carl leaves a lead in his private chat; Sam takes it on the card in #sales. */
async function claimedBySam(setUp: Awaited<ReturnType<typeof salesInSlack>>) {
  const { slack, telegram, events, carl } = setUp;
  telegram.write({ chat: carl.id, from: carl, text: "please call me back #lead" });
  const card = await until("the card in #sales", () =>
    [...slack.messages.values()].find((m) => m.channel === "CSALES" && m.byBot && !m.threadTs),
  );
  await pressInSlack(events, slack, card, "I'll take it", "USAM");
  await until("Talk to them on the claimed card", () =>
    slackCard(slack, card).buttons.includes("Talk to them") ? true : undefined,
  );
  return card;
}

describe("a seller talks with a lead's customer through the bot", () => {
  it("Slack sales, Telegram customer: Talk to them, both ways relayed, the chatbot not asked, Hand back, the same conversation", async () => {
    const setUp = await salesInSlack();
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
    expect(relayed.text).toBe("💬 Carl: are you a &lt;b&gt;person&lt;/b&gt;?");
    expect(asked(simulator)).toHaveLength(questions);

    // Sam answers in the card's thread: Carl reads it, and Sam sees it delivered.
    const ts = "1700000900.000100";
    slack.personWrote({ channel: "CSALES", ts, threadTs: card.ts, user: "USAM", text: "yes!" });
    await deliver(
      events,
      message("Yes, I am *Sam*", { ts, channel: "CSALES", threadTs: card.ts, user: "USAM" }),
    );
    await until("Sam's line in Carl's chat", () =>
      toCarl().find((text) => text === "@sam (Sales): Yes, I am *Sam*"),
    );
    await until("the ✅ on Sam's line", () =>
      slack.reactions.find((r) => r.ts === ts && r.name === "white_check_mark"),
    );
    // Bob writes there too: not his to say; Carl gets nothing of it.
    const bobTs = "1700000901.000100";
    slack.personWrote({
      channel: "CSALES",
      ts: bobTs,
      threadTs: card.ts,
      user: "UBOB",
      text: "hi",
    });
    await deliver(
      events,
      message("hi from Bob", { ts: bobTs, channel: "CSALES", threadTs: card.ts, user: "UBOB" }),
    );
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
