import { afterEach, describe, expect, it } from "vitest";
import { telegramRenderer } from "../../adapters/telegram/render.ts";
import { startSimulator } from "../../src/simulator/index.ts";
import { OPEN_BRIDGE } from "../support/bridge-harness.ts";
import { type RecordedCall, startFakeTelegram } from "../support/fake-telegram.ts";
import { trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";
import { until as waitFor } from "../support/run-bot.ts";
import { answered, firstAnswer, openWebhook, type Rig, startRig, until } from "./rig.ts";

const track = cleanupAfterEach();
let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const BUSINESS = { business: { quietMs: 60_000 } };

/** The chat questions the chatbot received, in order. */
const questions = (r: Rig) =>
  r.harness.simulator.requests.filter((q) => q.route === "chat").map((q) => q.chat);

/** The bot's calls that wrote to, or showed typing in, `chatId`. */
function writesTo(r: Rig, chatId: number): RecordedCall[] {
  return r.fake.calls.filter(
    (c) =>
      ["sendMessage", "sendRichMessage", "editMessageText", "sendChatAction"].includes(c.method) &&
      Number(c.params.chat_id) === chatId,
  );
}

describe("Telegram Business (TELEGRAM_BUSINESS=on)", () => {
  it("answers a customer of a connected account on its behalf, growing by edits, the connection named on every call", async () => {
    rig = await startRig({
      simulator: { chunkDelayMs: 4, chunkChars: [4, 12] },
      channel: { ...BUSINESS, drafts: true },
    });
    const { fake, alice, bob } = rig;
    // Bob's account connects the bot; Alice writes to Bob's account, not to the bot.
    const connection = fake.business.connect({ owner: bob });
    const question = "What can you do?";
    await answered(rig, fake.business.customerWrites({ connection, from: alice, text: question }));

    const [answer, ...more] = fake.business.botMessages(connection, alice.id);
    expect(more).toHaveLength(0);
    expect(answer?.raw).toBe(telegramRenderer.render(firstAnswer(question)));
    // It grew in place, by edits of the one message.
    expect(answer?.history.length).toBeGreaterThan(2);
    // No buttons on the company's message, and no draft: Telegram has none on an account's behalf.
    expect(answer?.hasKeyboard).toBe(false);
    expect(fake.callsTo("sendMessageDraft")).toHaveLength(0);
    const calls = writesTo(rig, alice.id);
    expect(calls.some((c) => c.method === "sendChatAction")).toBe(true);
    expect(calls.every((c) => c.params.business_connection_id === connection && c.ok)).toBe(true);
    // One conversation for the chat: the follow-up goes on in it.
    await answered(rig, fake.business.customerWrites({ connection, from: alice, text: "And?" }));
    const [first, second] = questions(rig);
    expect(first?.conversationUid).toBeUndefined();
    expect(second?.conversationUid).toEqual(expect.any(String));
    expect(fake.allowedUpdates).toEqual(expect.arrayContaining(["business_message"]));
  });

  it("stops an answer when the owner writes mid-answer, and stays quiet in that chat only", async () => {
    rig = await startRig({
      simulator: { chunkDelayMs: 4, chunkChars: [20, 40] },
      channel: BUSINESS,
    });
    const { fake, alice, bob, carol } = rig;
    const connection = fake.business.connect({ owner: bob });
    fake.business.customerWrites({ connection, from: alice, text: "Tell me all #pause=5000" });
    await until(
      () => fake.business.botMessages(connection, alice.id).length === 1,
      5_000,
      "the answer's first text",
    );
    const owner = fake.business.ownerWrites({
      connection,
      customer: alice,
      text: "Hi Alice, Bob here: let me answer that myself.",
    });
    await answered(rig, owner);
    const [answer] = fake.business.botMessages(connection, alice.id);
    expect(answer?.text).toMatch(/⏹ stopped$/);
    const shownWhenStopped = answer?.history.length;
    // The owner's words never went to the chatbot.
    expect(questions(rig).map((q) => q?.q)).toEqual(["Tell me all #pause=5000"]);

    // Alice writes again: the owner has the chat, the chatbot stays out of it.
    await answered(
      rig,
      fake.business.customerWrites({ connection, from: alice, text: "Are you there?" }),
    );
    expect(fake.business.botMessages(connection, alice.id)).toHaveLength(1);
    expect(answer?.history.length).toBe(shownWhenStopped);
    // Carol's chat with the same account is still answered.
    await answered(rig, fake.business.customerWrites({ connection, from: carol, text: "Hello" }));
    expect(fake.business.botMessages(connection, carol.id)).toHaveLength(1);
    expect(questions(rig).map((q) => q?.q)).toEqual(["Tell me all #pause=5000", "Hello"]);

    // The owner hands Alice's chat back before the quiet time is over: the chatbot answers again.
    const bobsChat = fake.addChat({ id: bob.id, type: "private", first_name: "Bob" });
    await answered(
      rig,
      fake.business.ownerWrites({ connection, customer: alice, text: "/handback" }),
    );
    expect(fake.botMessages(bobsChat.id).map((m) => m.text)).toEqual([
      "The chatbot answers again in this chat.",
    ]);
    await answered(rig, fake.business.customerWrites({ connection, from: alice, text: "Thanks" }));
    expect(fake.business.botMessages(connection, alice.id)).toHaveLength(2);
  });

  it("leaves unanswered a question that waited behind the answer the owner stopped, and is not silenced by the account's greeting", async () => {
    rig = await startRig({
      simulator: { chunkDelayMs: 4, chunkChars: [20, 40] },
      channel: BUSINESS,
    });
    const { fake, alice, bob, carol } = rig;
    const connection = fake.business.connect({ owner: bob });
    // The account's greeting goes out by itself: not the owner writing.
    fake.business.ownerWrites({
      connection,
      customer: carol,
      text: "Welcome to Bob's shop!",
      offline: true,
    });
    await answered(rig, fake.business.customerWrites({ connection, from: carol, text: "Hi" }));
    expect(fake.business.botMessages(connection, carol.id)).toHaveLength(1);

    fake.business.customerWrites({ connection, from: alice, text: "First #pause=5000" });
    fake.business.customerWrites({ connection, from: alice, text: "Second" });
    await until(
      () => fake.business.botMessages(connection, alice.id).length === 1,
      5_000,
      "the first answer's text",
    );
    await answered(
      rig,
      fake.business.ownerWrites({ connection, customer: alice, text: "Bob here." }),
    );
    // The second question's turn came after the owner took the chat: it is not answered.
    expect(fake.business.botMessages(connection, alice.id)).toHaveLength(1);
    expect(questions(rig).map((q) => q?.q)).toEqual(["Hi", "First #pause=5000"]);
  });

  it("says nothing to a customer the bot refuses (an allowlist that leaves the account out)", async () => {
    const guards = { ...OPEN_BRIDGE.guards, allowedChannels: ["-1001"] };
    rig = await startRig({ channel: BUSINESS, bridge: { guards } });
    const { fake, alice, bob } = rig;
    const connection = fake.business.connect({ owner: bob });
    await answered(rig, fake.business.customerWrites({ connection, from: alice, text: "Hi" }));
    expect(questions(rig)).toHaveLength(0);
    expect(fake.business.botMessages(connection, alice.id)).toHaveLength(0);
  });

  it("leaves alone a disabled connection, one without the right to reply, and a message past Telegram's 24 hours", async () => {
    rig = await startRig({ channel: BUSINESS });
    const { fake, alice, bob, carol } = rig;
    const mute = fake.business.connect({ owner: carol, canReply: false });
    await answered(
      rig,
      fake.business.customerWrites({ connection: mute, from: alice, text: "Hi" }),
    );
    const connection = fake.business.connect({ owner: bob });
    const old = fake.business.customerWrites({
      connection,
      from: alice,
      text: "Anyone?",
      ageSeconds: 25 * 60 * 60,
    });
    await answered(rig, old);
    fake.business.setEnabled(connection, false);
    await answered(rig, fake.business.customerWrites({ connection, from: alice, text: "Hello?" }));

    expect(questions(rig)).toHaveLength(0);
    expect(writesTo(rig, alice.id)).toHaveLength(0);
    // Enabled again, the account's chats are answered again.
    fake.business.setEnabled(connection, true);
    await answered(rig, fake.business.customerWrites({ connection, from: alice, text: "Hello" }));
    expect(fake.business.botMessages(connection, alice.id)).toHaveLength(1);
  });

  it("reads a customer's /language as a question, and acts on the owner's, its reply in the owner's own chat with the bot", async () => {
    rig = await startRig({ channel: BUSINESS });
    const { fake, alice, bob } = rig;
    const bobsChat = fake.addChat({ id: bob.id, type: "private", first_name: "Bob" });
    const connection = fake.business.connect({ owner: bob, canDeleteAll: true });
    await answered(
      rig,
      fake.business.customerWrites({ connection, from: alice, text: "/language fr" }),
    );
    expect(questions(rig).map((q) => q?.q)).toEqual(["/language fr"]);

    const command = fake.business.ownerWrites({
      connection,
      customer: alice,
      text: "/language de",
    });
    await answered(rig, command);
    // Gone from the customer's chat; said to the owner alone.
    const typed = fake.business
      .chatMessages(connection, alice.id)
      .find((m) => !m.byBot && m.from.id === bob.id);
    expect(typed?.deleted).toBe(true);
    const [reply] = fake.botMessages(bobsChat.id);
    expect(reply?.text).toMatch(/Deutsch|German/);
    // A command is not the owner writing to the customer: the chatbot answers on, in German.
    await answered(rig, fake.business.customerWrites({ connection, from: alice, text: "Hallo" }));
    expect(questions(rig).at(-1)).toMatchObject({ q: "Hallo", language: "de" });
    expect(fake.business.botMessages(connection, alice.id)).toHaveLength(2);
  });

  it("says on a lead's card that it was captured in the business account's chat with the customer", async () => {
    // The whole bot, as TELEGRAM_BUSINESS=on starts it: the card reads the conversation's origin.
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0, leads: 1 }), (s) => s.close());
    const sales = fake.addChat({ id: -1005, type: "supergroup", title: "Sales" });
    const bot = trackedBot(track, {
      ...telegramBotEnv(fake, simulator),
      TELEGRAM_BUSINESS: "on",
      LEADS_TELEGRAM_CHATS: String(sales.id),
      LEADS_POLL_INTERVAL: "3600",
      LEADS_AFTER_ANSWER_S: "1",
    });
    await bot.logLine("first lead poll: existing leads recorded as seen, not announced");
    const owner = fake.user(2001, "Owner");
    const connection = fake.business.connect({ owner });
    const ann = fake.user(2002, "Ann");
    fake.business.customerWrites({ connection, from: ann, text: "call me back, please #lead" });
    const card = await waitFor("the lead's card", () =>
      fake.botMessages(sales.id).find((m) => m.text.includes("Name: Lead 2")),
    );
    expect(card.text).toContain("Captured: in the business account’s Telegram chat with Ann");
    expect(fake.business.botMessages(connection, ann.id)).toHaveLength(1);
  });

  it("with a webhook, asks for business updates in setWebhook and answers one delivered to it", async () => {
    rig = await startRig({
      channel: {
        ...BUSINESS,
        webhookUrl: "https://bot.example.com/telegram/webhook",
        webhookSecret: "s3cret",
      },
    });
    const { fake, alice, bob } = rig;
    const webhook = await openWebhook(rig);
    try {
      expect(fake.allowedUpdates).toEqual(
        expect.arrayContaining(["business_connection", "business_message"]),
      );
      const connection = fake.business.connect({ owner: bob });
      const update = fake.business.customerWrites({ connection, from: alice, text: "Hi there" });
      expect(await webhook.post(update, "s3cret")).toBe(200);
      await rig.channel.settled();
      expect(fake.business.botMessages(connection, alice.id)).toHaveLength(1);
    } finally {
      await webhook.close();
    }
  });

  it("off (the default), asks Telegram for no business updates", async () => {
    rig = await startRig();
    const { fake, alice, bob } = rig;
    const connection = fake.business.connect({ owner: bob });
    fake.business.customerWrites({ connection, from: alice, text: "Hi" });
    const update = fake.write({ chat: rig.dm.id, from: alice, text: "Hello bot" });
    await answered(rig, update);
    expect(fake.allowedUpdates).not.toContain("business_message");
    expect(fake.allowedUpdates).not.toContain("business_connection");
    expect(fake.business.botMessages(connection, alice.id)).toHaveLength(0);
    expect(questions(rig).map((q) => q?.q)).toEqual(["Hello bot"]);
  });
});
