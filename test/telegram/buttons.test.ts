import { Api } from "grammy";
import { afterEach, describe, expect, it } from "vitest";
import { callbackData, inlineKeyboard } from "../../adapters/telegram/buttons.ts";
import { ButtonHandlers } from "../../src/bridge/button-handlers.ts";
import type { PressedButton } from "../../src/ports.ts";
import type { User } from "../support/fake-telegram.ts";
import { answered, type Rig, type RigOptions, startRig } from "./rig.ts";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** A Telegram channel whose presses of "test.press" are recorded, then handled by `then`. */
async function start(
  then: (pressed: PressedButton) => Promise<void> = async () => undefined,
  options: RigOptions = {},
): Promise<{ rig: Rig; pressed: PressedButton[] }> {
  const pressed: PressedButton[] = [];
  const buttons = new ButtonHandlers().on("test.press", async (press) => {
    pressed.push(press);
    await then(press);
  });
  rig = await startRig({ ...options, channel: { buttons, ...options.channel } });
  return { rig, pressed };
}

/** A message of the bot's in the group, with one button to press. */
async function card(r: Rig): Promise<number> {
  const api = new Api(r.fake.token, { apiRoot: r.fake.url });
  const sent = await api.sendMessage(r.group.id, "a card", {
    reply_markup: inlineKeyboard([{ action: "test.press", id: "first", label: "Press" }]),
  });
  return sent.message_id;
}

/** `from` presses the card's button; resolves once the press is answered. */
async function pressCard(r: Rig, messageId: number, from: User) {
  const press = r.fake.press({ chat: r.group.id, messageId, from, data: "test.press:first" });
  await answered(r, press);
  return press;
}

const debugLines = (r: Rig, text: string) =>
  r.logs
    .map((line) => JSON.parse(line) as { level: number; msg: string })
    .filter((l) => l.msg === text);

describe("Telegram buttons (callback_query)", () => {
  it("asks for callback queries when polling, and hands a press's action, id and presser to the handler", async () => {
    const { rig: r, pressed } = await start();
    const messageId = await card(r);
    const press = await pressCard(r, messageId, r.bob);
    expect(r.fake.allowedUpdates).toContain("callback_query");
    expect(pressed).toHaveLength(1);
    expect(pressed[0]).toMatchObject({
      channel: "telegram",
      action: "test.press",
      id: "first",
      channelId: String(r.group.id),
      person: { id: String(r.bob.id), name: "@bob_example" },
    });
    expect(await pressed[0]?.person.isAdmin()).toBe(true);
    // Answered, with nothing to show: the spinner stops.
    expect(r.fake.callbackAnswers).toEqual([{ queryId: press.callback_query.id }]);
  });

  it("answers every press: data not of ours, an unknown action, a handler that fails", async () => {
    const { rig: r } = await start(async () => {
      throw new Error("handler broke");
    });
    const messageId = await card(r);
    const presses = ["garbage", "", "no.such:1", "test.press:boom", "::::"].map((data) =>
      r.fake.press({ chat: r.group.id, messageId, from: r.alice, data }),
    );
    for (const press of presses) await answered(r, press);
    expect(r.fake.callbackAnswers.map((a) => a.queryId).sort()).toEqual(
      presses.map((p) => p.callback_query.id).sort(),
    );
    expect(debugLines(r, "Telegram button press with no handler")).toHaveLength(4);
    expect(debugLines(r, "Telegram button press failed")).toHaveLength(1);
  });

  it("tells the presser in an alert, in plain text", async () => {
    const { rig: r } = await start(async (press) => {
      await press.replyPrivately("Only @bob_example can <b>do</b> that");
    });
    const messageId = await card(r);
    const press = await pressCard(r, messageId, r.alice);
    expect(r.fake.callbackAnswers).toEqual([
      {
        queryId: press.callback_query.id,
        text: "Only @bob_example can <b>do</b> that",
        showAlert: true,
      },
    ]);
    const message = r.fake.message(r.group.id, messageId);
    expect(message?.text).toBe("a card");
    expect(message?.replyMarkup).toEqual({
      inline_keyboard: [[{ text: "Press", callback_data: "test.press:first" }]],
    });
  });

  it("answers a press again when its first answer failed, so the spinner stops", async () => {
    const { rig: r } = await start(async (press) => {
      await press.replyPrivately("first try").catch(() => undefined);
    });
    const messageId = await card(r);
    r.fake.failNext({ method: "answerCallbackQuery", errorCode: 500, description: "Internal" });
    const press = await pressCard(r, messageId, r.alice);
    expect(r.fake.callbackAnswers.map((a) => a.queryId)).toEqual([press.callback_query.id]);
  });

  it("refuses, when the message is built, a button whose callback_data would pass 64 bytes", () => {
    expect(callbackData({ action: "lead.claim", id: "a".repeat(53), label: "x" })).toHaveLength(64);
    expect(() => callbackData({ action: "lead.claim", id: "é".repeat(27), label: "x" })).toThrow(
      /64/,
    );
    expect(() => callbackData({ action: "bad:action", id: "1", label: "x" })).toThrow();
  });
});
