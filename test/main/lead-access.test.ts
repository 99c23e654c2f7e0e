import { describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { type FakeMessage, FakeSlack } from "../support/fake-slack.ts";
import {
  type FakeTelegram,
  type StoredMessage,
  startFakeTelegram,
} from "../support/fake-telegram.ts";
import { type InProcessBot, slackEventsOf, trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, slackBotEnv, telegramBotEnv } from "../support/process-test.ts";
import { until } from "../support/run-bot.ts";
import { blockActions, postSignedForm as post } from "../support/slack-events.ts";

const track = cleanupAfterEach();

const REFUSED = "Only the bot's admins can turn lead announcements on or off.";
const NOT_A_LEAD_CHANNEL =
  "Leads are shown only in lead channels. One of the bot's admins can make this one a lead channel with /leads subscribe.";
const GONE = "This lead can no longer be claimed here.";
/** A lead the backend had before the bots started: `/leads 90` would list it. */
const EARLIER = { name: "Earlier Lead", phone: "+1 555 0199", email: "earlier@example.com" };
const NEW = { name: "Dana Buyer", phone: "+1 555 0100", email: "dana@example.com" };

async function simulatorWithALead(): Promise<Simulator> {
  const simulator = track(await startSimulator({ chunkDelayMs: 0, leads: 0 }), (s) => s.close());
  simulator.addLead({ ...EARLIER, created_at: new Date(Date.now() - 3 * 24 * 60 * 60 * 1000) });
  return simulator;
}

/** A bot with `env` that polls for leads every second, once it recorded the leads it found. */
async function startLeadBot(env: Record<string, string>): Promise<InProcessBot> {
  const bot = trackedBot(track, { ...env, LEADS_POLL_INTERVAL: "1" });
  await bot.logLine("first lead poll: existing leads recorded as seen, not announced");
  return bot;
}

/** No lead's name, phone or e-mail in `text`. */
function expectNoLeadData(text: string): void {
  expect(text).not.toMatch(/Earlier Lead|555 0199|earlier@|Dana|555 0100|dana@/);
}

describe("who may get and take the company's leads, through a Telegram bot", () => {
  it("refuses a stranger's /leads subscribe in his DM and his own group, lists him nothing, and his presses take or free no lead", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = await simulatorWithALead();
    const ada = fake.user(1001, "Ada", "ada_admin");
    const sam = fake.user(1002, "Sam", "sam_seller");
    const mallory = fake.user(1666, "Mallory", "mallory");
    const sales = fake.addChat(
      { id: -1005, type: "supergroup", title: "Sales" },
      { [sam.id]: "member", [ada.id]: "member" },
    );
    const dm = fake.addChat({ id: mallory.id, type: "private", first_name: "Mallory" });
    // A group Mallory created: he is its creator, so Telegram calls him its admin.
    const own = fake.addChat(
      { id: -1666, type: "supergroup", title: "Mallory's" },
      { [mallory.id]: "creator", [ada.id]: "member" },
    );
    const bot = await startLeadBot({
      ...telegramBotEnv(fake, simulator),
      LEADS_TELEGRAM_CHATS: String(sales.id),
      TELEGRAM_ADMIN_USERS: String(ada.id),
    });
    const at = `@${fake.bot.username}`;
    const says = (chat: number, from: typeof ada, text: string) =>
      replyTo(fake, chat, () => fake.write({ chat, from, text }));

    expect(await says(dm.id, mallory, "/leads subscribe")).toBe(REFUSED);
    expect(await says(own.id, mallory, `/leads${at} subscribe`)).toBe(REFUSED);
    const listed = await says(dm.id, mallory, "/leads 90");
    expect(listed).toBe(NOT_A_LEAD_CHANNEL);

    // A bot admin may make Mallory's group a lead channel (he trusts who is in it, for now).
    expect(await says(own.id, ada, `/leads${at} subscribe`)).toBe(
      "This channel now gets every new lead.",
    );
    simulator.addLead(NEW);
    const card = await until("the lead in Sales", () => cardOf(fake, sales.id));
    const copy = await until("the lead in Mallory's group", () => cardOf(fake, own.id));
    expect(fake.botMessages(dm.id).some((m) => m.text.includes("Dana"))).toBe(false);

    expect(await press(fake, card, sam)).toBeUndefined();
    for (const shown of [card, copy]) {
      await until("Sam's claim on the cards", () =>
        claimLine(shown)?.startsWith("Claimed by @\u2060sam_seller"),
      );
    }
    // His group's creator is no admin of the leads: he cannot free Sam's lead.
    expect(await press(fake, copy, mallory)).toBe(
      "Only @sam_seller, who took this lead, can release it.",
    );
    expect(claimLine(card)).toMatch(/^Claimed by @\u2060sam_seller at /);

    // No longer a lead channel: the card there takes nothing.
    expect(await says(own.id, ada, `/leads${at} unsubscribe`)).toBe(
      "This channel no longer gets lead announcements.",
    );
    expect(await press(fake, card, sam)).toBeUndefined();
    await until("the lead free again", () => (claimLine(card) === undefined ? true : undefined));
    const claimData = dataOf(card);
    expect(await press(fake, copy, mallory, claimData)).toBe(GONE);
    // Nor does a press he makes up in his own chat, on any message of the bot there.
    const [anyMessage] = fake.botMessages(dm.id);
    if (!anyMessage) throw new Error("no bot message in the DM");
    expect(await press(fake, anyMessage, mallory, claimData)).toBe(GONE);
    expect(claimLine(card)).toBeUndefined();
    expect(dataOf(card)).toBe(claimData);

    for (const message of [...fake.botMessages(dm.id), ...fake.botMessages(own.id)]) {
      if (message.message_id !== copy.message_id) expectNoLeadData(message.text);
    }
    expectNoLeadData(bot.stderr + bot.stdout);
  });
});

describe("who may get and take the company's leads, through a Slack bot", () => {
  it("refuses a member's /leads subscribe in his DM and a channel, lists him nothing, and his presses take or free no lead", async () => {
    const fake = track(
      await FakeSlack.start({
        team: "T0FAKE",
        users: { USAM: {}, UMAL: {}, UBOSS: { isAdmin: true } },
        channels: { C1: { type: "channel" }, C2: { type: "channel" }, D0MAL: { type: "im" } },
      }),
      (f) => f.close(),
    );
    const simulator = await simulatorWithALead();
    const bot = await startLeadBot({
      ...slackBotEnv({ apiUrl: fake.apiUrl, botToken: fake.options.botToken }, simulator),
      LEADS_SLACK_CHANNELS: "C1",
    });
    const events = await slackEventsOf(bot);
    const command = async (user: string, channel: string, text: string) => {
      const before = fake.responses.length;
      const status = await post(events, {
        command: "/leads",
        text,
        team_id: "T0FAKE",
        channel_id: channel,
        user_id: user,
        user_name: user.toLowerCase(),
        api_app_id: "A0FAKE",
        trigger_id: `trigger-${Math.random()}`,
        response_url: fake.responseUrl(`leads-${before}`),
      });
      expect(status).toBe(200);
      return (await until("the /leads reply", () => fake.responses[before])).text;
    };

    expect(await command("UMAL", "D0MAL", "subscribe")).toBe(REFUSED);
    expect(await command("UMAL", "C9", "subscribe")).toBe(REFUSED);
    const listed = await command("UMAL", "D0MAL", "90");
    expect(listed).toBe(NOT_A_LEAD_CHANNEL);
    // A workspace admin may.
    expect(await command("UBOSS", "C2", "subscribe")).toBe("This channel now gets every new lead.");

    simulator.addLead(NEW);
    const card = await until("the lead in C1", () => slackCard(fake, "C1"));
    await until("the lead in C2", () => slackCard(fake, "C2"));
    const claim = fake.buttonsOf(card)[0];
    if (!claim) throw new Error("no button");
    const told = async (user: string, at: FakeMessage, channel: string) => {
      const before = fake.ephemerals.length;
      const button = fake.buttonsOf(at)[0] ?? claim;
      const payload = blockActions({
        actionId: button.actionId,
        value: button.value,
        user,
        username: user.toLowerCase(),
        channel,
        messageTs: at.ts,
      });
      expect(await post(events, { payload: JSON.stringify(payload) })).toBe(200);
      return until("the presser told", () => fake.ephemerals[before]?.text);
    };

    const samPress = blockActions({
      actionId: claim.actionId,
      value: claim.value,
      user: "USAM",
      username: "sam",
      messageTs: card.ts,
    });
    expect(await post(events, { payload: JSON.stringify(samPress) })).toBe(200);
    await until("Sam's claim", () => (card.updates >= 1 ? true : undefined));
    // The card may be drawn again once recorded (a claim pressed as it appeared), the same.
    const claimed = card.text;
    expect(await told("UMAL", card, "C1")).toBe("Only @sam, who took this lead, can release it.");
    // A press he makes up in his DM, naming the lead, takes nothing. Telling him is all a
    // press that takes or frees no lead does: the card shows what it did before.
    const dmMessage = { ...card, channel: "D0MAL", ts: "1700000000.000900" };
    expect(await told("UMAL", dmMessage, "D0MAL")).toBe(GONE);
    expect(card.text).toBe(claimed);

    for (const response of fake.responses) expectNoLeadData(response.text);
    expectNoLeadData(bot.stderr + bot.stdout);
  });
});

/** The bot's reply in `chat` to what `act` writes there (the first message after it). */
async function replyTo(fake: FakeTelegram, chat: number, act: () => void): Promise<string> {
  const before = fake.botMessages(chat).length;
  act();
  return (await until(`a reply in ${chat}`, () => fake.botMessages(chat)[before])).text;
}

/** The lead card in `chat`, once posted with its button. */
function cardOf(fake: FakeTelegram, chat: number): StoredMessage | undefined {
  return fake
    .botMessages(chat)
    .find((m) => m.text.includes("Dana Buyer") && (m.replyMarkup?.inline_keyboard.length ?? 0) > 0);
}

const dataOf = (card: StoredMessage) =>
  card.replyMarkup?.inline_keyboard[0]?.[0]?.callback_data ?? "";

/** The card's "Claimed by …" line, if it has one. */
const claimLine = (card: StoredMessage) =>
  card.text.split("\n").find((line) => line.startsWith("Claimed by"));

/** Presses a button under `message` (its own, or `data`); resolves with the alert, if any. */
async function press(
  fake: FakeTelegram,
  message: StoredMessage,
  from: StoredMessage["from"],
  data = dataOf(message),
): Promise<string | undefined> {
  const update = fake.press({ chat: message.chat.id, messageId: message.message_id, from, data });
  const id = update.callback_query.id as string;
  const answer = await until("the press answered", () =>
    fake.callbackAnswers.find((a) => a.queryId === id),
  );
  return answer.text;
}

function slackCard(fake: FakeSlack, channel: string): FakeMessage | undefined {
  return [...fake.messages.values()].find(
    (m) => m.channel === channel && fake.buttonsOf(m).length > 0,
  );
}
