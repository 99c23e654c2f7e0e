import { afterEach, describe, expect, it } from "vitest";
import { MAX_MESSAGE_CHARS } from "../../adapters/slack/limits.ts";
import { renderMrkdwn } from "../../adapters/slack/render.ts";
import { safeMarkdown } from "../../adapters/slack/stream-markdown.ts";
import { hugeAnswer } from "../../src/simulator/answers.ts";
import { STREAM_DELIMITER } from "../../src/simulator/index.ts";
import type { FakeMessage } from "../support/fake-slack.ts";
import { type RawBackend, startRawBackend } from "../support/raw-backend.ts";
import {
  mention,
  type SlackHarness,
  type SlackHarnessOptions,
  startSlackHarness,
} from "../support/slack-harness.ts";
import { simulatedAnswer } from "./samples.ts";

let h: SlackHarness | undefined;
let backend: RawBackend | undefined;
afterEach(async () => {
  await h?.close();
  await backend?.close();
  h = undefined;
  backend = undefined;
});

async function start(options: SlackHarnessOptions = {}): Promise<SlackHarness> {
  h = await startSlackHarness({
    ...options,
    simulator: { chunkDelayMs: [1, 3], ...options.simulator },
  });
  return h;
}

async function ask(harness: SlackHarness, question: string): Promise<FakeMessage[]> {
  const ts = harness.nextTs();
  await harness.sendEvent(mention(question, { ts }));
  await harness.settle();
  return harness.fake.thread("C1", ts);
}

const words = (text: string) =>
  text
    .replace(/[*_`\\]/g, "")
    .split(/\s+/)
    .filter(Boolean);

const HEADER = JSON.stringify({
  answer: "",
  question: "q",
  related_docs: [],
  conversation_uid: "conv-openers",
  is_qa_mode: false,
  system_message: "",
});

/**
 * One paragraph, one line, as language models write them, with openers that stay open for
 * long: `opened` streams in small pieces, then the backend waits (up to 5 s) until a person
 * could read `marker`, which lies well past the openers, before it ends the line with
 * `closing`. Resolves whether the marker showed while the line was still open.
 */
async function streamOpenLine(
  opened: string,
  marker: string,
  closing: string,
  nativeStreaming = true,
) {
  let seen: (() => void) | undefined;
  const shown = new Promise<void>((resolve) => {
    seen = resolve;
  });
  let seenInTime = false;
  backend = await startRawBackend(async (ctx) => {
    ctx.res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    await ctx.write(HEADER + STREAM_DELIMITER, 2);
    for (let i = 0; i < opened.length; i += 6) await ctx.write(opened.slice(i, i + 6), 2);
    seenInTime = await Promise.race([
      shown.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000)),
    ]);
    await ctx.write(closing, 2);
    ctx.res.end();
  });
  const harness = await start({
    backend: { url: backend.url, apiKey: "k", botUid: "b" },
    slack: { nativeStreaming },
  });
  const ts = harness.nextTs();
  const watch = setInterval(() => {
    const [message] = harness.fake.thread("C1", ts);
    if (message && harness.fake.view(message).visible.includes(marker)) seen?.();
  }, 5);
  try {
    await harness.sendEvent(mention("compare them", { ts }));
    await harness.settle();
  } finally {
    clearInterval(watch);
  }
  const [answer, ...others] = harness.fake.thread("C1", ts);
  return { seenInTime, answer, others };
}

describe("native streaming", () => {
  it.each([
    { streaming: true, how: "a native stream" },
    { streaming: false, how: "a posted message" },
  ])(
    "shows a line past a lone `<` and an unclosed `[` long before the line ends: $how",
    async ({ streaming }) => {
      const opened =
        "Compare values: if a < b then swap them, and [see the docs later for the details, " +
        "since the swap itself is cheap but the comparison is not; MARKER words a person can " +
        "read already, and more of them keep coming on this one long line for a while";
      const { seenInTime, answer, others } = await streamOpenLine(
        opened,
        "MARKER",
        "](https://example.com/docs) and so on.\n\nDone.",
        streaming,
      );
      expect(seenInTime).toBe(true);
      expect(others).toEqual([]);
      expect(answer?.historyFormats[0]).toBe(streaming ? "markdown" : "mrkdwn");
      // The whole text, and safe. A stream's `[`, held too long, showed as written; at its
      // end the message shows the link it became, as a posted one does.
      const view = h?.fake.view(answer as FakeMessage);
      expect(view?.visible).toContain("if a < b then swap them, and see the docs later");
      expect(view?.visible).toContain("Done.");
      expect(view?.pings).toEqual([]);
      expect(view?.disguised).toEqual([]);
    },
  );

  it("shows a line that starts with <!channel> at once, as text", async () => {
    const opened =
      "<!channel> heads-up: MARKER words follow the mention at once, and the line goes on " +
      "and on, as a language model's paragraphs do, with no line break for a long while";
    const { seenInTime, answer } = await streamOpenLine(opened, "MARKER", ".\n");
    expect(seenInTime).toBe(true);
    const view = h?.fake.view(answer as FakeMessage);
    expect(view?.visible).toContain("<!channel> heads-up:");
    expect(view?.pings).toEqual([]);
  });

  it("streams an answer with appends, ending exactly at the answer's Markdown", async () => {
    const harness = await start();
    const [answer, ...others] = await ask(harness, "stream this");

    expect(others).toEqual([]);
    expect(answer).toMatchObject({ format: "markdown", stream: "stopped", updates: 0 });
    expect(answer?.text).toBe(safeMarkdown(simulatedAnswer("stream this")));
    expect(answer?.appends).toBeGreaterThan(1);
    // The stream is the answer's first and only message: no placeholder came and went.
    expect(answer?.history[0]).toMatch(/^He/);
    expect(harness.fake.callsTo("chat.delete")).toEqual([]);
    expect(harness.fake.callsTo("chat.update")).toEqual([]);
    const [opened] = harness.fake.callsTo("chat.startStream");
    expect(opened?.args).toMatchObject({ recipient_user_id: "U1", recipient_team_id: "T0FAKE" });
  });

  it("ends a stream at once when the answer ends, though the workspace's appends are spent", async () => {
    // One append every ~14 s after the first: the rest of the answer cannot go by appends.
    const harness = await start({
      simulator: { chunkDelayMs: [15, 25] },
      slack: { appendsPerMinute: 6, budgetBurst: 1, editIntervalMs: 50 },
    });
    const started = performance.now();
    const [answer] = await ask(harness, "stream this");

    // Its end goes by chat.stopStream, which waits for no append token.
    expect(performance.now() - started).toBeLessThan(6_000);
    expect(answer?.stream).toBe("stopped");
    expect(answer?.appends).toBeLessThanOrEqual(1);
    expect(answer?.text).toBe(safeMarkdown(simulatedAnswer("stream this")));
  });

  it("falls back to chat.update mid-answer when Slack ends the stream, losing and doubling nothing", async () => {
    const harness = await start();
    harness.fake.failNext("chat.appendStream", "message_not_in_streaming_state");
    const [answer, ...others] = await ask(harness, "cut my stream");

    expect(others).toEqual([]);
    // Streamed first (Markdown), then carried on by chat.update (mrkdwn) to the exact end.
    expect(answer?.history[0]).toMatch(/^Hello! /);
    expect(answer?.format).toBe("mrkdwn");
    expect(answer?.text).toBe(renderMrkdwn(simulatedAnswer("cut my stream")));
    expect(answer?.updates).toBeGreaterThanOrEqual(1);

    // Only that message fell back: the next answer streams again.
    const [next] = await ask(harness, "and now?");
    expect(next?.format).toBe("markdown");
  });

  it("gives up streaming in a workspace where Slack says the feature is off", async () => {
    const harness = await start({ fake: { streaming: false } });
    const [first] = await ask(harness, "one");
    const [second] = await ask(harness, "two");

    expect(first?.text).toBe(renderMrkdwn(simulatedAnswer("one")));
    expect(second?.text).toBe(renderMrkdwn(simulatedAnswer("two")));
    expect(harness.fake.callsTo("chat.startStream")).toHaveLength(1);
    expect(harness.logs.map((l) => l.msg)).toContain(
      "Slack native streaming is unavailable in this workspace: answers are posted and edited instead",
    );
  });

  it("posts and edits in a thread whose asker Slack cannot stream to (Slack Connect)", async () => {
    const harness = await start();
    harness.fake.failNext("chat.startStream", "user_not_found");
    const [answer] = await ask(harness, "from another org");
    expect(answer?.format).toBe("mrkdwn");
    expect(answer?.text).toBe(renderMrkdwn(simulatedAnswer("from another org")));
  });

  it("hands an ageing stream over to chat.update before Slack would end it", async () => {
    const harness = await start({
      simulator: { chunkDelayMs: [10, 20] },
      slack: { streamMaxAgeMs: 250 },
      fake: { streamLifetimeMs: 500 },
    });
    const [answer, ...others] = await ask(harness, "a long-lived one");

    expect(others).toEqual([]);
    // Streamed while young, then edited: the answer outlived its stream.
    expect(answer?.appends).toBeGreaterThan(0);
    expect(answer?.updates).toBeGreaterThan(0);
    expect(answer?.text).toBe(renderMrkdwn(simulatedAnswer("a long-lived one")));
    expect(
      harness.fake.calls.filter((c) => c.outcome === "message_not_in_streaming_state"),
    ).toEqual([]);
  });

  it("splits a long answer into messages below Slack's limits, in order, text exact", async () => {
    const harness = await start({ simulator: { chunkDelayMs: 0, chunkChars: [200, 400] } });
    const messages = await ask(harness, "a long one #huge=9000");

    expect(messages.length).toBeGreaterThanOrEqual(3);
    for (const message of messages)
      expect(message.text.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect(messages.flatMap((m) => words(m.text))).toEqual(words(hugeAnswer(9000)));
  });

  it("shows the backend's refusal in the thread", async () => {
    const harness = await start({ simulator: { paidPlan: false } });
    const [answer] = await ask(harness, "hello");
    expect(answer?.text).toBe(
      "⚠️ the chatbot refused access (HTTP 403): chatting needs a paid subscription on the chatbot account",
    );
  });

  it("says once, at warn with the fix, that it cannot post in a channel, until it answers there again", async () => {
    const channels = { C1: { type: "channel" as const, member: false } };
    const harness = await start({ fake: { channels } });
    const problems = () => harness.logs.filter((l) => l.level >= 40);
    expect(await ask(harness, "anyone?")).toEqual([]);
    expect(await ask(harness, "still nobody?")).toEqual([]);
    // One try per question to put the answer there (the first text opens a stream), no more.
    const posts = harness.fake.calls.filter((c) =>
      /^chat\.(postMessage|startStream)$/.test(c.method),
    );
    expect(posts).toHaveLength(2);
    expect(problems()).toEqual([
      expect.objectContaining({
        level: 40,
        msg: "cannot post in a channel, so its questions go unanswered: invite the bot to the channel (/invite @bot)",
        reason: expect.stringMatching(
          /^slack chat\.(postMessage|startStream): not_in_channel in C1$/,
        ),
      }),
    ]);

    // Invited, the bot answers; removed again, it says so again, once.
    channels.C1.member = true;
    expect(await ask(harness, "now?")).toHaveLength(1);
    channels.C1.member = false;
    await ask(harness, "and now?");
    await ask(harness, "hello?");
    expect(problems()).toHaveLength(2);
    expect(problems()[1]?.msg).toMatch(/invite the bot/);
  });
});
