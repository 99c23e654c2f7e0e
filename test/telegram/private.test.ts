import { afterEach, describe, expect, it } from "vitest";
import { telegramRichRenderer } from "../../adapters/telegram/rich-render.ts";
import { hugeAnswer } from "../../src/simulator/answers.ts";
import { markupOf } from "../support/fake-telegram.ts";
import { answered, firstAnswer, type Rig, startRig } from "./rig.ts";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe("Telegram private chats", () => {
  it("with TELEGRAM_DRAFTS=on and TELEGRAM_RICH_MESSAGES=on, streams an answer as a rich draft and persists the exact final text with one sendRichMessage", async () => {
    rig = await startRig({
      simulator: { chunkDelayMs: 4, chunkChars: [4, 12] },
      channel: { drafts: true, richMessages: true },
    });
    const { fake, alice, dm } = rig;
    const question = "What can you do?";
    const update = fake.write({ chat: dm.id, from: alice, text: question });
    await answered(rig, update);

    const drafts = fake.draftFrames(dm.id);
    expect(drafts.size).toBe(1);
    const [frames] = [...drafts.values()];
    // It grew in place: several frames, each no longer than the next.
    expect(frames?.length).toBeGreaterThan(2);
    // Each frame a rich draft: its structure drawn, as the message's will be.
    expect(frames?.every((frame) => frame.rich !== undefined)).toBe(true);
    const sent = fake.callsTo("sendRichMessage", dm.id).filter((c) => c.ok);
    expect(sent).toHaveLength(1);
    expect(fake.callsTo("sendMessage", dm.id)).toHaveLength(0);
    expect(fake.callsTo("editMessageText")).toHaveLength(0);
    const [message] = fake.botMessages(dm.id);
    expect(message?.raw).toBe(telegramRichRenderer.render(firstAnswer(question)));
    expect(message?.parseMode).toBeUndefined();
    expect(message?.text).toContain("Text beyond ASCII: café, naïve, 你好, 😀");
    expect(message?.entities.map((e) => e.type)).toEqual(
      expect.arrayContaining(["bold", "italic", "code", "text_link", "pre"]),
    );
    expect(message?.replyTo).toBeUndefined();
    // Typing showed while the chatbot was thinking.
    expect(fake.callsTo("sendChatAction", dm.id).length).toBeGreaterThan(0);
    expect(fake.floodErrors).toBe(0);
  });

  it("shows a draft again while the backend pauses, so the half-written answer never lapses", async () => {
    // Telegram drops a draft after 30 s; here the refresh comes every 150 ms instead of 20 s.
    rig = await startRig({
      simulator: { chunkDelayMs: 2, chunkChars: [20, 40] },
      channel: { drafts: true, draftRefreshMs: 150 },
    });
    const { fake, alice, dm } = rig;
    const update = fake.write({ chat: dm.id, from: alice, text: "think hard #pause=1000" });
    await answered(rig, update);

    const drafts = fake.callsTo("sendMessageDraft", dm.id);
    const sent = fake.callsTo("sendMessage", dm.id).filter((c) => c.ok);
    expect(sent).toHaveLength(1);
    // During the pause the same half-answer was shown again, at least every refresh interval.
    const gaps = drafts.slice(1).map((call, i) => call.at - (drafts[i]?.at ?? 0));
    expect(Math.max(...gaps)).toBeLessThan(400);
    // Never an older text after a newer one.
    const lengths = drafts.map((call) => markupOf(call)?.length ?? 0);
    expect(lengths[0]).toBeGreaterThan(0);
    expect(lengths).toEqual([...lengths].sort((x, y) => x - y));
    const repeats = drafts.filter((call, i) => i > 0 && markupOf(call) === markupOf(drafts[i - 1]));
    expect(repeats.length).toBeGreaterThanOrEqual(4);
    // Nothing of the draft after the message was sent for good.
    expect(drafts.every((call) => call.at < (sent[0]?.at ?? 0))).toBe(true);
    const [message] = fake.botMessages(dm.id);
    expect(message?.text).toContain("think hard");
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(fake.callsTo("sendMessageDraft", dm.id)).toHaveLength(drafts.length);
  });

  it("falls back to send + edit when sendMessageDraft is not there", async () => {
    // A Bot API server older than drafts, so older than rich messages too: HTML messages.
    rig = await startRig({
      fake: { draftsAvailable: false, richAvailable: false },
      simulator: { chunkDelayMs: 3, chunkChars: [10, 20] },
      channel: { drafts: true },
    });
    const { fake, alice, dm } = rig;
    const update = fake.write({ chat: dm.id, from: alice, text: "long one #huge=3000" });
    await answered(rig, update);

    expect(fake.callsTo("sendMessageDraft")).toHaveLength(1);
    expect(fake.callsTo("sendMessage", dm.id).filter((c) => c.ok)).toHaveLength(1);
    const edits = fake.callsTo("editMessageText", dm.id);
    expect(edits.length).toBeGreaterThan(1);
    const messages = fake.botMessages(dm.id);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.text).toBe(hugeAnswer(3_000).trimEnd());
    // Once known to be missing, drafts are not tried again.
    const second = fake.write({ chat: dm.id, from: alice, text: "again" });
    await answered(rig, second);
    expect(fake.callsTo("sendMessageDraft")).toHaveLength(1);
    expect(fake.floodErrors).toBe(0);
  });

  it("persists the partial text with the cut note once when the answer fails mid-stream", async () => {
    rig = await startRig({ simulator: { chunkDelayMs: 2 } });
    const { fake, alice, dm } = rig;
    const update = fake.write({ chat: dm.id, from: alice, text: "break please #cut" });
    await answered(rig, update);

    const messages = fake.botMessages(dm.id);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.text).toMatch(/^Hello! This is the simulated chatbot\./);
    expect(messages[0]?.text).toMatch(/\n\n⚠️ answer cut off: connection lost$/);
    expect(fake.callsTo("sendMessage", dm.id).filter((c) => c.ok)).toHaveLength(1);
  });

  it("tells a person who sends a sticker that it reads text, once per message", async () => {
    rig = await startRig();
    const { fake, alice, dm } = rig;
    const update = fake.write({ chat: dm.id, from: alice, sticker: true });
    await answered(rig, update);
    fake.enqueue(update);
    const again = fake.write({ chat: dm.id, from: alice, text: "/help" });
    await answered(rig, again);

    const texts = fake.botMessages(dm.id).map((m) => m.text);
    expect(texts.filter((t) => t.startsWith("I can only read text"))).toHaveLength(1);
    expect(rig.harness.simulator.requests.filter((r) => r.route === "chat")).toHaveLength(0);
  });

  it("answers /start with the help and continues one conversation until /new", async () => {
    rig = await startRig();
    const { fake, alice, dm } = rig;
    for (const text of ["/start", "first question", "second question", "/new", "third"]) {
      await answered(rig, fake.write({ chat: dm.id, from: alice, text }));
    }
    const texts = fake.botMessages(dm.id).map((m) => m.text);
    expect(texts[0]).toMatch(/^Ask me anything, or use a command:/);
    expect(texts[2]).toContain("This is question 2 in our conversation.");
    expect(texts[3]).toBe("Starting fresh: your next question begins a new conversation.");
    expect(texts[4]).toContain("This is the first question in our conversation.");
  });
});
