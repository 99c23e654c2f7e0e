import { describe, expect, it } from "vitest";
import { translator } from "../../src/i18n/translator.ts";
import { mention, type SlackHarness } from "../support/slack-harness.ts";
import { answerBeingWritten, expectStopped, slackOnHeldBackend } from "../support/slack-held.ts";
import { waitFor } from "./wait.ts";

// Slack's agent sessions: a thread's session is processing while the bot works, and Slack then
// shows its own Stop, whose press comes as agent_session_stopped.
// https://docs.slack.dev/ai/agent-sessions

const rig = slackOnHeldBackend({
  fake: {
    users: { U1: { name: "Ann" }, U2: { name: "Bob" }, UADMIN: { isAdmin: true, name: "Admin" } },
  },
  slack: { nativeStreaming: false },
});

const sessionCalls = (harness: SlackHarness) =>
  harness.fake.callsTo("agents.sessions.setStatus").map((call) => call.args.status);

const both = [{ native: false }, { native: true }];

describe("the thread's agent session around an answer", () => {
  it.each(both)(
    "is processing while the answer is written and active once it ends (native streaming: $native)",
    async ({ native }) => {
      const harness = await rig.start({ slack: { nativeStreaming: native } });
      const ts = await answerBeingWritten(harness);
      await waitFor(() => harness.fake.sessionOf("C1", ts) === "processing", "processing");

      rig.backend.releaseAll();
      await harness.settle();
      expect(harness.fake.thread("C1", ts).map((m) => m.text)).toEqual([
        expect.stringMatching(/^Answer to weather\.?$/),
      ]);
      expect(harness.fake.sessionHistory("C1", ts)).toEqual(["processing", "active"]);
      // A native stream's stop says the session's status itself: one call fewer.
      expect(sessionCalls(harness)).toEqual(native ? ["processing"] : ["processing", "active"]);
      if (native) {
        expect(harness.fake.callsTo("chat.stopStream").map((c) => c.args.session_status)).toEqual([
          "active",
        ]);
      }
    },
  );

  it("holds no text back for it: the answer shows while Slack has not taken the status yet", async () => {
    const harness = await rig.start();
    harness.fake.slowDown("agents.sessions.setStatus", 1_000);
    const ts = await answerBeingWritten(harness);
    expect(sessionCalls(harness)).toEqual(["processing"]);
    expect(harness.fake.sessionOf("C1", ts)).toBeUndefined();

    rig.backend.releaseAll();
    await harness.settle();
    expect(harness.fake.thread("C1", ts).map((m) => m.text)).toEqual(["Answer to weather."]);
    // In order, the end's after the start's.
    expect(harness.fake.sessionHistory("C1", ts)).toEqual(["processing", "active"]);
  });

  it.each(["not_authorized", "missing_scope"] as const)(
    "in a workspace where the app is no agent (%s): answers as before, one line in the log, no call after the first refusal",
    async (refusal) => {
      const harness = await rig.start({ fake: { agentSessions: refusal }, logLevel: "info" });
      rig.backend.releaseAll();
      for (const question of ["weather", "tides"]) {
        const ts = harness.nextTs();
        await harness.sendEvent(mention(question, { ts, user: "U1" }));
        await harness.settle();
        expect(harness.fake.thread("C1", ts).map((m) => m.text)).toEqual([
          `Answer to ${question}.`,
        ]);
        expect(harness.fake.sessionOf("C1", ts)).toBeUndefined();
      }
      expect(sessionCalls(harness)).toEqual(["processing"]);
      const lines = harness.logs.filter((line) => /agent session/i.test(line.msg));
      expect(lines).toEqual([expect.objectContaining({ reason: refusal })]);
    },
  );
});

describe("Slack's own Stop on an answer (agent_session_stopped)", () => {
  it.each(both)(
    "stops the answer at the asker's press as ⏹ Stop does: the request closed, the text kept with the note, the session active (native streaming: $native)",
    async ({ native }) => {
      const harness = await rig.start({ slack: { nativeStreaming: native } });
      const held = rig.backend;
      const ts = await answerBeingWritten(harness);
      await waitFor(() => harness.fake.sessionOf("C1", ts) === "processing", "processing");

      expect((await harness.sendEvent(harness.fake.pressStop("C1", ts, "U1"))).status).toBe(200);
      await waitFor(() => held.dropped.length > 0, "the request closed");
      await harness.settle();
      expectStopped(harness, held, ts, "⏹ stopped by Ann");
      expect(harness.fake.sessionOf("C1", ts)).toBe("active");
    },
  );

  it.each(both)(
    "refuses another member's press privately in the channel's language: the answer goes on, the session stays processing (native streaming: $native)",
    async ({ native }) => {
      const harness = await rig.start({ slack: { nativeStreaming: native } });
      const held = rig.backend;
      await harness.sendCommand("/language", "fr", { user: "UADMIN" });
      await harness.settle();
      const ts = await answerBeingWritten(harness);
      await waitFor(() => harness.fake.sessionOf("C1", ts) === "processing", "processing");

      await harness.sendEvent(harness.fake.pressStop("C1", ts, "U2"));
      await waitFor(() => harness.fake.ephemerals.length > 0, "the refusal");
      expect(harness.fake.ephemerals).toEqual([
        { channel: "C1", user: "U2", threadTs: ts, text: translator("fr").t("stopRefused") },
      ]);
      expect(held.open).toBe(1);
      expect(harness.fake.sessionOf("C1", ts)).toBe("processing");

      held.releaseAll();
      await harness.settle();
      expect(held.dropped).toEqual([]);
      // Slack stopped the stream it showed: the answer ends all the same, whole.
      expect(harness.fake.thread("C1", ts).map((m) => m.text)).toEqual(["Answer to weather."]);
      expect(harness.fake.sessionOf("C1", ts)).toBe("active");
    },
  );

  it("lets a workspace admin stop someone else's answer with it", async () => {
    const harness = await rig.start();
    const ts = await answerBeingWritten(harness);
    await waitFor(() => harness.fake.sessionOf("C1", ts) === "processing", "processing");
    await harness.sendEvent(harness.fake.pressStop("C1", ts, "UADMIN"));
    await waitFor(() => rig.backend.dropped.length > 0, "the request closed");
    await harness.settle();
    expect(rig.backend.dropped).toEqual(["weather"]);
    expect(harness.fake.thread("C1", ts).map((m) => m.text)).toEqual([
      "Answer to weather\n\n⏹ stopped by Admin",
    ]);
  });

  it("tells the presser when Slack cannot say whether they are an admin, and stops nothing", async () => {
    const harness = await rig.start();
    const ts = await answerBeingWritten(harness);
    await waitFor(() => harness.fake.sessionOf("C1", ts) === "processing", "processing");
    // The name, the admin check, the presser's language: each asks users.info.
    harness.fake.failNext("users.info", "fatal_error", 3);
    await harness.sendEvent(harness.fake.pressStop("C1", ts, "U2"));
    await waitFor(
      () => harness.logs.find((line) => line.msg === "Slack's Stop press failed"),
      "the press handled",
    );
    expect(harness.fake.ephemerals.map((e) => [e.user, e.text])).toEqual([
      ["U2", "⚠️ could not check whether you are a workspace admin (fatal_error)"],
    ]);
    expect(rig.backend.open).toBe(1);
    expect(harness.fake.sessionOf("C1", ts)).toBe("processing");
  });

  it("with nothing being written there (a session a killed process left processing), says so privately and sets the session active", async () => {
    const harness = await rig.start();
    const ts = harness.nextTs();
    harness.fake.setSession("C1", ts, "processing");
    await harness.sendEvent(harness.fake.pressStop("C1", ts, "U1"));
    await waitFor(() => harness.fake.sessionOf("C1", ts) === "active", "the session active");
    await harness.settle();
    expect(harness.fake.ephemerals.map((e) => [e.user, e.text])).toEqual([
      ["U1", "Nothing to stop: no answer is being written in this thread."],
    ]);
  });
});
