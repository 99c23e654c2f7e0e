import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import {
  BOT,
  mention,
  message,
  type SlackHarness,
  type SlackHarnessOptions,
  slackHarnessPerTest,
} from "../support/slack-harness.ts";
import { waitFor } from "./wait.ts";

// Ana, Ben and Cleo as users.info names them; a thread's pages hold 3 messages, so reading
// one takes the cursor from page to page.
const start = slackHarnessPerTest({
  fake: {
    users: { U1: { name: "Ana" }, U2: { name: "Ben" }, U3: { name: "Cleo" }, UADMIN: {} },
    repliesPageMax: 3,
  },
  slack: { nativeStreaming: false },
});

/** What the chatbot received, question by question. */
const asked = (harness: SlackHarness) =>
  harness.simulator.requests.filter((r) => r.route === "chat").map((r) => r.chat?.q);

const historyCalls = (harness: SlackHarness) => harness.fake.callsTo("conversations.replies");

/** The refund thread in C1, started by Ben: returns its root's ts. */
function refundThread(harness: SlackHarness, channel = "C1"): string {
  const root = harness.nextTs();
  const say = (text: string, at: Partial<Parameters<SlackHarness["fake"]["personWrote"]>[0]>) =>
    harness.fake.personWrote({ channel, ts: harness.nextTs(), threadTs: root, text, ...at });
  harness.fake.personWrote({
    channel,
    ts: root,
    text: "We got a refund request for order 4411",
    user: "U2",
  });
  say("It was delivered two weeks late", { user: "U1" });
  say("Order 4411: delivered 2026-03-02", { app: { botId: "BORDERS", name: "Orders" } });
  say("Here is what I found earlier", { user: BOT });
  say("<@U1> has joined the channel", { user: "U1", subtype: "channel_join" });
  say("The customer wants\n\nthe full amount back", { user: "U3" });
  say("Ask <@U3> \u2014 she\u202e knows the policy", { user: "U2" });
  return root;
}

/** A mention in `threadTs`, and its answer on screen; returns ms from sending to first text. */
async function askIn(
  harness: SlackHarness,
  threadTs: string,
  text: string,
  channel = "C1",
): Promise<number> {
  const before = harness.fake.thread(channel, threadTs).length;
  const sent = performance.now();
  await harness.sendEvent(mention(text, { ts: harness.nextTs(), threadTs, channel }));
  await waitFor(
    () => harness.fake.thread(channel, threadTs).length > before,
    "the answer's first text",
  );
  const firstTextMs = performance.now() - sent;
  await harness.settle();
  return firstTextMs;
}

describe("Slack: a first question carries its thread", () => {
  it("a mention in the middle of a thread carries its latest earlier messages, oldest first, as name: text", async () => {
    const harness = await start({ context: { maxMessages: 4 } });
    const root = refundThread(harness);
    const question = harness.nextTs();
    // Said after the question: not what it was asked about.
    harness.fake.personWrote({
      channel: "C1",
      ts: harness.nextTs(),
      threadTs: root,
      text: "later",
      user: "U1",
    });
    await harness.sendEvent(
      mention("what does our policy say about this?", { ts: question, threadTs: root }),
    );
    await harness.settle();

    // The bot's own earlier message, the join and what came after are left out; of the rest,
    // the latest four; a mention is the person's name, the invisible U+202E gone.
    expect(asked(harness)).toEqual([
      [
        "Earlier in this thread:",
        "Ana: It was delivered two weeks late",
        "Orders: Order 4411: delivered 2026-03-02",
        "Cleo: The customer wants",
        "  the full amount back",
        "Ben: Ask @Cleo \u2014 she knows the policy",
        "",
        "Question:",
        "what does our policy say about this?",
      ].join("\n"),
    ]);
    // Seven messages before the question, three a page: three pages, by Slack's cursor.
    const calls = historyCalls(harness);
    expect(calls.map((c) => [c.args.ts, c.args.latest])).toEqual([
      [root, question],
      [root, question],
      [root, question],
    ]);
    expect(calls[0]?.args.cursor).toBeUndefined();
    expect(calls[1]?.args.cursor).toEqual(expect.any(String));
    expect(calls[2]?.args.cursor).toEqual(expect.any(String));
    expect(harness.fake.thread("C1", root)).toHaveLength(1);
  });

  it("keeps within CONTEXT_MAX_CHARS: the latest messages that fit whole", async () => {
    const harness = await start({ context: { maxChars: 40 } });
    const root = harness.nextTs();
    harness.fake.personWrote({ channel: "C1", ts: root, text: "x".repeat(30), user: "U1" });
    harness.fake.personWrote({
      channel: "C1",
      ts: harness.nextTs(),
      threadTs: root,
      text: "short one",
      user: "U2",
    });
    harness.fake.personWrote({
      channel: "C1",
      ts: harness.nextTs(),
      threadTs: root,
      text: "another one",
      user: "U3",
    });
    await askIn(harness, root, "so?");
    // "Ben: short one" and "Cleo: another one" take 14 + 1 + 17 characters; Ana's would not fit.
    expect(asked(harness)).toEqual([
      "Earlier in this thread:\nBen: short one\nCleo: another one\n\nQuestion:\nso?",
    ]);
  });

  it("a later question in the same thread carries no context and reads no history; nor does a mention that starts its thread", async () => {
    const harness = await start();
    const root = refundThread(harness);
    await askIn(harness, root, "what does our policy say?");
    const pages = historyCalls(harness).length;
    expect(asked(harness)[0]).toMatch(/^Earlier in this thread:\n/);

    // The thread's conversation exists now: the next message goes alone, with no call.
    await harness.sendEvent(
      message("and for order 4412?", { ts: harness.nextTs(), threadTs: root }),
    );
    await harness.settle();
    const top = harness.nextTs();
    await harness.sendEvent(mention("a new topic", { ts: top }));
    await harness.settle();

    expect(asked(harness).slice(1)).toEqual(["and for order 4412?", "a new topic"]);
    expect(historyCalls(harness)).toHaveLength(pages);
  });

  it("CONTEXT_MAX_MESSAGES=0 turns it off: no history call, the question alone", async () => {
    const on = await start({ context: loadConfig({}).context });
    await askIn(on, refundThread(on), "and the policy?");
    expect(asked(on)[0]).toMatch(
      /^Earlier in this thread:\n[\s\S]*\n\nQuestion:\nand the policy\?$/,
    );

    const off = await start({ context: loadConfig({ CONTEXT_MAX_MESSAGES: "0" }).context });
    await askIn(off, refundThread(off), "and the policy?");
    expect(asked(off)).toEqual(["and the policy?"]);
    expect(historyCalls(off)).toEqual([]);
  });

  it.each([
    ["missing_scope", { failNext: "missing_scope" }],
    ["not_in_channel", { failNext: "not_in_channel" }],
  ] as const)(
    "history refused (%s): the answer comes at once with the question alone, and the log says why once",
    async (error, how) => {
      const harness = await start();
      harness.fake.failNext("conversations.replies", how.failNext, 2);
      const first = await askIn(harness, refundThread(harness), "and the policy?");
      const second = await askIn(harness, refundThread(harness), "and the refund?");

      expect(asked(harness)).toEqual(["and the policy?", "and the refund?"]);
      expect(Math.max(first, second)).toBeLessThan(1_000);
      const said = harness.logs.filter((line) => line.msg.includes("without the discussion"));
      expect(said).toHaveLength(1);
      expect(said[0]?.msg).toContain(error);
    },
  );

  it("history rate limited (429): the answer comes at once, and the workspace is not asked again before Retry-After", async () => {
    const harness = await start();
    harness.fake.rateLimitNext("conversations.replies", 30);
    const first = await askIn(harness, refundThread(harness), "and the policy?");
    const second = await askIn(harness, refundThread(harness), "and the refund?");

    expect(asked(harness)).toEqual(["and the policy?", "and the refund?"]);
    expect(Math.max(first, second)).toBeLessThan(1_000);
    expect(harness.fake.rateLimited.map((c) => c.method)).toEqual(["conversations.replies"]);
    expect(historyCalls(harness)).toHaveLength(1);
    const said = harness.logs.filter((line) => line.msg.includes("without the discussion"));
    expect(said.map((line) => line.msg)).toEqual([expect.stringContaining("rate limit")]);
  });

  it("a history slower than its bound does not hold the answer: the question goes alone", async () => {
    const harness = await start({ context: { timeoutMs: 150 } });
    harness.fake.slowDown("conversations.replies", 2_000);
    const firstTextMs = await askIn(harness, refundThread(harness), "and the policy?");

    expect(asked(harness)).toEqual(["and the policy?"]);
    expect(firstTextMs).toBeLessThan(1_000);
    expect(harness.logs.map((line) => line.msg)).toContainEqual(
      expect.stringContaining("no discussion read within 150 ms"),
    );
  });

  it("in the bot's DM, only the asker's own messages", async () => {
    const harness = await start();
    const root = harness.nextTs();
    const dm = { channel: "D1", threadTs: root };
    harness.fake.personWrote({ channel: "D1", ts: root, text: "my order is 4411", user: "U1" });
    harness.fake.personWrote({ ...dm, ts: harness.nextTs(), text: "the bot's answer", user: BOT });
    harness.fake.personWrote({ ...dm, ts: harness.nextTs(), text: "not the asker's", user: "U2" });
    harness.fake.personWrote({ ...dm, ts: harness.nextTs(), text: "it came late", user: "U1" });
    await harness.sendEvent(message("what now?", { ts: harness.nextTs(), ...dm }));
    await harness.settle();

    expect(asked(harness)).toEqual([
      "Earlier in this thread:\nAna: my order is 4411\nAna: it came late\n\nQuestion:\nwhat now?",
    ]);

    // A thread under the bot's own message (its greeting) holds nothing of the asker's
    // that the bot has not answered: it is not read.
    const greeting = harness.nextTs();
    harness.fake.personWrote({
      channel: "D1",
      ts: greeting,
      text: "Hi! Ask me anything.",
      user: BOT,
    });
    const reads = historyCalls(harness).length;
    await harness.sendEvent({
      ...message("hello", { ts: harness.nextTs(), channel: "D1", threadTs: greeting }),
      parent_user_id: BOT,
    });
    await harness.settle();
    expect(asked(harness).at(-1)).toBe("hello");
    expect(historyCalls(harness)).toHaveLength(reads);
  });

  it("a first question handed to the shared queue carries its thread to the process that answers it", async () => {
    const options: SlackHarnessOptions = {
      answerQueue: { maxActive: 1, maxQueued: 10 },
    };
    const harness = await start(options);
    // The one room is taken by an answer that pauses half-way.
    await harness.sendEvent(mention("hold on #pause=400", { ts: harness.nextTs() }));
    await waitFor(() => harness.simulator.openResponses() === 1, "the first answer streaming");
    const root = refundThread(harness);
    await harness.sendEvent(mention("and the policy?", { ts: harness.nextTs(), threadTs: root }));
    // No room here: it waits in the shared queue, and is taken once the first answer ends.
    await waitFor(() => asked(harness).length === 2, "the second question asked");

    expect(asked(harness)[1]).toMatch(/^Earlier in this thread:\nBen: We got a refund request/);
    expect(asked(harness)[1]).toMatch(/\n\nQuestion:\nand the policy\?$/);
  });
});
