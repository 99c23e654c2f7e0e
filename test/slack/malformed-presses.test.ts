import { describe, expect, it } from "vitest";
import { blockActions, slackHarnessPerTest, TEAM } from "../support/slack-harness.ts";

const start = slackHarnessPerTest({ logLevel: "debug" });

const DEBUG = 20;

const press = blockActions({ actionId: "answer.stop:0", value: "1", user: "U1" });
const user = { id: "U1", username: "someone", team_id: TEAM };
const team = { id: TEAM, domain: "fake" };
const view = { id: "V1", type: "modal", callback_id: "x", state: { values: {} }, team_id: TEAM };

/**
 * Interactivity payloads, each signed as Slack signs it: presses with a part Slack always
 * sends made null, and the kinds of interaction the bot has no use for (it opens no modal,
 * offers no shortcut or menu), which Slack sends when the app's settings enable them.
 * https://docs.slack.dev/reference/interaction-payloads
 */
const PAYLOADS: Record<string, Record<string, unknown>> = {
  "actions: null": { ...press, actions: null },
  "user: null": { ...press, user: null },
  // A press all the same: it has every part a press needs.
  "view: null": { ...press, view: null },
  "container: null": { ...press, container: null },
  "an action that is null": { ...press, actions: [null] },
  "view_submission with view: null": { type: "view_submission", user, team, view: null },
  shortcut: { type: "shortcut", callback_id: "x", trigger_id: "t", user, team },
  message_action: {
    type: "message_action",
    callback_id: "x",
    trigger_id: "t",
    user,
    team,
    channel: { id: "C1", name: "general" },
    message: { type: "message", ts: "1700000000.000001", text: "hi" },
    response_url: "https://hooks.slack.com/actions/T0FAKE/1/fake",
  },
  view_submission: { type: "view_submission", user, team, view },
  view_closed: { type: "view_closed", user, team, view, is_cleared: false },
  block_suggestion: {
    type: "block_suggestion",
    user,
    team,
    action_id: "x",
    block_id: "b",
    value: "a",
    container: { type: "view", view_id: "V1" },
    view,
  },
};

describe("a signed interaction payload the bot cannot use", () => {
  it("gets a fast 200 and at most a debug line: no 500, no 404 after 2.5 s, no error", async () => {
    const harness = await start();
    const answered: Record<string, { status: number; fast: boolean }> = {};
    for (const [name, payload] of Object.entries(PAYLOADS)) {
      const ack = await harness.sendAction(payload);
      answered[name] = { status: ack.status, fast: ack.ms < 1_000 };
    }
    await harness.settle();
    expect(answered).toEqual(
      Object.fromEntries(Object.keys(PAYLOADS).map((name) => [name, { status: 200, fast: true }])),
    );
    expect(harness.logs.filter((line) => line.level > DEBUG)).toEqual([]);
    // Only the press whose extra part is null was a press: Stop, with nothing to stop.
    expect(harness.fake.ephemerals.map((e) => e.text)).toEqual([
      "Nothing to stop: no answer is being written in this thread.",
    ]);
  });
});
