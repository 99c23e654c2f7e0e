import { afterEach, describe, expect, it } from "vitest";
import { type Rig, startRig } from "./rig.ts";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe("Telegram start-up", () => {
  it("rides out a passing Telegram error instead of ending the process", async () => {
    rig = await startRig({ start: false, channel: { startAttempts: 3 } });
    rig.fake.failNext({ method: "getMe", errorCode: 502, description: "Bad Gateway" });
    rig.fake.failNext({
      method: "deleteWebhook",
      errorCode: 429,
      description: "Too Many Requests: retry after 1",
      retryAfter: 1,
    });
    await rig.channel.start();
    expect(rig.channel.username).toBe(rig.fake.bot.username);
    expect(rig.fake.callsTo("getMe").map((c) => c.ok)).toEqual([false, true]);
    expect(rig.fake.callsTo("deleteWebhook").map((c) => c.ok)).toEqual([false, true]);
  });

  it("fails at once on a token Telegram does not know", async () => {
    rig = await startRig({ start: false, channel: { startAttempts: 3 } });
    rig.fake.failNext({ method: "getMe", errorCode: 401, description: "Unauthorized" });
    await expect(rig.channel.start()).rejects.toThrow("401");
    expect(rig.fake.callsTo("getMe")).toHaveLength(1);
  });
});
