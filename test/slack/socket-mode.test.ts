import { afterEach, describe, expect, it } from "vitest";
import { safeMarkdown } from "../../adapters/slack/stream-markdown.ts";
import { mention, type SlackHarness, startSlackHarness } from "../support/slack-harness.ts";
import { simulatedAnswer } from "./samples.ts";

let h: SlackHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("Slack over Socket Mode", () => {
  it("connects with the app token, serves no HTTP route, and answers a mention once", async () => {
    h = await startSlackHarness({ socketMode: true, simulator: { chunkDelayMs: [1, 3] } });
    expect(h.channel.routes).toEqual([]);
    expect(h.channel.unhealthyReason()).toBeUndefined();
    expect(h.fake.callsTo("apps.connections.open")).toHaveLength(1);

    const ts = h.nextTs();
    const event = mention("over the socket", { ts });
    const ack = await h.sendEvent(event, { eventId: "EvS1" });
    // Slack's redelivery carries retry_attempt; it is answered once all the same.
    await h.sendEvent(event, { eventId: "EvS1", retryNum: 1 });
    await h.settle();

    expect(ack.ms).toBeLessThan(3_000);
    expect(h.simulator.requests.filter((r) => r.route === "chat")).toHaveLength(1);
    const [answer, ...others] = h.fake.thread("C1", ts);
    expect(others).toEqual([]);
    expect(answer?.text).toBe(safeMarkdown(simulatedAnswer("over the socket")));
  });

  it("takes slash commands over the socket", async () => {
    h = await startSlackHarness({ socketMode: true });
    await h.sendCommand("/language", "", { user: "U1" });
    await h.settle();
    expect(h.fake.responses).toEqual([
      {
        type: "ephemeral",
        text: "Answers here are in the language of each question (auto), the default. Admins can change it with /language &lt;code&gt;.",
      },
    ]);
  });

  it("reports itself unhealthy when the connection drops", async () => {
    h = await startSlackHarness({ socketMode: true, slack: { socketPingTimeoutMs: 200 } });
    h.fake.socket.close();
    const deadline = performance.now() + 3_000;
    while (h.channel.unhealthyReason() === undefined && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(h.channel.unhealthyReason()).toBe("Slack Socket Mode connection is down");
    // It reconnects by itself.
    await h.fake.socket.connected();
    while (h.channel.unhealthyReason() !== undefined && performance.now() < deadline + 3_000) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(h.channel.unhealthyReason()).toBeUndefined();
  });
});
