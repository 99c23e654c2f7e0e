import { describe, expect, it } from "vitest";
import {
  blockActions,
  mention,
  message,
  type SendOptions,
  type SlackHarness,
  type SlackHarnessOptions,
} from "../support/slack-harness.ts";
import { answerBeingWritten, expectStopped, slackOnHeldBackend } from "../support/slack-held.ts";
import { waitFor } from "./wait.ts";

const rig = slackOnHeldBackend({
  fake: {
    users: { U1: {}, U2: {}, UADMIN: { isAdmin: true } },
    channels: { C1: { type: "channel" }, C2: { type: "channel" } },
  },
  slack: { nativeStreaming: false, adminUsers: ["ULISTED"] },
});
const start = (options?: SlackHarnessOptions) => rig.start(options);
const streaming = answerBeingWritten;

/** `@bot stop` typed in the thread by `user`, whose profile carries `name`. */
function stopBy(user: string, threadTs: string, ts: string, name: string) {
  return { ...mention("stop", { ts, user, threadTs }), user_profile: { display_name: name } };
}

describe("stopping an answer", () => {
  it("stops at the asker's word: the request closed, the text kept, the note shown, the conversation goes on", async () => {
    const harness = await start();
    const held = rig.backend;
    const ts = await streaming(harness);
    await harness.sendEvent(stopBy("U1", ts, harness.nextTs(), "Ann <@here> & co"));
    await harness.settle();

    expectStopped(harness, held, ts, "⏹ stopped by Ann &lt;@here&gt; &amp; co");

    held.releaseAll();
    await harness.sendEvent(message("and tomorrow?", { ts: harness.nextTs(), threadTs: ts }));
    await harness.settle();
    expect(held.conversations).toEqual([undefined, "conv-1"]);
  });

  it("refuses another member privately and lets the answer go on", async () => {
    const harness = await start();
    const held = rig.backend;
    const ts = await streaming(harness);
    await harness.sendEvent(stopBy("U2", ts, harness.nextTs(), "Bob"));
    await waitFor(() => harness.fake.ephemerals.length > 0, "the refusal");
    expect(harness.fake.ephemerals).toEqual([
      {
        channel: "C1",
        user: "U2",
        threadTs: expect.any(String),
        text: "Only the person who asked or an admin of this channel can stop this answer.",
      },
    ]);
    expect(held.open).toBe(1);
    held.releaseAll();
    await harness.settle();
    expect(held.dropped).toEqual([]);
    expect(harness.fake.thread("C1", ts).map((m) => m.text)).toEqual(["Answer to weather."]);
  });

  it("lets a workspace admin stop someone else's answer", async () => {
    const harness = await start();
    const held = rig.backend;
    const ts = await streaming(harness);
    await harness.sendEvent(stopBy("UADMIN", ts, harness.nextTs(), "Admin"));
    await harness.settle();
    expect(held.dropped).toEqual(["weather"]);
    expect(harness.fake.thread("C1", ts).map((m) => m.text)).toEqual([
      "Answer to weather\n\n⏹ stopped by Admin",
    ]);
  });

  it("says privately when nothing is being written in the thread", async () => {
    const harness = await start();
    const ts = harness.nextTs();
    await harness.sendEvent(stopBy("U1", ts, ts, "Ann"));
    await harness.settle();
    expect(harness.fake.ephemerals.map((e) => e.text)).toEqual([
      "Nothing to stop: no answer is being written in this thread.",
    ]);
  });
});

describe("the Stop button and the votes under answers", () => {
  /** Presses button `label` of the first message in thread `ts`, as `user`. */
  async function press(
    harness: SlackHarness,
    ts: string,
    label: string,
    user: string,
    send: SendOptions = {},
  ) {
    const [shown] = harness.fake.thread("C1", ts);
    if (!shown) throw new Error("no message in the thread");
    const button = harness.fake.buttonsOf(shown).find((b) => b.label === label);
    if (!button) throw new Error(`no ${label} button`);
    return harness.sendAction(
      blockActions({
        actionId: button.actionId,
        value: button.value,
        user,
        username: user.toLowerCase(),
        messageTs: shown.ts,
        threadTs: ts,
      }),
      send,
    );
  }

  const labels = (harness: SlackHarness, ts: string) => {
    const [shown] = harness.fake.thread("C1", ts);
    return shown ? harness.fake.buttonsOf(shown).map((b) => b.label) : [];
  };

  it("shows Stop while the answer grows; the asker's press stops it, another member's is refused privately", async () => {
    const harness = await start();
    const held = rig.backend;
    const ts = await streaming(harness);
    expect(labels(harness, ts)).toEqual(["⏹ Stop"]);

    const refused = await press(harness, ts, "⏹ Stop", "U2");
    expect(refused.status).toBe(200);
    await waitFor(() => harness.fake.ephemerals.length > 0, "the refusal");
    expect(harness.fake.ephemerals.map((e) => [e.user, e.text])).toEqual([
      ["U2", "Only the person who asked or an admin of this channel can stop this answer."],
    ]);
    expect(held.open).toBe(1);

    await press(harness, ts, "⏹ Stop", "U1");
    await harness.settle();
    expect(held.dropped).toEqual(["weather"]);
    expect(harness.fake.thread("C1", ts).map((m) => m.text)).toEqual([
      "Answer to weather\n\n⏹ stopped by @u1",
    ]);
    // The stopped answer can be rated; Stop is gone.
    expect(labels(harness, ts)).toEqual(["👍", "👎"]);
  });

  it("refuses a press dated in the future (+6 min, +1 h) as Slack's signature rules say: 401, the answer goes on", async () => {
    const harness = await start();
    const held = rig.backend;
    const ts = await streaming(harness);
    const now = Math.floor(Date.now() / 1000);
    const future = [];
    for (const ahead of [6 * 60, 60 * 60]) {
      future.push((await press(harness, ts, "⏹ Stop", "U1", { timestamp: now + ahead })).status);
    }
    expect(future).toEqual([401, 401]);
    // Within 5 minutes either way it is Slack's (clocks differ a little), and it is the press
    // that stops the answer: the refused ones had stopped nothing.
    const near = await press(harness, ts, "⏹ Stop", "U1", { timestamp: now + 4 * 60 });
    await harness.settle();
    expect(near.status).toBe(200);
    expect(held.dropped).toEqual(["weather"]);
    expect(harness.fake.ephemerals).toEqual([]);
    expect(harness.fake.thread("C1", ts).map((m) => m.text)).toEqual([
      "Answer to weather\n\n⏹ stopped by @u1",
    ]);
  });

  it("tells the presser privately when Slack cannot say whether they are an admin, and stops nothing", async () => {
    const harness = await start();
    const held = rig.backend;
    const ts = await streaming(harness);
    // However many lookups the press makes (the admin check; the presser's language).
    harness.fake.failNext("users.info", "fatal_error", 3);
    await press(harness, ts, "⏹ Stop", "U2");
    await waitFor(
      () => harness.logs.some((line) => line.msg === "Slack button press failed"),
      "the press handled",
    );
    expect(harness.fake.ephemerals.map((e) => [e.user, e.text])).toEqual([
      ["U2", "⚠️ could not check whether you are a workspace admin (fatal_error)"],
    ]);
    expect(held.open).toBe(1);
  });

  it("sends a refusal Slack failed to deliver once, not again as a failure of the press", async () => {
    const harness = await start();
    const ts = await streaming(harness);
    harness.fake.failNext("chat.postEphemeral", "fatal_error");
    await press(harness, ts, "⏹ Stop", "U2");
    await waitFor(
      () => harness.logs.some((line) => line.msg === "Slack button press failed"),
      "the press handled",
    );
    expect(harness.fake.callsTo("chat.postEphemeral").map((call) => call.args.text)).toEqual([
      "Only the person who asked or an admin of this channel can stop this answer.",
    ]);
  });

  it("lets an admin press Stop on someone else's answer", async () => {
    const harness = await start();
    const ts = await streaming(harness);
    await press(harness, ts, "⏹ Stop", "UADMIN");
    await harness.settle();
    expect(rig.backend.dropped).toEqual(["weather"]);
    expect(harness.fake.thread("C1", ts).map((m) => m.text)).toEqual([
      "Answer to weather\n\n⏹ stopped by @uadmin",
    ]);
  });

  it("stops from a press on an org-wide install, whose payload names no team", async () => {
    const harness = await start();
    const ts = await streaming(harness);
    const [shown] = harness.fake.thread("C1", ts);
    const stop = shown && harness.fake.buttonsOf(shown)[0];
    const payload = blockActions({
      actionId: String(stop?.actionId),
      value: String(stop?.value),
      user: "U1",
      username: "u1",
      messageTs: ts,
    });
    await harness.sendAction({ ...payload, team: null });
    await harness.settle();
    expect(rig.backend.dropped).toEqual(["weather"]);
    expect(harness.fake.thread("C1", ts).map((m) => m.text)).toEqual([
      "Answer to weather\n\n⏹ stopped by @u1",
    ]);
  });

  it("trusts no id a press sends back: Stop from another channel stops nothing", async () => {
    const harness = await start();
    const ts = await streaming(harness);
    const [shown] = harness.fake.thread("C1", ts);
    const stop = shown && harness.fake.buttonsOf(shown)[0];
    // An admin, but in C2: the answer in C1 is not theirs to stop from there.
    await harness.sendAction(
      blockActions({
        actionId: String(stop?.actionId),
        value: String(stop?.value),
        user: "UADMIN",
        channel: "C2",
      }),
    );
    await waitFor(() => harness.fake.ephemerals.length > 0, "the reply");
    expect(harness.fake.ephemerals.map((e) => e.text)).toEqual([
      "Nothing to stop: no answer is being written in this thread.",
    ]);
    expect(rig.backend.open).toBe(1);
  });

  it("records one vote per person and answer, changeable, and /feedback counts them for admins", async () => {
    const harness = await start();
    rig.backend.releaseAll();
    const ts = harness.nextTs();
    await harness.sendEvent(mention("weather", { ts, user: "U1" }));
    await harness.settle();
    expect(harness.fake.thread("C1", ts).map((m) => m.text)).toEqual(["Answer to weather."]);
    expect(labels(harness, ts)).toEqual(["👍", "👎"]);

    // One press at a time, each thanked before the next: a person's second vote follows
    // their first.
    const votes: [string, string][] = [
      ["👍", "U1"],
      ["👍", "U2"],
      ["👎", "U2"],
    ];
    for (const [i, [label, user]] of votes.entries()) {
      await press(harness, ts, label, user);
      await waitFor(() => harness.fake.ephemerals.length === i + 1, `thanks ${i + 1}`);
    }
    expect(harness.fake.ephemerals.map((e) => [e.user, e.text])).toEqual([
      ["U1", "Thanks for your 👍!"],
      ["U2", "Thanks for your 👍!"],
      ["U2", "Your vote is now 👎. Thanks!"],
    ]);

    // One at a time: replies after an admin look-up come in any order.
    for (const [text, user] of [
      ["", "U1"],
      ["30", "UADMIN"],
      ["soon", "UADMIN"],
    ] as const) {
      await harness.sendCommand("/feedback", text, { user });
      await harness.settle();
    }
    expect(harness.fake.responses.map((r) => r.text)).toEqual([
      "Only an admin of this channel can see the feedback.",
      "Votes on answers in this channel in the last 30 days: 👍 1 · 👎 1 (50% 👍)",
      expect.stringContaining("(1 to 90)"),
    ]);

    // A bot admin (SLACK_ADMIN_USERS) in their DM sees every channel's votes.
    await harness.sendCommand("/feedback", "", { user: "ULISTED", channel: "D1" });
    await harness.settle();
    expect(harness.fake.responses.at(-1)?.text).toBe(
      "Votes on answers in all channels in the last 7 days: 👍 1 · 👎 1 (50% 👍)",
    );

    const metrics = await (
      await fetch(`${harness.eventsUrl.replace("/slack/events", "")}/metrics`)
    ).text();
    expect(metrics).toContain(
      'chatbot_bridge_feedback_votes_total{platform="slack",rating="up"} 2',
    );
    expect(metrics).toContain(
      'chatbot_bridge_feedback_votes_total{platform="slack",rating="down"} 1',
    );
  });

  it("ends a native stream with Slack's feedback buttons", async () => {
    const harness = await start({ slack: { nativeStreaming: true } });
    rig.backend.releaseAll();
    const ts = harness.nextTs();
    await harness.sendEvent(mention("weather", { ts, user: "U1" }));
    await harness.settle();
    const [shown] = harness.fake.thread("C1", ts);
    expect(shown?.stream).toBe("stopped");
    expect(shown?.blocks?.at(-1)).toMatchObject({
      type: "context_actions",
      elements: [{ type: "feedback_buttons" }],
    });
    await press(harness, ts, "👎", "U2");
    await waitFor(() => harness.fake.ephemerals.length === 1, "the thanks");
    expect(harness.fake.ephemerals[0]?.text).toBe("Thanks for your 👎!");
  });
});
