import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { TelegramApiError } from "../../adapters/telegram/errors.ts";
import { createTelegramChannel } from "../../adapters/telegram/index.ts";
import { StartupError } from "../../src/errors.ts";
import { createLogger } from "../../src/log.ts";
import { refusedPort } from "../support/raw-backend.ts";
import { answered, type Rig, startRig, until } from "./rig.ts";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const linesWith = (r: Rig, text: string) => r.logs.filter((line) => line.includes(text));

describe("Telegram long polling", () => {
  it("answers one chat while another chat's answer is still slow", async () => {
    rig = await startRig();
    const { fake, bob, carol, group } = rig;
    const bobChat = fake.addChat({ id: bob.id, type: "private", first_name: "Bob" });
    fake.write({ chat: group.id, from: carol, text: "@ChatBridgeBot slow #delay=3000" });
    const quick = fake.write({ chat: bobChat.id, from: bob, text: "quick one" });
    // Well inside the slow one's delay, with room for a busy machine.
    await until(() => fake.botMessages(bobChat.id).length === 1, 2_500, "the quick answer");
    expect(fake.botMessages(group.id)).toHaveLength(0);
    expect(fake.botMessages(bobChat.id)[0]?.text).toContain("You asked: “quick one”");
    await answered(rig, quick);
    expect(fake.botMessages(group.id)).toHaveLength(1);
  });

  it("meets a 409 Conflict with one log line and a backoff, then resumes", async () => {
    rig = await startRig({ start: false });
    const { fake, alice, dm, channel } = rig;
    fake.conflict = true;
    await channel.start();
    await until(() => fake.callsTo("getUpdates").length >= 4, 5_000, "three tries again");
    // 50, 100, 200, 400 ms apart, at least: backing off, never a hot loop.
    const at = fake.callsTo("getUpdates").map((call) => call.at);
    const gaps = at.slice(1, 4).map((time, i) => time - (at[i] ?? 0));
    for (const [i, gap] of gaps.entries()) expect(gap).toBeGreaterThanOrEqual(45 * 2 ** i);
    expect(linesWith(rig, "409 Conflict")).toHaveLength(1);
    expect(channel.unhealthyReason()).toMatch(/409 Conflict/);

    fake.conflict = false;
    const update = fake.write({ chat: dm.id, from: alice, text: "/help" });
    await answered(rig, update);
    expect(fake.botMessages(dm.id)).toHaveLength(1);
    expect(channel.unhealthyReason()).toBeUndefined();
    expect(linesWith(rig, "Telegram polling resumed")).toHaveLength(1);
  });

  it("backs off when another process polls with the same token", async () => {
    const r = await startRig();
    rig = r;
    const { fake } = r;
    await until(() => fake.pendingPolls === 1, 2_000, "a long poll");
    // A second instance's getUpdates ends the bot's waiting one with 409, as on Telegram.
    const rogue = await fetch(`${fake.url}/bot${fake.token}/getUpdates`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ timeout: 0 }),
    });
    expect(rogue.status).toBe(200);
    await until(() => linesWith(r, "409 Conflict").length === 1, 2_000, "the conflict line");
    await until(() => r.channel.unhealthyReason() === undefined, 2_000, "polling to resume");
  });

  it("reports polling that stalls", async () => {
    const r = await startRig({ start: false });
    rig = r;
    rig.fake.holdPolls = true;
    await rig.channel.start();
    expect(rig.channel.unhealthyReason()).toBeUndefined();
    // Long-poll timeout 1 s plus 300 ms of grace.
    await until(() => r.channel.unhealthyReason() !== undefined, 3_000, "a stall");
    expect(rig.channel.unhealthyReason()).toMatch(/stalled/);
    rig.fake.holdPolls = false;
  });

  it("keeps the bot token out of every error and log line", async () => {
    const r = await startRig();
    rig = r;
    const token = rig.fake.token;
    // The API goes away under a running poller: network errors get logged.
    await rig.fake.close();
    await until(() => linesWith(r, "getUpdates failed").length > 0, 3_000, "a logged failure");

    const port = await refusedPort();
    const logs: string[] = [];
    const channel = createTelegramChannel({
      botToken: token,
      apiRoot: `http://127.0.0.1:${port}`,
      bridge: rig.harness.bridge,
      store: rig.harness.store,
      log: createLogger({
        level: "debug",
        secrets: [],
        pretty: false,
        destination: {
          write: (line: string) => logs.push(line),
        } as unknown as NodeJS.WritableStream,
      }),
      startAttempts: 1,
    });
    const error = await channel.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    // One line for the operator, naming where the bot looked for Telegram.
    expect(error).toBeInstanceOf(StartupError);
    expect((error as StartupError).variable).toBe("TELEGRAM_API_ROOT");
    expect((error as Error).message).toBe(
      "Telegram getMe kept failing: network request failed (ECONNREFUSED). Check this machine's network and, if set, TELEGRAM_API_ROOT; then start again",
    );
    expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(token);
    expect(rig.logs.join("")).not.toContain(token);
    expect(logs.join("")).not.toContain(token);
  });

  it("logs a failed update without the grammY context that holds the token", async () => {
    rig = await startRig({
      channel: {
        bridge: {
          receive: () => {
            const failed = Promise.reject(new Error("boom"));
            return { accepted: failed.then(() => true), done: failed };
          },
          stopInThread: async () => "none",
          keepQuiet: async () => {},
          endQuiet: async () => {},
        },
      },
    });
    await answered(rig, rig.fake.write({ chat: rig.dm.id, from: rig.alice, text: "hi" }));
    expect(linesWith(rig, "Telegram update failed")).toHaveLength(1);
    expect(rig.logs.join("")).toContain("boom");
    expect(rig.logs.join("")).not.toContain(rig.fake.token);
  });

  it("says when Telegram asks for a longer wait than the start sits out, without blaming the network", async () => {
    rig = await startRig({ start: false });
    rig.fake.failNext({
      method: "getMe",
      errorCode: 429,
      description: "Too Many Requests: retry after 300",
      retryAfter: 300,
    });
    const error = await failedStart(rig, rig.fake.token);
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).message).toBe(
      "Telegram getMe was refused for now: the platform asks to wait 300 s; start again after that",
    );
  });

  it("says so clearly when Telegram rejects the token", async () => {
    rig = await startRig({ start: false });
    const error = await failedStart(rig, "999:wrong-token-value");
    // A setting to fix, named; Telegram's own refusal stays the cause.
    expect(error).toBeInstanceOf(StartupError);
    expect((error as StartupError).variable).toBe("TELEGRAM_BOT_TOKEN");
    const cause = (error as StartupError).cause;
    expect(cause).toBeInstanceOf(TelegramApiError);
    expect((cause as TelegramApiError).errorCode).toBe(401);
    expect(inspect(error, { depth: 10, showHidden: true })).not.toContain("wrong-token-value");
  });
});

/** What a Telegram channel with `botToken` fails its start with, on the rig's fake. */
function failedStart(on: Rig, botToken: string): Promise<unknown> {
  const channel = createTelegramChannel({
    botToken,
    apiRoot: on.fake.url,
    bridge: on.harness.bridge,
    store: on.harness.store,
    log: createLogger({ level: "silent", secrets: [] }),
  });
  return channel.start().then(
    () => undefined,
    (error: unknown) => error,
  );
}
