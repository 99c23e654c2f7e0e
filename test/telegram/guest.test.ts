import { afterEach, describe, expect, it } from "vitest";
import { visibleText } from "../../adapters/telegram/escape.ts";
import { telegramRenderer } from "../../adapters/telegram/render.ts";
import { OPEN_BRIDGE } from "../support/bridge-harness.ts";
import type { Chat } from "../support/fake-telegram.ts";
import { answered, firstAnswer, type Rig, refusedCalls, startRig } from "./rig.ts";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** A group the bot is not a member of. */
const ELSEWHERE: Chat = { id: -3001, type: "supergroup", title: "Elsewhere" };

const GUEST = { fake: { guestQueries: true }, channel: { guest: true } };

const questions = (r: Rig) =>
  r.harness.simulator.requests.filter((q) => q.route === "chat").map((q) => q.chat);

describe("Telegram guest mode (TELEGRAM_GUEST=on)", () => {
  it("answers a mention in a chat it is not in once, through answerGuestQuery, growing by edits", async () => {
    rig = await startRig({ ...GUEST, simulator: { chunkDelayMs: 4, chunkChars: [4, 12] } });
    const { fake, alice } = rig;
    const text = "@ChatBridgeBot what can you do?";
    await answered(rig, fake.guest.mention({ chat: ELSEWHERE, from: alice, text }));

    expect(questions(rig).map((q) => q?.q)).toEqual(["what can you do?"]);
    const [answer, ...more] = fake.guest.messages(ELSEWHERE.id);
    expect(more).toHaveLength(0);
    expect(answer?.text).toBe(
      visibleText(telegramRenderer.render(firstAnswer("what can you do?"))).trim(),
    );
    expect(answer?.history.length).toBeGreaterThan(2);
    expect(answer?.hasKeyboard).toBe(false);
    expect(fake.callsTo("answerGuestQuery")).toHaveLength(1);
    expect(fake.calls.filter((c) => Number(c.params.chat_id) === ELSEWHERE.id)).toHaveLength(0);
    expect(fake.allowedUpdates).toEqual(expect.arrayContaining(["guest_message"]));
  });

  it("ends an answer too long for one message with the cut note, and a broken stream with its note", async () => {
    rig = await startRig(GUEST);
    const { fake, alice, bob } = rig;
    await answered(
      rig,
      fake.guest.mention({ chat: ELSEWHERE, from: alice, text: "@ChatBridgeBot all #huge=9000" }),
    );
    await answered(
      rig,
      fake.guest.mention({ chat: ELSEWHERE, from: bob, text: "@ChatBridgeBot tell me #cut" }),
    );
    const [long, cut] = fake.guest.messages(ELSEWHERE.id);
    expect(long?.text.length).toBeLessThanOrEqual(4_096);
    expect(long?.text).toMatch(/\(truncated\)$/);
    expect(cut?.text).toMatch(/\n\n⚠️ answer cut off: connection lost$/);
    expect(fake.callsTo("answerGuestQuery").every((c) => c.ok)).toBe(true);
    // Each mention is a conversation of its own.
    expect(questions(rig).map((q) => q?.conversationUid)).toEqual([undefined, undefined]);
  });

  it("keeps the chatbot's system message above its answer, in the one message", async () => {
    rig = await startRig(GUEST);
    const { fake, alice } = rig;
    await answered(
      rig,
      fake.guest.mention({ chat: ELSEWHERE, from: alice, text: "@ChatBridgeBot hi #system" }),
    );
    const [answer, ...more] = fake.guest.messages(ELSEWHERE.id);
    expect(more).toHaveLength(0);
    expect(fake.callsTo("answerGuestQuery")).toHaveLength(1);
    const [above, ...below] = answer?.text.split("\n\n") ?? [];
    expect(above).toBe("Simulated notice: this account has used 90% of its monthly messages.");
    expect(below.join("\n\n")).toContain("You asked: “hi #system”");
    expect(refusedCalls(fake)).toEqual([]);
  });

  it("refuses a chat ALLOWED_CHANNELS leaves out through the query itself, as any asker", async () => {
    const guards = { ...OPEN_BRIDGE.guards, allowedChannels: [String(-3002)] };
    rig = await startRig({ ...GUEST, bridge: { guards } });
    const { fake, alice } = rig;
    await answered(
      rig,
      fake.guest.mention({ chat: ELSEWHERE, from: alice, text: "@ChatBridgeBot hello" }),
    );
    expect(questions(rig)).toHaveLength(0);
    const [refusal] = fake.guest.messages(ELSEWHERE.id);
    expect(refusal?.text).toMatch(/not (enabled|allowed|available)/i);
    expect(fake.callsTo("answerGuestQuery")).toHaveLength(1);
  });

  it("says at start when BotFather's guest mode is off, and asks for no guest messages when TELEGRAM_GUEST is off", async () => {
    rig = await startRig({ channel: { guest: true } });
    expect(rig.logs.join("")).toContain("turn on Guest Mode in @BotFather");
    await rig.close();
    rig = await startRig({ fake: { guestQueries: true } });
    const { fake, alice } = rig;
    fake.guest.mention({ chat: ELSEWHERE, from: alice, text: "@ChatBridgeBot hi" });
    await answered(rig, fake.write({ chat: rig.dm.id, from: alice, text: "Hello bot" }));
    expect(fake.allowedUpdates).not.toContain("guest_message");
    expect(fake.guest.messages(ELSEWHERE.id)).toHaveLength(0);
    expect(questions(rig).map((q) => q?.q)).toEqual(["Hello bot"]);
  });
});
