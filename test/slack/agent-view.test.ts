import { describe, expect, it } from "vitest";
import type { FakeMessage } from "../support/fake-slack.ts";
import {
  dmOpened,
  message,
  type SlackHarness,
  slackHarnessPerTest,
} from "../support/slack-harness.ts";

// Slack's agent messaging experience (`agent_view` in adapters/slack/manifest.yml): the
// conversation is the bot's DM, each top-level message a thread of its own.
// https://docs.slack.dev/ai/migrating-to-agent-messaging/

const start = slackHarnessPerTest({
  fake: {
    users: { U1: {}, UJA: { locale: "ja-JP" } },
    channels: { C1: { type: "channel" }, D1: { type: "im" }, D2: { type: "im" } },
  },
});

/** What the bot wrote at the top level of a conversation, oldest first. */
const topLevel = (harness: SlackHarness, channel: string): FakeMessage[] =>
  [...harness.fake.messages.values()].filter(
    (m) => m.channel === channel && m.byBot && m.threadTs === undefined,
  );

const PROMPTS_JA = [
  { title: "何ができますか？", message: "何ができますか？" },
  { title: "何から始めればいいですか？", message: "何から始めればいいですか？" },
  {
    title: "やさしく説明して",
    message: "あなたが詳しい分野を、簡単な文でいくつか説明してください。",
  },
];

describe("Slack's agent view", () => {
  it("greets a person who opens the bot's empty DM, in their language, with prompts under the greeting, once", async () => {
    const harness = await start();
    const opened = dmOpened({ eventTs: harness.nextTs(), user: "UJA" });
    await harness.sendEvent(opened);
    // Slack's retry of that delivery, the Home tab, and the person coming back later.
    await harness.sendEvent(opened, { retryNum: 1 });
    await harness.sendEvent(dmOpened({ eventTs: harness.nextTs(), user: "UJA", tab: "home" }));
    await harness.settle();
    await harness.sendEvent(dmOpened({ eventTs: harness.nextTs(), user: "UJA" }));
    await harness.settle();

    const [greeting, ...more] = topLevel(harness, "D1");
    expect(more).toEqual([]);
    expect(greeting?.text).toBe(
      "こんにちは！何でも質問してください。ここではスレッドごとに別の会話になります。`/chatbot-help` でコマンドの一覧を表示できます。",
    );
    // In the agent view prompts are set for the DM (a thread_ts would make Slack drop them):
    // they show under its latest message, the greeting.
    expect(harness.fake.prompts).toEqual([
      { channel: "D1", threadTs: undefined, shownUnder: greeting?.ts, prompts: PROMPTS_JA },
    ]);
    // The DM's history is read once: later openings are known greeted.
    expect(harness.fake.callsTo("conversations.history")).toHaveLength(1);
    expect(harness.logs).toEqual([]);
  });

  it("greets at the next opening when Slack would not show the DM's history, with one warning", async () => {
    const harness = await start();
    harness.fake.failNext("conversations.history", "missing_scope");
    await harness.sendEvent(dmOpened({ eventTs: harness.nextTs() }));
    await harness.settle();
    expect(topLevel(harness, "D1")).toEqual([]);
    expect(harness.logs.map((line) => line.msg)).toEqual(["opened DM not greeted"]);

    await harness.sendEvent(dmOpened({ eventTs: harness.nextTs() }));
    await harness.settle();
    expect(topLevel(harness, "D1")).toHaveLength(1);
    expect(harness.fake.prompts).toHaveLength(1);
  });

  it("does not greet a DM that already holds a conversation (an app moved from the assistant view)", async () => {
    const harness = await start();
    harness.fake.personWrote({ channel: "D2", ts: harness.nextTs(), text: "an earlier question" });
    await harness.sendEvent(dmOpened({ eventTs: harness.nextTs(), channel: "D2" }));
    await harness.sendEvent(dmOpened({ eventTs: harness.nextTs(), channel: "D1" }));
    await harness.settle();

    expect(topLevel(harness, "D2")).toEqual([]);
    expect(topLevel(harness, "D1").map((m) => m.text)).toEqual([
      "Hi! Ask me anything. Each thread here is its own conversation; `/chatbot-help` lists the commands.",
    ]);
    expect(harness.fake.prompts.map((p) => p.channel)).toEqual(["D1"]);
    expect(harness.simulator.requests.filter((r) => r.route === "chat")).toEqual([]);
  });

  it("answers each top-level DM message in a thread under it, as a conversation of its own", async () => {
    const harness = await start();
    // A suggested prompt pressed, then a question typed beside it: two top-level messages.
    const first = harness.nextTs();
    const second = harness.nextTs();
    await harness.sendEvent(message("What can you do?", { ts: first, channel: "D1" }));
    await harness.sendEvent(message("Where do I start?", { ts: second, channel: "D1" }));
    await harness.settle();
    await harness.sendEvent(
      message("and then?", { ts: harness.nextTs(), channel: "D1", threadTs: first }),
    );
    await harness.settle();

    const read = (ts: string) =>
      harness.fake.thread("D1", ts).map((m) => harness.fake.view(m).read);
    const [firstAnswer, followUp, ...more] = read(first);
    expect(more).toEqual([]);
    expect(firstAnswer).toContain("This is the first question in our conversation.");
    expect(followUp).toContain("This is question 2 in our conversation.");
    expect(followUp).toContain("What can you do?");
    const [secondAnswer, ...others] = read(second);
    expect(others).toEqual([]);
    expect(secondAnswer).toContain("This is the first question in our conversation.");
    // Nothing of an answer at the top level.
    expect(topLevel(harness, "D1")).toEqual([]);
    // The status under each question's thread (the first two answers start in either order).
    const statuses = harness.fake.statuses.map((s) => s.threadTs);
    expect(statuses.slice(0, 2).sort()).toEqual([first, second]);
    expect(statuses.slice(2)).toEqual([first]);
  });

  it("takes app_context_changed (what the person looks at) quietly: 200, no call, no question, no log line", async () => {
    const harness = await start();
    const callsBefore = harness.fake.calls.length;
    // As Slack documents it (https://docs.slack.dev/reference/events/app_context_changed),
    // and with the channel and user @slack/types gives it.
    const ack = await harness.sendEvent({
      type: "app_context_changed",
      channel: "D1",
      user: "U1",
      context: {
        entities: [{ type: "slack#/types/channel_id", value: "C1", team_id: "T0FAKE" }],
      },
      event_ts: harness.nextTs(),
    });
    await harness.sendEvent({ type: "app_context_changed", context: {} });
    await harness.settle();

    expect(ack.status).toBe(200);
    expect(harness.fake.calls.slice(callsBefore)).toEqual([]);
    expect(harness.simulator.requests.filter((r) => r.route === "chat")).toEqual([]);
    expect(harness.logs).toEqual([]);
  });
});
