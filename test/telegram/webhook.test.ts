import { afterEach, describe, expect, it } from "vitest";
import {
  createTelegramChannel,
  type TelegramChannelOptions,
} from "../../adapters/telegram/index.ts";
import { ConfigError } from "../../src/errors.ts";
import { type RunningHttpServer, startHttpServer } from "../../src/http-server.ts";
import { createLogger } from "../../src/log.ts";
import { Metrics } from "../../src/metrics.ts";
import type { Update } from "../support/fake-telegram.ts";
import { type Rig, startRig, until } from "./rig.ts";

const SECRET = "webhook-Secret_42";
const WEBHOOK_URL = "https://bot.example.com/telegram/webhook";

let rig: Rig | undefined;
let server: RunningHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  // Whatever still streams is cut when the backend goes: nobody waits out a 10 s answer.
  await rig?.harness.simulator.close();
  await rig?.close();
  rig = undefined;
  server = undefined;
});

async function startWebhookRig(channel: Partial<TelegramChannelOptions> = {}): Promise<{
  rig: Rig;
  post: (update: Update, secret?: string) => Promise<{ status: number; ms: number }>;
}> {
  rig = await startRig({
    channel: { webhookUrl: WEBHOOK_URL, webhookSecret: SECRET, ...channel },
  });
  server = await startHttpServer({
    port: 0,
    host: "127.0.0.1",
    routes: rig.channel.routes,
    health: async () => ({ problems: [] }),
    metrics: new Metrics(),
    log: createLogger({ level: "silent", secrets: [] }),
  });
  const url = `http://127.0.0.1:${server.port}/telegram/webhook`;
  const post = async (update: Update, secret?: string) => {
    const started = performance.now();
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(secret === undefined ? {} : { "x-telegram-bot-api-secret-token": secret }),
      },
      body: JSON.stringify(update),
    });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - started };
  };
  // Warm the client (its first fetch loads and connects) so timings measure the server.
  await fetch(`http://127.0.0.1:${server.port}/healthz`).then((r) => r.arrayBuffer());
  return { rig, post };
}

describe("Telegram webhook mode", () => {
  it("registers the webhook with its secret at start and never polls", async () => {
    const { rig } = await startWebhookRig();
    expect(rig.fake.webhook()).toEqual({ url: WEBHOOK_URL, secret: SECRET });
    expect(rig.fake.callsTo("getUpdates")).toHaveLength(0);
    expect(rig.channel.unhealthyReason()).toBeUndefined();
  });

  it("answers Telegram under 100 ms while a 10-second answer streams on", async () => {
    const { rig, post } = await startWebhookRig();
    const { fake, alice, dm } = rig;
    const update = fake.compose({ chat: dm.id, from: alice, text: "slow one #pause=10000" });
    const { status, ms } = await post(update, SECRET);
    expect(status).toBe(200);
    expect(ms).toBeLessThan(100);
    // The first half shows (as a draft) while the backend pauses for ten seconds.
    await until(() => (fake.drafts(dm.id).size ?? 0) > 0, 3_000, "the first half");
    expect(fake.botMessages(dm.id)).toHaveLength(0);
    // Meanwhile the webhook keeps answering at once.
    const other = fake.compose({ chat: dm.id, from: alice, text: "/help" });
    expect((await post(other, SECRET)).ms).toBeLessThan(100);
    // The backend goes away mid-pause: the draft is persisted once, with the cut note.
    await rig.harness.simulator.close();
    await rig.channel.settled();
    const answers = fake.botMessages(dm.id).filter((m) => m.text.startsWith("Hello!"));
    expect(answers).toHaveLength(1);
    expect(answers[0]?.text).toMatch(/⚠️ answer cut off: connection lost$/);
  });

  it("refuses a missing or wrong secret with 401 and does nothing with the update", async () => {
    const { rig, post } = await startWebhookRig();
    const { fake, alice, dm } = rig;
    const update = fake.compose({ chat: dm.id, from: alice, text: "hello" });
    expect((await post(update)).status).toBe(401);
    expect((await post(update, "wrong-secret")).status).toBe(401);
    expect((await post(update, `${SECRET}x`)).status).toBe(401);
    await rig.channel.settled();
    expect(
      fake.calls.filter((c) => c.method === "sendMessage" || c.method === "sendMessageDraft"),
    ).toHaveLength(0);
    expect(rig.harness.simulator.requests.filter((r) => r.route === "chat")).toHaveLength(0);
  });

  it("past its updates in flight, answers 503 so Telegram re-sends, and takes the update later", async () => {
    const { rig, post } = await startWebhookRig({ maxUpdatesInFlight: 2 });
    const { fake, alice, group } = rig;
    const ask = (text: string) =>
      fake.compose({ chat: group.id, from: alice, text: `@ChatBridgeBot ${text} #pause=1500` });
    expect((await post(ask("one"), SECRET)).status).toBe(200);
    expect((await post(ask("two"), SECRET)).status).toBe(200);
    const third = ask("three");
    expect((await post(third, SECRET)).status).toBe(503);
    await rig.channel.settled();
    // Telegram's re-delivery, once the first two are answered.
    expect((await post(third, SECRET)).status).toBe(200);
    await rig.channel.settled();
    const asked = rig.harness.simulator.requests.filter((r) => r.route === "chat");
    expect(asked).toHaveLength(3);
    expect(fake.botMessages(group.id)).toHaveLength(3);
  });

  it("answers a re-sent update once", async () => {
    const { rig, post } = await startWebhookRig();
    const { fake, alice, group } = rig;
    const update = fake.compose({ chat: group.id, from: alice, text: "@ChatBridgeBot once only" });
    expect((await post(update, SECRET)).status).toBe(200);
    expect((await post(update, SECRET)).status).toBe(200);
    await rig.channel.settled();
    expect((await post(update, SECRET)).status).toBe(200);
    await rig.channel.settled();
    expect(rig.harness.simulator.requests.filter((r) => r.route === "chat")).toHaveLength(1);
    expect(fake.botMessages(group.id)).toHaveLength(1);
  });

  it("refuses to start without a secret, or with one Telegram would not accept", () => {
    const base = {
      botToken: "1:x",
      webhookUrl: WEBHOOK_URL,
      bridge: { handle: async () => undefined },
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
