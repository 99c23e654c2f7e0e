import { describe, expect, it } from "vitest";
import { ButtonHandlers } from "../../src/bridge/button-handlers.ts";
import type { PressedButton } from "../../src/ports.ts";
import {
  blockActions,
  type SlackHarness,
  type SlackHarnessOptions,
  slackHarnessPerTest,
} from "../support/slack-harness.ts";

const startHarness = slackHarnessPerTest({ logLevel: "debug" });

const DEBUG = 20;

/** A Slack channel whose presses of `action` are recorded, then handled by `then`. */
async function start(
  then: (pressed: PressedButton) => Promise<void> = async () => undefined,
  options: SlackHarnessOptions = {},
): Promise<{ harness: SlackHarness; pressed: PressedButton[] }> {
  const pressed: PressedButton[] = [];
  const buttons = new ButtonHandlers().on("test.press", async (press) => {
    pressed.push(press);
    await then(press);
  });
  const harness = await startHarness({ ...options, slack: { buttons } });
  return { harness, pressed };
}

describe("Slack buttons (block_actions)", () => {
  it("acknowledges a signed press at once and hands its action, id and presser to the handler", async () => {
    let release: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { harness, pressed } = await start(() => slow);
    const ack = await harness.sendAction(
      blockActions({ actionId: "test.press:0", value: "lead-1", user: "UADMIN", username: "ann" }),
    );
    // The handler is still running: the 200 did not wait for it.
    expect(ack.status).toBe(200);
    expect(ack.ms).toBeLessThan(2_500);
    release();
    await harness.settle();
    expect(pressed).toHaveLength(1);
    const [press] = pressed as [PressedButton];
    expect(press).toMatchObject({
      channel: "slack",
      action: "test.press",
      id: "lead-1",
      channelId: "C1",
      person: { id: "UADMIN", name: "@ann" },
    });
    expect(await press.person.isAdmin()).toBe(true);
  });

  it("refuses a press with a wrong signature (401) and never runs the handler", async () => {
    const { harness, pressed } = await start();
    const ack = await harness.sendAction(blockActions({ actionId: "test.press:0", value: "x" }), {
      signature: "v0=0000",
    });
    await harness.settle();
    expect(ack.status).toBe(401);
    expect(pressed).toEqual([]);
  });

  it("answers a press no feature knows 200, with one debug line and no reply", async () => {
    const { harness, pressed } = await start();
    const before = harness.logs.length;
    const ack = await harness.sendAction(
      blockActions({ actionId: "other-app-button", value: "1" }),
    );
    await harness.settle();
    expect(ack.status).toBe(200);
    expect(pressed).toEqual([]);
    const lines = harness.logs.slice(before);
    // Bolt's own chatter is at debug too; ours is the one line that names the press.
    expect(lines.filter((line) => line.msg.includes("button press"))).toEqual([
      expect.objectContaining({ level: DEBUG, msg: "Slack button press with no handler" }),
    ]);
    expect(lines.filter((line) => line.level > DEBUG)).toEqual([]);
    expect(harness.fake.ephemerals).toEqual([]);
    expect(harness.fake.calls.filter((c) => c.method.startsWith("chat."))).toEqual([]);
  });

  it("tells the presser privately, in plain text that pings no one", async () => {
    const { harness } = await start(async (press) => {
      await press.replyPrivately("Only <!channel> @ann can do that");
    });
    // A message of the bot's with a button on it, to press.
    const result = (await (
      await fetch(`${harness.fake.apiUrl}chat.postMessage`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${harness.fake.options.botToken}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({
          channel: "C1",
          text: "a card",
          blocks: [
            { type: "section", text: { type: "mrkdwn", text: "a card" } },
            {
              type: "actions",
              block_id: "chatbot-bridge-buttons",
              elements: [
                {
                  type: "button",
                  action_id: "test.press:0",
                  value: "first",
                  text: { type: "plain_text", text: "Press" },
                },
              ],
            },
          ],
        }),
      })
    ).json()) as { ts: string };
    const message = harness.fake.messages.get(result.ts);
    if (!message) throw new Error("not posted");
    await harness.sendAction(
      blockActions({
        actionId: "test.press:0",
        value: "first",
        user: "U1",
        messageTs: result.ts,
        message: { type: "message", ts: result.ts, text: message.text, blocks: message.blocks },
      }),
    );
    await harness.settle();
    expect(harness.fake.ephemerals).toEqual([
      {
        channel: "C1",
        user: "U1",
        threadTs: undefined,
        text: "Only &lt;!channel&gt; @ann can do that",
      },
    ]);
    // The card itself is left as it is.
    expect(harness.fake.view(message).visible).toBe("a card");
    expect(harness.fake.calls.filter((c) => c.method === "chat.update")).toEqual([]);
  });

  it("takes presses over Socket Mode too, acknowledging each envelope", async () => {
    const { harness, pressed } = await start(async () => undefined, { socketMode: true });
    await harness.sendAction(blockActions({ actionId: "test.press:0", value: "s" }));
    await harness.settle();
    expect(pressed.map((p) => p.id)).toEqual(["s"]);
    expect(harness.fake.socket.sent.at(-1)?.ackedAt).toBeDefined();
  });
});
