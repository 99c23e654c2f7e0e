import { describe, expect, it } from "vitest";
import { type HeldBackend, heldBackendPerTest } from "../support/held-backend.ts";
import { answered, type Rig, type RigOptions, startRig, until } from "./rig.ts";

const onHeldBackend = heldBackendPerTest();
/** The backend of the test running now. */
let backend: HeldBackend | undefined;

async function start(channel: RigOptions["channel"] = {}): Promise<Rig> {
  const started = await onHeldBackend((held) => startRig({ backend: held, channel }));
  backend = started.backend;
  return started.bot;
}

/** Alice's question in the group, its answer on screen and still streaming. */
async function streaming(r: Rig) {
  const question = r.fake.write({
    chat: r.group.id,
    from: r.alice,
    text: "@ChatBridgeBot weather",
  });
  await until(
    () => r.fake.botMessages(r.group.id)[0]?.text.startsWith("Answer to weather") === true,
  );
  const answer = r.fake.botMessages(r.group.id)[0];
  if (!answer) throw new Error("no answer");
  // A reply to the answer belongs to its thread once the bot has noted the chain.
  const chain = `telegram:chain:${r.group.id}:${answer.message_id}`;
  for (let i = 0; i < 200 && (await r.harness.store.get(chain)) === undefined; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { question, answer };
}

const keyboardOf = (r: Rig, messageId: number) =>
  (r.fake.message(r.group.id, messageId)?.replyMarkup?.inline_keyboard ?? []).flat();

describe("Telegram: Stop and votes under answers", () => {
  it("stops for the asker; another member is told in an alert; the next reply continues the conversation", async () => {
    const r = await start();
    const held = backend as HeldBackend;
    const { answer } = await streaming(r);
    const [stop] = keyboardOf(r, answer.message_id);
    expect(stop?.text).toBe("⏹ Stop");

    const refused = r.fake.press({
      chat: r.group.id,
      messageId: answer.message_id,
      from: r.carol,
      data: String(stop?.callback_data),
    });
    // Not `answered`: that waits for the answer, which still streams.
    await until(() => r.fake.callbackAnswers.length === 1);
    expect(r.fake.callbackAnswers).toEqual([
      {
        queryId: refused.callback_query.id,
        text: "Only the person who asked or an admin of this channel can stop this answer.",
        showAlert: true,
      },
    ]);
    expect(held.open).toBe(1);

    const pressed = r.fake.press({
      chat: r.group.id,
      messageId: answer.message_id,
      from: r.alice,
      data: String(stop?.callback_data),
    });
    await answered(r, pressed);
    await until(
      () => r.fake.message(r.group.id, answer.message_id)?.text.includes("stopped") === true,
    );
    expect(held.dropped).toEqual(["weather"]);
    const stopped = r.fake.message(r.group.id, answer.message_id)?.text ?? "";
    // The name is shown, not a live mention: a zero-width joiner follows the @.
    expect(stopped).not.toContain("@alice");
    expect(stopped.replace(/[\u200B-\u200D\u2060]/g, "")).toBe(
      "Answer to weather\n\n⏹ stopped by @alice_example",
    );
    expect(keyboardOf(r, answer.message_id).map((b) => b.text)).toEqual(["👍", "👎"]);

    held.releaseAll();
    const next = r.fake.write({
      chat: r.group.id,
      from: r.alice,
      text: "and tomorrow?",
      replyTo: answer.message_id,
    });
    await answered(r, next);
    expect(held.conversations).toEqual([undefined, "conv-1"]);
  });

  it("lets a group admin stop another member's answer with /stop as a reply to it", async () => {
    const r = await start();
    const { answer } = await streaming(r);
    r.fake.write({
      chat: r.group.id,
      from: r.bob,
      text: "/stop@ChatBridgeBot",
      replyTo: answer.message_id,
    });
    await until(
      () => r.fake.message(r.group.id, answer.message_id)?.text.includes("stopped") === true,
    );
    expect(backend?.dropped).toEqual(["weather"]);
    // Named as a press names them: the @username, shown without a live mention.
    const text = r.fake.message(r.group.id, answer.message_id)?.text ?? "";
    expect(text.replace(/[\u200B-\u200D\u2060]/g, "")).toBe(
      "Answer to weather\n\n⏹ stopped by @bob_example",
    );
  });

  it("streams a private answer as one message with ⏹ Stop: the press ends it with the note and 👍/👎", async () => {
    const r = await start();
    r.fake.write({ chat: r.dm.id, from: r.alice, text: "weather" });
    await until(() => r.fake.botMessages(r.dm.id)[0]?.text.startsWith("Answer to") === true);
    const [answer] = r.fake.botMessages(r.dm.id);
    if (!answer) throw new Error("no answer");
    // No draft: it would stay drawn over the message on some clients, and takes no buttons.
    expect(r.fake.draftFrames(r.dm.id).size).toBe(0);
    const [stop] = answer.replyMarkup?.inline_keyboard.flat() ?? [];
    expect(stop?.text).toBe("⏹ Stop");

    await answered(
      r,
      r.fake.press({
        chat: r.dm.id,
        messageId: answer.message_id,
        from: r.alice,
        data: String(stop?.callback_data),
      }),
    );
    await until(
      () => r.fake.message(r.dm.id, answer.message_id)?.text.includes("stopped") === true,
    );
    expect(backend?.dropped).toEqual(["weather"]);
    const stopped = r.fake.message(r.dm.id, answer.message_id);
    expect(stopped?.text.replace(/[\u200B-\u200D\u2060]/g, "")).toBe(
      "Answer to weather\n\n⏹ stopped by @alice_example",
    );
    expect(stopped?.replyMarkup?.inline_keyboard.flat().map((b) => b.text)).toEqual(["👍", "👎"]);
    // One message, grown in place.
    expect(r.fake.botMessages(r.dm.id)).toHaveLength(1);
  });

  it("stops a draft (TELEGRAM_DRAFTS=on) on /stop: the message sent for good with the note and 👍/👎", async () => {
    const r = await start({ drafts: true });
    r.fake.write({ chat: r.dm.id, from: r.alice, text: "weather" });
    await until(() => [...r.fake.drafts(r.dm.id).values()].some((d) => d.length > 0));
    r.fake.write({ chat: r.dm.id, from: r.alice, text: "/stop" });
    await until(() => r.fake.botMessages(r.dm.id).length > 0);
    const [sent] = r.fake.botMessages(r.dm.id);
    expect(backend?.dropped).toEqual(["weather"]);
    expect(sent?.text.replace(/[\u200B-\u200D\u2060]/g, "")).toBe(
      "Answer to weather\n\n⏹ stopped by @alice_example",
    );
    expect(sent?.replyMarkup?.inline_keyboard.flat().map((b) => b.text)).toEqual(["👍", "👎"]);
  });

  it("records one vote per person, changeable; /feedback counts them for admins", async () => {
    const r = await start();
    (backend as HeldBackend).releaseAll();
    await answered(r, r.fake.write({ chat: r.group.id, from: r.alice, text: "@ChatBridgeBot hi" }));
    const [answer] = r.fake.botMessages(r.group.id);
    if (!answer) throw new Error("no answer");
    const [up, down] = keyboardOf(r, answer.message_id);
    const vote = async (from: typeof r.alice, data: unknown) =>
      answered(
        r,
        r.fake.press({ chat: r.group.id, messageId: answer.message_id, from, data: String(data) }),
      );
    await vote(r.alice, up?.callback_data);
    await vote(r.carol, up?.callback_data);
    await vote(r.carol, down?.callback_data);
    // A thanks passes by as a notice at the top of the chat, not an alert to dismiss.
    expect(r.fake.callbackAnswers.map((a) => a.showAlert)).toEqual([false, false, false]);
    expect(r.fake.callbackAnswers.map((a) => a.text)).toEqual([
      "Thanks for your 👍!",
      "Thanks for your 👍!",
      "Your vote is now 👎. Thanks!",
    ]);

    await answered(r, r.fake.write({ chat: r.group.id, from: r.alice, text: "/feedback" }));
    await answered(r, r.fake.write({ chat: r.group.id, from: r.bob, text: "/feedback 7" }));
    const replies = r.fake
      .botMessages(r.group.id)
      .slice(1)
      .map((m) => m.text);
    expect(replies).toEqual([
      "Only an admin of this channel can see the feedback.",
      "Votes on answers in this channel in the last 7 days: 👍 1 · 👎 1 (50% 👍)",
    ]);
  });
});
