import { afterEach, describe, expect, it } from "vitest";
import type { AnyUpdate } from "../support/fake-telegram.ts";
import { answered, openWebhook, type Rig, startRig, until, type WebhookEndpoint } from "./rig.ts";

const SECRET = "malformed-Secret_7";
const DEBUG = 20;

let rig: Rig | undefined;
let webhook: WebhookEndpoint | undefined;
afterEach(async () => {
  await webhook?.close();
  await rig?.close();
  rig = undefined;
  webhook = undefined;
});

/**
 * Updates with a part Telegram always sends taken away or made null: what a client, or a proxy
 * in front of a webhook, might send. A message always has its chat, a draft's stop its chat.
 * https://core.telegram.org/bots/api#message
 * https://core.telegram.org/bots/api#update
 */
const BROKEN: Record<string, (r: Rig) => AnyUpdate> = {
  "a message with chat: null": (r) => brokenMessage(r, (m) => Object.assign(m, { chat: null })),
  "a message with no chat": (r) => brokenMessage(r, (m) => delete m.chat),
  "a message whose chat has no id": (r) =>
    brokenMessage(r, (m) => Object.assign(m, { chat: { type: "private" } })),
  "a message with from: null": (r) => brokenMessage(r, (m) => Object.assign(m, { from: null })),
  "a message whose from has no id": (r) =>
    brokenMessage(r, (m) => Object.assign(m, { from: { first_name: "Alice" } })),
  "message: null": (r) => r.fake.updateOf("message", null),
  "a draft stop with chat: null": (r) =>
    r.fake.updateOf("stopped_message_generation", { chat: null, draft_id: 1 }),
  "a draft stop with no chat": (r) =>
    r.fake.updateOf("stopped_message_generation", { draft_id: 1 }),
  "a draft stop whose chat has no id": (r) =>
    r.fake.updateOf("stopped_message_generation", { chat: { type: "private" }, draft_id: 1 }),
  "stopped_message_generation: null": (r) => r.fake.updateOf("stopped_message_generation", null),
};

/** Alice's "hello" in her private chat with the bot, with `breakIt` done to its message. */
function brokenMessage(r: Rig, breakIt: (message: Record<string, unknown>) => void): AnyUpdate {
  const update = r.fake.compose({ chat: r.dm.id, from: r.alice, text: "hello" });
  breakIt(update.message);
  return update;
}

interface LogLine {
  level: number;
  msg: string;
  err?: { stack?: string };
}

/** The lines logged since `from`, none of them above debug nor with a stack. */
function quietSince(r: Rig, from: number): LogLine[] {
  return r.logs
    .slice(from)
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => line.level > DEBUG || line.err?.stack !== undefined);
}

/** Nothing shown to anyone but the answer to the normal message that follows. */
async function expectDroppedThenAnswered(r: Rig, deliver: (update: AnyUpdate) => Promise<void>) {
  // The start's own lines (the command menu registered) are written by then.
  await r.channel.settled();
  const logged = r.logs.length;
  for (const build of Object.values(BROKEN)) await deliver(build(r));
  expect(quietSince(r, logged)).toEqual([]);
  expect(r.fake.botMessages(r.dm.id)).toEqual([]);
  expect(r.scripted?.requests ?? []).toHaveLength(0);

  await deliver(r.fake.compose({ chat: r.dm.id, from: r.alice, text: "still there?" }));
  await until(() => r.fake.botMessages(r.dm.id).length > 0);
  expect(r.fake.botMessages(r.dm.id).map((m) => m.text)).toEqual(["Still here."]);
}

describe("a Telegram update with its chat or its author missing or null", () => {
  it("is dropped quietly by long polling, and the next message is answered", async () => {
    rig = await startRig({ answer: "Still here." });
    const r = rig;
    await expectDroppedThenAnswered(r, async (update) => {
      r.fake.enqueue(update);
      await answered(r, update);
    });
  });

  it("is taken (200) and dropped quietly by the webhook, and the next message is answered", async () => {
    rig = await startRig({
      answer: "Still here.",
      channel: { webhookUrl: "https://bot.example.com/telegram/webhook", webhookSecret: SECRET },
    });
    const r = rig;
    const endpoint = await openWebhook(r);
    webhook = endpoint;
    await expectDroppedThenAnswered(r, async (update) => {
      // Anything but a 2xx, and Telegram would send the same broken update again and again.
      expect(await endpoint.post(update, SECRET)).toBe(200);
      await r.channel.settled();
    });
  });
});
