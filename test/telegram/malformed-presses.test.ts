import { Api } from "grammy";
import { afterEach, describe, expect, it } from "vitest";
import { inlineKeyboard } from "../../adapters/telegram/buttons.ts";
import { answered, type Rig, startRig } from "./rig.ts";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const DEBUG = 20;
const INFO = 30;

/**
 * Callback queries with a part Telegram always sends for a press of a chat message's button
 * taken away or made null: what a client, or a proxy in front of a webhook, might send.
 * https://core.telegram.org/bots/api#callbackquery
 */
const BREAKS: Record<string, (query: Record<string, unknown>) => void> = {
  "chat: null": (query) => {
    (query.message as Record<string, unknown>).chat = null;
  },
  "no chat": (query) => {
    delete (query.message as Record<string, unknown>).chat;
  },
  "message: null": (query) => {
    query.message = null;
  },
  "no message (an inline message's button)": (query) => {
    delete query.message;
    query.inline_message_id = "AAAA";
  },
  "from: null": (query) => {
    query.from = null;
  },
  "no from": (query) => {
    delete query.from;
  },
};

describe("a Telegram press with a part missing or null", () => {
  it("is answered, stops nothing, and logs at most a debug line", async () => {
    rig = await startRig({ answer: "Still here." });
    const r = rig;
    // A Stop button of the bot's, as under an answer being written.
    const api = new Api(r.fake.token, { apiRoot: r.fake.url });
    const card = await api.sendMessage(r.group.id, "an answer", {
      reply_markup: inlineKeyboard([{ action: "answer.stop", id: "a1", label: "Stop" }]),
    });
    const ids: string[] = [];
    for (const [, breakIt] of Object.entries(BREAKS)) {
      const press = r.fake.press({
        chat: r.group.id,
        messageId: card.message_id,
        from: r.alice,
        data: "answer.stop:a1",
      });
      // Before the bot polls it: the fake serves the update it queued.
      breakIt(press.callback_query);
      ids.push(String(press.callback_query.id));
      await answered(r, press);
    }
    const lines = r.logs.map((line) => JSON.parse(line) as { level: number; msg: string });
    // Beside the start's own info lines (polling started, the command menus registered).
    expect(lines.filter((line) => line.level > INFO)).toEqual([]);
    expect(lines.filter((line) => /press/i.test(line.msg) && line.level > DEBUG)).toEqual([]);
    // Every spinner stopped, with nothing to read: none of them was a press the bot could use.
    expect(r.fake.callbackAnswers).toEqual(ids.map((queryId) => ({ queryId })));

    // The same press whole is one: Stop, with nothing to stop.
    const whole = r.fake.press({
      chat: r.group.id,
      messageId: card.message_id,
      from: r.alice,
      data: "answer.stop:a1",
    });
    await answered(r, whole);
    expect(r.fake.callbackAnswers.at(-1)).toMatchObject({
      queryId: whole.callback_query.id,
      text: "Nothing to stop: no answer is being written in this thread.",
    });
  });
});
