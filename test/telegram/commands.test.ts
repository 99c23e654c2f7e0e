import { afterEach, describe, expect, it } from "vitest";
import type { FakeTelegram } from "../support/fake-telegram.ts";
import { ADMIN_COMMANDS, answered, type Rig, startRig } from "./rig.ts";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const texts = (r: Rig, chatId: number) => r.fake.botMessages(chatId).map((m) => m.text);

/**
 * The people whose rights in a chat the bot asked Telegram for (getChatMember), leaving out its
 * own: whether it administers a group, which a private reply there asks (an ephemeral message).
 */
function peopleAsked(fake: FakeTelegram): unknown[] {
  return fake
    .callsTo("getChatMember")
    .map((c) => c.params.user_id)
    .filter((id) => id !== fake.bot.id);
}

describe("Telegram commands and admins", () => {
  it("shows the command in a usage reply as code, no backtick in sight", async () => {
    rig = await startRig();
    const { fake, bob, group } = rig;
    await answered(rig, fake.write({ chat: group.id, from: bob, text: "/stop now" }));
    const [reply] = fake.botMessages(group.id);
    expect(reply?.text).toContain("expected /stop");
    const code = reply?.entities.filter((e) => e.type === "code") ?? [];
    expect(code.map((e) => reply?.text.slice(e.offset, e.offset + e.length))).toEqual(["/stop"]);
  });

  it("lets a group's creator set the language and refuses a member", async () => {
    rig = await startRig();
    const { fake, alice, bob, group } = rig;
    const set = fake.write({ chat: group.id, from: bob, text: "/language fr" });
    await answered(rig, set);
    await answered(rig, fake.write({ chat: group.id, from: alice, text: "/language de" }));
    await answered(
      rig,
      fake.write({ chat: group.id, from: alice, text: "@ChatBridgeBot bonjour?" }),
    );

    const [setReply, refusal, answer] = fake.botMessages(group.id);
    expect(setReply?.text).toBe("Les réponses ici sont désormais en français (fr).");
    expect(setReply?.replyTo).toBe(set.message.message_id);
    expect(refusal?.text).toBe(
      "Seul un administrateur de ce canal peut changer la langue des réponses.",
    );
    expect(answer?.text).toContain("Answering in French (fr)");
    expect(peopleAsked(fake)).toEqual([bob.id, alice.id]);
  });

  it("reads /language@ThisBot, ignores /language@OtherBot, and asks getChatMember once a while", async () => {
    rig = await startRig();
    const { fake, bob, group } = rig;
    for (const text of [
      "/language@ChatBridgeBot es",
      "/language@OtherBot it",
      "/language@chatbridgebot",
    ]) {
      await answered(rig, fake.write({ chat: group.id, from: bob, text }));
    }
    expect(texts(rig, group.id)).toEqual([
      "A partir de ahora, las respuestas aquí están en español (es).",
      "Aquí las respuestas están en español (es). Los administradores pueden cambiarlo con /language <code>.",
    ]);
    await answered(
      rig,
      fake.write({ chat: group.id, from: bob, text: "/language@ChatBridgeBot auto" }),
    );
    expect(peopleAsked(fake)).toHaveLength(1);
  });

  it("lets the person in a private chat set its language, and TELEGRAM_ADMIN_USERS anywhere", async () => {
    rig = await startRig({ channel: { adminUsers: ["1003"] } });
    const { fake, alice, carol, dm, group } = rig;
    await answered(
      rig,
      fake.write({ chat: dm.id, from: alice, text: "/language@ChatBridgeBot fr" }),
    );
    await answered(rig, fake.write({ chat: group.id, from: carol, text: "/language it" }));
    await answered(
      rig,
      fake.write({ chat: group.id, from: alice, text: "/language ko", anonymousAdmin: true }),
    );
    expect(texts(rig, dm.id)).toEqual(["Les réponses ici sont désormais en français (fr)."]);
    expect(texts(rig, group.id)).toEqual([
      "D’ora in poi qui le risposte sono in italiano (it).",
      "이제 이곳의 답변 언어는 한국어(ko)입니다.",
    ]);
    expect(peopleAsked(fake)).toHaveLength(0);
  });

  it("answers /help in a group as a reply, and ignores another bot's commands", async () => {
    rig = await startRig();
    const { fake, alice, group } = rig;
    const help = fake.write({ chat: group.id, from: alice, text: "/help" });
    await answered(rig, help);
    await answered(rig, fake.write({ chat: group.id, from: alice, text: "/help@OtherBot" }));
    await answered(rig, fake.write({ chat: group.id, from: alice, text: "/weather" }));
    const messages = fake.botMessages(group.id);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.replyTo).toBe(help.message.message_id);
    expect(messages[0]?.text).toContain("/language <code>");
  });

  it("answers a command addressed to it that it does not know, and leaves bare ones to other bots", async () => {
    rig = await startRig();
    const { fake, alice, group, dm } = rig;
    const addressed = fake.write({
      chat: group.id,
      from: alice,
      text: "/random@ChatBridgeBot 20 30",
    });
    await answered(rig, addressed);
    const mentioned = fake.write({ chat: group.id, from: alice, text: "/test @ChatBridgeBot" });
    await answered(rig, mentioned);
    await answered(rig, fake.write({ chat: group.id, from: alice, text: "/random 1 5000" }));
    await answered(rig, fake.write({ chat: dm.id, from: alice, text: "/bogus" }));

    expect(rig.harness.simulator.requests.filter((r) => r.route === "chat")).toEqual([]);
    const [random, test, ...others] = fake.botMessages(group.id);
    expect(others).toEqual([]);
    expect(random?.replyTo).toBe(addressed.message.message_id);
    expect(random?.text).toMatch(/^Unknown command \/random\.\nAsk me anything, or use a command:/);
    expect(test?.replyTo).toBe(mentioned.message.message_id);
    expect(test?.text).toMatch(/^Unknown command \/test\./);
    expect(texts(rig, dm.id)).toEqual([expect.stringMatching(/^Unknown command \/bogus\./)]);
  });

  it("answers /start with a deep-link payload with the help, asking the chatbot nothing", async () => {
    rig = await startRig();
    const { fake, alice, dm } = rig;
    await answered(rig, fake.write({ chat: dm.id, from: alice, text: "/start YnZiMTIz" }));
    expect(texts(rig, dm.id)).toEqual([
      expect.stringMatching(/^Ask me anything, or use a command:/),
    ]);
    expect(rig.harness.simulator.requests.filter((r) => r.route === "chat")).toEqual([]);
  });

  it("registers the command menu per scope once, and not again after a restart", async () => {
    rig = await startRig();
    await rig.channel.settled();
    const first = rig.fake.callsTo("setMyCommands");
    expect(first.slice(0, 2).map((c) => (c.params.scope as { type: string }).type)).toEqual([
      "default",
      "all_chat_administrators",
    ]);
    const admins = rig.fake.commands().get("all_chat_administrators:");
    expect(admins?.map((c) => c.command)).toEqual(ADMIN_COMMANDS);

    const again = await startRig({ harness: rig.harness });
    await again.channel.settled();
    expect(again.fake.callsTo("setMyCommands")).toHaveLength(0);
    await again.close();
  });

  it("answers even when registering the menu meets a 429", async () => {
    rig = await startRig({ start: false });
    const { fake, alice, dm } = rig;
    fake.failNext({
      method: "setMyCommands",
      errorCode: 429,
      description: "Too Many Requests: retry after 30",
      retryAfter: 30,
    });
    await rig.channel.start();
    await answered(rig, fake.write({ chat: dm.id, from: alice, text: "/help" }));
    expect(texts(rig, dm.id)[0]).toMatch(/^Ask me anything/);
    expect(rig.logs.join("")).toContain("Telegram command menu not registered");
  });
});
