import { describe, expect, it } from "vitest";
import { renderMrkdwn } from "../../adapters/slack/render.ts";
import {
  asMessage,
  BOT,
  mention,
  message,
  type SlackHarness,
  signedJsonHeaders,
  slackHarnessPerTest,
  TEAM,
} from "../support/slack-harness.ts";
import { simulatedAnswer } from "./samples.ts";
import { waitFor } from "./wait.ts";

/** Posted and edited messages only: what these tests check is the mrkdwn path. */
const start = slackHarnessPerTest({
  simulator: { chunkDelayMs: [1, 3] },
  slack: { nativeStreaming: false },
});

const chats = (harness: SlackHarness) =>
  harness.simulator.requests.filter((r) => r.route === "chat");

describe("Slack over HTTP: receiving", () => {
  it("answers a mention in its thread, growing in place to the rendered answer", async () => {
    const harness = await start();
    const ts = harness.nextTs();
    const ack = await harness.sendEvent(mention("hello there", { ts }));
    await harness.settle();

    expect(ack.status).toBe(200);
    const [answer, ...others] = harness.fake.thread("C1", ts);
    expect(others).toEqual([]);
    expect(answer?.text).toBe(renderMrkdwn(simulatedAnswer("hello there")));
    // The answer's first text first (no placeholder), then growing in a handful of coalesced
    // edits.
    expect(answer?.history[0]).toMatch(/^He/);
    expect(answer?.updates).toBeGreaterThan(1);
    expect(answer?.updates).toBeLessThan(40);
    expect(harness.fake.callsTo("chat.postMessage")[0]?.args.thread_ts).toBe(ts);
  });

  it("acknowledges within 3 s while the answer is still coming", async () => {
    const harness = await start();
    const ts = harness.nextTs();
    // The simulator sends half the answer, then waits 10 s before the rest.
    const ack = await harness.sendEvent(mention("a slow one #pause=10000", { ts }));
    expect(ack.status).toBe(200);
    expect(ack.ms).toBeLessThan(3_000);
    const growing = await waitFor(
      () => harness.fake.thread("C1", ts).find((m) => m.text.includes("simulated chatbot")),
      "the first half of the answer",
    );
    expect(harness.simulator.openResponses()).toBe(1);
    expect(growing.text).not.toContain("#docs");

    // The backend goes away mid-answer: the text so far stays, with a note.
    await harness.simulator.close();
    await harness.settle();
    const [answer] = harness.fake.thread("C1", ts);
    expect(answer?.text).toMatch(/^Hello! \*This is the simulated chatbot\.\*/);
    expect(answer?.text).toMatch(/\n\n⚠️ answer cut off: connection lost$/);
  });

  it("answers a DM in a thread under it", async () => {
    const harness = await start();
    const ts = harness.nextTs();
    await harness.sendEvent(message("hi from a DM", { ts, channel: "D1" }));
    await harness.settle();
    const [answer] = harness.fake.thread("D1", ts);
    expect(answer?.text).toBe(renderMrkdwn(simulatedAnswer("hi from a DM")));
  });

  it("greets an assistant thread once, with prompts, and shows a status while thinking (an app made from an older manifest, assistant_view)", async () => {
    const harness = await start({ fake: { view: "assistant" } });
    const threadTs = harness.nextTs();
    const started = {
      type: "assistant_thread_started",
      assistant_thread: { user_id: "U1", channel_id: "D1", thread_ts: threadTs, context: {} },
      event_ts: threadTs,
    };
    await harness.sendEvent(started);
    await harness.sendEvent(started, { retryNum: 1 });
    await harness.settle();
    expect(harness.fake.thread("D1", threadTs).map((m) => m.text)).toEqual([
      "Hi! Ask me anything. Each thread here is its own conversation; `/chatbot-help` lists the commands.",
    ]);
    expect(harness.fake.prompts).toHaveLength(1);
    expect(harness.fake.prompts[0]?.shownUnder).toBe(threadTs);
    expect(harness.fake.prompts[0]?.prompts).toEqual([
      { title: "What can you do?", message: "What can you do?" },
      { title: "Where do I start?", message: "Where do I start?" },
      {
        title: "Explain it simply",
        message: "Explain what you know about in a few simple sentences.",
      },
    ]);

    await harness.sendEvent(
      message("What can you do?", { ts: harness.nextTs(), channel: "D1", threadTs }),
    );
    await harness.settle();
    expect(harness.fake.statuses).toEqual([{ channel: "D1", threadTs, status: "is thinking…" }]);
    const [, answer, ...more] = harness.fake.thread("D1", threadTs);
    expect(more).toEqual([]);
    // No placeholder message: the status stood in for it.
    expect(answer?.history[0]).not.toBe("…");
    expect(answer?.text).toBe(renderMrkdwn(simulatedAnswer("What can you do?")));
  });

  it("continues the conversation when a person replies in the thread without a mention", async () => {
    const harness = await start();
    const root = harness.nextTs();
    await harness.sendEvent(mention("first question", { ts: root }));
    await harness.settle();
    await harness.sendEvent(message("and a follow-up", { ts: harness.nextTs(), threadTs: root }));
    // A thread the bot never answered in: people talk among themselves.
    const other = harness.nextTs();
    await harness.sendEvent(message("not for the bot", { ts: harness.nextTs(), threadTs: other }));
    await harness.settle();

    const [first, second] = harness.fake.thread("C1", root);
    expect(first?.text).toContain("This is the first question in our conversation.");
    expect(second?.text).toBe(
      renderMrkdwn(simulatedAnswer("and a follow-up", 2, "first question")),
    );
    expect(harness.fake.thread("C1", other)).toEqual([]);
    const [ask1, ask2, ...rest] = chats(harness);
    expect(rest).toEqual([]);
    expect(ask2?.chat?.conversationUid).toBeDefined();
    expect(ask1?.chat?.conversationUid).toBeUndefined();
  });

  it("answers a retried, a replayed and a twin delivery of one message once", async () => {
    const harness = await start();
    const ts = harness.nextTs();
    const event = mention("only once please", { ts });
    await harness.sendEvent(event, { eventId: "Ev1" });
    // Slack's retry of the same event, its `message` twin, and a replay of the signed request.
    await harness.sendEvent(event, { eventId: "Ev1", retryNum: 1 });
    await harness.sendEvent(asMessage(event), { eventId: "Ev2" });
    const body = JSON.stringify({ type: "event_callback", team_id: TEAM, event_id: "Ev1", event });
    const headers = signedJsonHeaders(body);
    for (let i = 0; i < 2; i++) {
      await fetch(harness.eventsUrl, { method: "POST", headers, body });
    }
    await harness.settle();
    expect(chats(harness)).toHaveLength(1);
    expect(harness.fake.thread("C1", ts)).toHaveLength(1);
  });

  it("refuses unsigned, forged, stale and future-dated requests", async () => {
    const harness = await start();
    const event = mention("let me in", { ts: harness.nextTs() });
    const unsigned = await harness.sendEvent(event, { signature: false });
    const forged = await harness.sendEvent(event, { signature: "v0=deadbeef" });
    const now = Math.floor(Date.now() / 1000);
    const dated = [];
    for (const offset of [-600, 6 * 60, 60 * 60]) {
      dated.push((await harness.sendEvent(event, { timestamp: now + offset })).status);
    }
    const forgedLater = await harness.sendEvent(event, {
      signature: "v0=deadbeef",
      timestamp: now + 60 * 60,
    });
    await harness.settle();
    expect([unsigned.status, forged.status, ...dated, forgedLater.status]).toEqual([
      401, 401, 401, 401, 401, 401,
    ]);
    // A line for each signed request dated ahead (the machine's clock may be wrong; a stale
    // one is Bolt's to refuse), none for a forged one: anyone could fill the log with those.
    const offClock = harness.logs.filter((line) => line.msg.includes("timestamp is more than"));
    expect(offClock).toHaveLength(2);
    expect(chats(harness)).toEqual([]);
    expect(harness.fake.calls.map((c) => c.method)).toEqual(["auth.test"]);
  });

  it("ignores its own messages and edits, other bots, and people's edits", async () => {
    const harness = await start();
    const root = harness.nextTs();
    await harness.sendEvent(mention("start a thread", { ts: root }));
    await harness.settle();
    const [answer] = harness.fake.thread("C1", root);
    const inThread = { channel: "C1", channel_type: "channel", thread_ts: root, team: TEAM };
    const noise = [
      // What the bot's own streaming and editing cause:
      {
        type: "message",
        subtype: "message_changed",
        ...inThread,
        ts: harness.nextTs(),
        message: { user: BOT, text: "x", ts: answer?.ts },
      },
      {
        type: "message",
        ...inThread,
        user: BOT,
        bot_id: "BBOT",
        text: "an answer",
        ts: harness.nextTs(),
      },
      // Another bot, a person's edit and deletion:
      {
        type: "message",
        subtype: "bot_message",
        ...inThread,
        bot_id: "BOTHER",
        text: "beep",
        ts: harness.nextTs(),
      },
      {
        type: "message",
        ...inThread,
        user: "U9",
        bot_id: "BOTHER",
        text: "beep",
        ts: harness.nextTs(),
      },
      {
        type: "message",
        subtype: "message_changed",
        ...inThread,
        ts: harness.nextTs(),
        message: { user: "U1", text: "edited" },
      },
      {
        type: "message",
        subtype: "message_deleted",
        ...inThread,
        ts: harness.nextTs(),
        deleted_ts: root,
      },
    ];
    for (const event of noise) await harness.sendEvent(event);
    await harness.settle();
    expect(chats(harness)).toHaveLength(1);
    expect(harness.fake.thread("C1", root)).toHaveLength(1);
  });

  it("ignores Slackbot's notices and app messages that carry only a bot profile", async () => {
    const harness = await start();
    const root = harness.nextTs();
    await harness.sendEvent(mention("start a thread", { ts: root }));
    await harness.settle();
    const notice = harness.nextTs();
    const noise = [
      // Slackbot tells the bot it was removed from a channel: in its DM, no bot_id.
      {
        ...message("You have been removed from #sales by <@U1>", { ts: notice, channel: "D1" }),
        user: "USLACKBOT",
      },
      // Slackbot in a thread the bot answers in (a reminder, a notice).
      {
        ...message("Reminder: stand-up", { ts: harness.nextTs(), threadTs: root }),
        user: "USLACKBOT",
      },
      // An app's message whose bot id is only in its profile.
      {
        ...message("beep", { ts: harness.nextTs(), threadTs: root }),
        user: "U9",
        bot_profile: { id: "BOTHER", app_id: "AOTHER", name: "other" },
      },
    ];
    for (const event of noise) await harness.sendEvent(event);
    await harness.settle();
    expect(chats(harness)).toHaveLength(1);
    expect(harness.fake.thread("D1", notice)).toEqual([]);
    expect(harness.fake.thread("C1", root)).toHaveLength(1);
  });
});
