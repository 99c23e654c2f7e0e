import { afterEach, describe, expect, it } from "vitest";
import {
  createTelegramChannel,
  type TelegramChannelOptions,
} from "../../adapters/telegram/index.ts";
import { ConfigError } from "../../src/errors.ts";
import { createLogger } from "../../src/log.ts";
import {
  openWebhook,
  type Rig,
  type RigOptions,
  startRig,
  until,
  type WebhookEndpoint,
} from "./rig.ts";

const SECRET = "webhook-Secret_42";
const WEBHOOK_URL = "https://bot.example.com/telegram/webhook";

let rig: Rig | undefined;
let webhook: WebhookEndpoint | undefined;
let releaseAnswers: (() => void) | undefined;
afterEach(async () => {
  releaseAnswers?.();
  releaseAnswers = undefined;
  await webhook?.close();
  // Whatever still streams is cut when the backend goes: nobody waits out a 10 s answer.
  await rig?.harness.simulator.close();
  await rig?.close();
  rig = undefined;
  webhook = undefined;
});

async function startWebhookRig(
  channel: Partial<TelegramChannelOptions> = {},
  options: Omit<RigOptions, "channel"> = {},
): Promise<{ rig: Rig; post: WebhookEndpoint["post"] }> {
  rig = await startRig({
    ...options,
    channel: { webhookUrl: WEBHOOK_URL, webhookSecret: SECRET, ...channel },
  });
  webhook = await openWebhook(rig);
  return { rig, post: webhook.post };
}

describe("Telegram webhook mode", () => {
  it("registers the webhook with its secret at start and never polls", async () => {
    const { rig } = await startWebhookRig();
    expect(rig.fake.webhook()).toEqual({ url: WEBHOOK_URL, secret: SECRET });
    // Messages, the presses of the bot's buttons and of a draft's stop button.
    expect(rig.fake.allowedUpdates).toEqual([
      "message",
      "callback_query",
      "stopped_message_generation",
    ]);
    expect(rig.fake.callsTo("getUpdates")).toHaveLength(0);
    expect(rig.channel.unhealthyReason()).toBeUndefined();
  });

  it("answers Telegram at once, not after the answer, while an answer streams on", async () => {
    const { rig, post } = await startWebhookRig();
    const { fake, alice, dm } = rig;
    const answer = () => fake.botMessages(dm.id).filter((m) => m.text.startsWith("Hello!"));
    // The backend sends half the answer, then nothing until it goes away: Telegram has its
    // 200 long before the answer can end (a webhook that waited would get it re-sent).
    const update = fake.compose({ chat: dm.id, from: alice, text: "slow one #stall" });
    expect(await post(update, SECRET)).toBe(200);
    // The first half shows.
    await until(() => answer().length > 0, 3_000, "the first half");
    expect(answer()[0]?.text).not.toContain("⚠️");
    // Meanwhile the webhook keeps taking updates.
    const other = fake.compose({ chat: dm.id, from: alice, text: "/help" });
    expect(await post(other, SECRET)).toBe(200);
    // The backend goes away mid-answer: the message ends, once, with the cut note.
    await rig.harness.simulator.close();
    await rig.channel.settled();
    expect(answer()).toHaveLength(1);
    expect(answer()[0]?.text).toMatch(/⚠️ answer cut off: connection lost$/);
  });

  it("refuses a missing or wrong secret with 401 and does nothing with the update", async () => {
    const { rig, post } = await startWebhookRig();
    const { fake, alice, dm } = rig;
    const update = fake.compose({ chat: dm.id, from: alice, text: "hello" });
    expect(await post(update)).toBe(401);
    expect(await post(update, "wrong-secret")).toBe(401);
    expect(await post(update, `${SECRET}x`)).toBe(401);
    await rig.channel.settled();
    expect(fake.botMessages(dm.id)).toEqual([]);
    expect(fake.draftFrames(dm.id).size).toBe(0);
    expect(rig.harness.simulator.requests.filter((r) => r.route === "chat")).toHaveLength(0);
  });

  it("refuses with 400 a signed body that is not an update, and still takes the next update", async () => {
    const { rig, post } = await startWebhookRig();
    const { fake, alice, dm } = rig;
    const notUpdates = [
      null,
      "update",
      [],
      {},
      { update_id: -1 },
      { update_id: 1.5 },
      { update_id: "7" },
    ];
    const statuses = [];
    for (const body of notUpdates) statuses.push(await post(body, SECRET));
    expect(statuses).toEqual(notUpdates.map(() => 400));
    expect(await post(fake.compose({ chat: dm.id, from: alice, text: "hello" }), SECRET)).toBe(200);
    await until(() => fake.botMessages(dm.id).length > 0);
  });

  it("past its updates in flight, answers 503 so Telegram re-sends, and takes the update later", async () => {
    const held = new Promise<void>((resolve) => {
      releaseAnswers = resolve;
    });
    const { rig, post } = await startWebhookRig(
      { maxUpdatesInFlight: 2 },
      { answer: "Here it is.", answerAfter: held },
    );
    const { fake, alice, group } = rig;
    const ask = (text: string) =>
      fake.compose({ chat: group.id, from: alice, text: `@ChatBridgeBot ${text}` });
    expect(await post(ask("one"), SECRET)).toBe(200);
    expect(await post(ask("two"), SECRET)).toBe(200);
    // Both answers wait for the backend until released, however slow the machine is.
    const third = ask("three");
    expect(await post(third, SECRET)).toBe(503);
    releaseAnswers?.();
    await rig.channel.settled();
    // Telegram's re-delivery, once the first two are answered.
    expect(await post(third, SECRET)).toBe(200);
    await rig.channel.settled();
    expect(rig.scripted?.requests).toHaveLength(3);
    expect(fake.botMessages(group.id).map((m) => m.text)).toEqual([
      "Here it is.",
      "Here it is.",
      "Here it is.",
    ]);
  });

  it("answers a re-sent update once", async () => {
    const { rig, post } = await startWebhookRig();
    const { fake, alice, group } = rig;
    const update = fake.compose({ chat: group.id, from: alice, text: "@ChatBridgeBot once only" });
    expect(await post(update, SECRET)).toBe(200);
    expect(await post(update, SECRET)).toBe(200);
    await rig.channel.settled();
    expect(await post(update, SECRET)).toBe(200);
    await rig.channel.settled();
    expect(rig.harness.simulator.requests.filter((r) => r.route === "chat")).toHaveLength(1);
    expect(fake.botMessages(group.id)).toHaveLength(1);
  });

  it("refuses to start without a secret, or with one Telegram would not accept", () => {
    const base = {
      botToken: "1:x",
      webhookUrl: WEBHOOK_URL,
      bridge: {
        receive: () => ({ accepted: Promise.resolve(false), done: Promise.resolve() }),
        stopInThread: async () => "none",
        keepQuiet: async () => {},
        endQuiet: async () => {},
      },
      store: {} as never,
      log: createLogger({ level: "silent", secrets: [] }),
    };
    expect(() => createTelegramChannel(base)).toThrow(ConfigError);
    expect(() => createTelegramChannel({ ...base, webhookSecret: "has spaces" })).toThrow(
      /TELEGRAM_WEBHOOK_SECRET must be/,
    );
  });

  it("removes a stale webhook when it starts with long polling", async () => {
    rig = await startRig({ start: false });
    const { fake, alice, dm } = rig;
    await fetch(`${fake.url}/bot${fake.token}/setWebhook`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: WEBHOOK_URL }),
    });
    await rig.channel.start();
    expect(fake.webhook()).toBeUndefined();
    fake.write({ chat: dm.id, from: alice, text: "/help" });
    await until(() => fake.botMessages(dm.id).length === 1, 3_000, "the help");
  });
});
