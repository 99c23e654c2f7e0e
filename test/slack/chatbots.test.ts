import { afterEach, describe, expect, it } from "vitest";
import {
  mention,
  message,
  type SlackHarness,
  type SlackHarnessOptions,
  startSlackHarness,
} from "../support/slack-harness.ts";

let h: SlackHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const SUPPORT = { name: "support", botUid: "sim-support" };
const SALES = { name: "sales", botUid: "sim-sales" };

async function start(options: SlackHarnessOptions = {}): Promise<SlackHarness> {
  h = await startSlackHarness({
    chatbots: [SUPPORT, SALES],
    slack: { nativeStreaming: false },
    fake: {
      channels: { C1: { type: "channel" }, C2: { type: "channel" }, C3: { type: "channel" } },
    },
    ...options,
  });
  return h;
}

/** The bot_uid the simulated chatbot that wrote the thread's last answer names. */
function answeredBy(harness: SlackHarness, channel: string, ts: string): string | undefined {
  const last = harness.fake.thread(channel, ts).at(-1)?.text ?? "";
  return /simulated chatbot `([^`]+)`/.exec(last)?.[1];
}

/** A person mentions the bot at the top of `channel`; resolves with the new thread's ts. */
async function askIn(harness: SlackHarness, channel: string, text: string): Promise<string> {
  const ts = harness.nextTs();
  await harness.sendEvent(mention(text, { ts, channel }));
  await harness.settle();
  return ts;
}

describe("Slack with several chatbots", () => {
  it("routes each channel to the chatbot an admin picked, by @mention or /chatbot-use", async () => {
    const harness = await start();
    // C1: an admin's `@Chatbot use sales`; a member's is refused, privately.
    const refused = harness.nextTs();
    await harness.sendEvent(mention("use sales", { ts: refused, channel: "C1", user: "U1" }));
    await harness.settle();
    expect(harness.fake.ephemerals.map((e) => e.text)).toEqual([
      "Only an admin of this channel can choose its chatbot.",
    ]);
    const picked = harness.nextTs();
    await harness.sendEvent(mention("use sales", { ts: picked, channel: "C1", user: "UADMIN" }));
    await harness.settle();
    expect(harness.fake.thread("C1", picked).map((m) => m.text)).toEqual([
      "New conversations here now go to sales. A conversation under way stays with its chatbot; `@chatbot new` starts a new one.",
    ]);
    // C2: the slash command; alone, it shows the channel's chatbot.
    await harness.sendCommand("/chatbot-use", "", { channel: "C2" });
    await harness.settle();
    await harness.sendCommand("/chatbot-use", "support", { channel: "C2", user: "UADMIN" });
    await harness.settle();
    expect(harness.fake.responses).toEqual([
      {
        type: "ephemeral",
        text: "Questions here go to support, the default. Chatbots: support, sales. Admins can change it with `/chatbot-use &lt;name&gt;`.",
      },
      {
        type: "in_channel",
        text: "New conversations here now go to support. A conversation under way stays with its chatbot; `@chatbot new` starts a new one.",
      },
    ]);

    expect(answeredBy(harness, "C1", await askIn(harness, "C1", "what do you sell?"))).toBe(
      "sim-sales",
    );
    expect(answeredBy(harness, "C2", await askIn(harness, "C2", "my order is late"))).toBe(
      "sim-support",
    );
    // A channel nobody set: the default. And "use …" that names no chatbot is a question.
    const other = await askIn(harness, "C3", "use the refund form?");
    expect(answeredBy(harness, "C3", other)).toBe("sim-support");
    expect(harness.fake.thread("C3", other).at(-1)?.text).toContain("use the refund form?");
  });

  it("keeps a thread with the chatbot it began with after the channel switches", async () => {
    const harness = await start();
    const thread = await askIn(harness, "C1", "hello");
    expect(answeredBy(harness, "C1", thread)).toBe("sim-support");
    await harness.sendCommand("/chatbot-use", "sales", { user: "UADMIN" });
    await harness.settle();

    await harness.sendEvent(message("and then?", { ts: harness.nextTs(), threadTs: thread }));
    await harness.settle();
    const [, later] = harness.fake.thread("C1", thread).map((m) => m.text);
    expect(answeredBy(harness, "C1", thread)).toBe("sim-support");
    expect(later).toContain("This is question 2 in our conversation.");
    expect(answeredBy(harness, "C1", await askIn(harness, "C1", "hi again"))).toBe("sim-sales");
  });

  it("lists /chatbot-use in /chatbot-help", async () => {
    const harness = await start();
    await harness.sendCommand("/chatbot-help", "");
    await harness.settle();
    const help = harness.fake.responses[0]?.text ?? "";
    expect(help).toMatch(/^\/chatbot-use +show which chatbot answers here, and the others$/m);
    expect(help).toMatch(/^\/chatbot-use &lt;name&gt; +send new conversations here to that/m);
  });

  it("names a chatbot the backend refuses, in its channel and in one log line, while the other answers", async () => {
    // The simulator serves support only: sales's bot_uid is unknown there (HTTP 404).
    const harness = await start({ simulator: { bots: [SUPPORT.botUid] } });
    await harness.sendCommand("/chatbot-use", "sales", { channel: "C2", user: "UADMIN" });
    await harness.settle();
    const refused = await askIn(harness, "C2", "hello");
    expect(harness.fake.thread("C2", refused).map((m) => m.text)).toEqual([
      "⚠️ sales: the chatbot was not found (HTTP 404): check the base URL and the bot id",
    ]);
    expect(harness.logs.filter((line) => line.level >= 50)).toEqual([
      expect.objectContaining({
        chatbot: "sales",
        msg: "the chatbot sales was not found (HTTP 404): check CHATBOT_BASE_URL and the bot_uid of sales in CHATBOTS",
      }),
    ]);
    const answered = await askIn(harness, "C1", "hello");
    expect(harness.fake.thread("C1", answered).at(-1)?.text).toContain(
      "This is the simulated chatbot.",
    );
  });
});
