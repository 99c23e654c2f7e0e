import { describe, expect, it } from "vitest";
import { renderMrkdwn } from "../../adapters/slack/render.ts";
import { safeMarkdown } from "../../adapters/slack/stream-markdown.ts";
import type { SlackCall } from "../support/fake-slack.ts";
import { until } from "../support/run-bot.ts";
import { mention, message, slackHarnessPerTest } from "../support/slack-harness.ts";
import { simulatedAnswer } from "./samples.ts";

const start = slackHarnessPerTest();

const THINKING = "is thinking…";

/** The first call that put an answer's text in the thread. */
const firstText = (calls: SlackCall[]) =>
  calls.findIndex(
    (c) =>
      (c.method === "chat.postMessage" || c.method === "chat.startStream") && c.outcome === "ok",
  );

describe("a sign of work that costs no message", () => {
  it.each([
    { where: "a channel thread", channel: "C1", streaming: true },
    { where: "a channel thread", channel: "C1", streaming: false },
    { where: "a DM", channel: "D1", streaming: true },
  ])(
    "shows Slack's loading status in $where while the backend is silent, then only the answer (streaming: $streaming)",
    async ({ channel, streaming }) => {
      const h = await start({
        simulator: { chunkDelayMs: [1, 3] },
        slack: { nativeStreaming: streaming },
      });
      const ts = h.nextTs();
      // The backend is silent for a moment before its first byte.
      const question = "take a breath first #delay=150";
      const event =
        channel === "D1" ? message(question, { ts, channel }) : mention(question, { ts, channel });
      await h.sendEvent(event);
      await h.settle();

      const { fake } = h;
      const [answer, ...others] = fake.thread(channel, ts);
      expect(others).toEqual([]);
      expect(answer?.text).toBe(
        streaming
          ? safeMarkdown(simulatedAnswer(question))
          : renderMrkdwn(simulatedAnswer(question)),
      );
      // No message was posted only to be taken down again.
      expect(fake.callsTo("chat.delete")).toEqual([]);
      expect([...fake.messages.values()].filter((m) => m.deleted)).toEqual([]);
      // The status went up before the first text, and the answer's reply took it down: no
      // call was spent clearing it.
      const status = fake.calls.findIndex((c) => c.method === "assistant.threads.setStatus");
      expect(status).toBeGreaterThanOrEqual(0);
      expect(status).toBeLessThan(firstText(fake.calls));
      expect(fake.statuses).toEqual([{ channel, threadTs: ts, status: THINKING }]);
      expect(fake.statusOf(channel, ts)).toBe("");
    },
  );

  it("shows no status for an answer whose first text comes within the typing delay: no flicker, no call", async () => {
    const h = await start({ simulator: { chunkDelayMs: [1, 3] }, typingDelayMs: 400 });
    const ts = h.nextTs();
    const quick = "a quick one";
    const slow = "take a breath first #delay=800";
    await h.sendEvent(mention(quick, { ts }));
    await h.settle();
    expect(h.fake.callsTo("assistant.threads.setStatus")).toEqual([]);
    expect(h.fake.thread("C1", ts)[0]?.text).toBe(safeMarkdown(simulatedAnswer(quick)));

    // A backend silent for longer than the delay gets its sign of work.
    const slowTs = h.nextTs();
    await h.sendEvent(mention(slow, { ts: slowTs }));
    await h.settle();
    expect(h.fake.statuses).toEqual([{ channel: "C1", threadTs: slowTs, status: THINKING }]);
  });

  it("turns a queued question's notice into its answer, deleting nothing", async () => {
    // One answer at a time: a question asked during another's waits for room, told so.
    const h = await start({
      simulator: { chunkDelayMs: [1, 3] },
      answerQueue: { maxActive: 1, maxQueued: 10 },
    });
    const root = h.nextTs();
    const waiting = h.nextTs();
    const first = "first, slowly #delay=300";
    const second = "second, right behind";
    await h.sendEvent(mention(first, { ts: root }));
    await until("the first answer begun", () =>
      h.simulator.requests.some((r) => r.route === "chat") ? true : undefined,
    );
    await h.sendEvent(mention(second, { ts: waiting }));
    await h.settle();

    const { fake } = h;
    expect(fake.callsTo("chat.delete")).toEqual([]);
    expect(fake.thread("C1", root).map((m) => m.text)).toEqual([
      safeMarkdown(simulatedAnswer(first)),
    ]);
    const [two, ...others] = fake.thread("C1", waiting);
    expect(others).toEqual([]);
    // The notice the second question got is the message its answer grew in.
    expect(two?.history[0]).toBe("⏳ many questions right now: yours is number 1 in line");
    expect(two?.text).toBe(renderMrkdwn(simulatedAnswer(second)));
    expect(fake.statusOf("C1", root)).toBe("");
    expect(fake.statusOf("C1", waiting)).toBe("");
  });

  it("takes the status down itself when the answer could put nothing in the thread", async () => {
    const h = await start({ simulator: { paidPlan: false } });
    // Slack refuses every post: the readable error cannot be shown either.
    h.fake.failNext("chat.postMessage", "internal_error", 10);
    const ts = h.nextTs();
    await h.sendEvent(mention("hello?", { ts }));
    await h.settle();

    const { fake } = h;
    expect(fake.thread("C1", ts)).toEqual([]);
    expect(fake.statuses.map((s) => s.status)).toEqual([THINKING, ""]);
    expect(fake.statusOf("C1", ts)).toBe("");
  });

  it("asks a workspace that refused the status (missing_scope) once, not for every answer", async () => {
    const h = await start({ simulator: { chunkDelayMs: 0 } });
    h.fake.failNext("assistant.threads.setStatus", "missing_scope", 10);
    const roots = [h.nextTs(), h.nextTs(), h.nextTs()];
    for (const ts of roots) {
      await h.sendEvent(mention(`question ${ts} #fast`, { ts }));
      await h.settle();
    }

    for (const ts of roots) expect(h.fake.thread("C1", ts)).toHaveLength(1);
    expect(h.fake.callsTo("assistant.threads.setStatus")).toHaveLength(1);
  });

  it("does not hold the first text back behind a slow status, and takes a late status down", async () => {
    const h = await start({ simulator: { chunkDelayMs: 0 } });
    h.fake.slowDown("assistant.threads.setStatus", 1_500);
    const ts = h.nextTs();
    const asked = performance.now();
    await h.sendEvent(mention("quick one #fast", { ts }));
    await h.settle();

    const first = h.fake.calls.find(
      (c) => /^chat\.(postMessage|startStream)$/.test(c.method) && c.outcome === "ok",
    );
    expect(first).toBeDefined();
    // The status was asked for first, but the answer went on without waiting its 1.5 s.
    expect((first?.at ?? Number.POSITIVE_INFINITY) - asked).toBeLessThan(1_000);
    expect(h.fake.thread("C1", ts)).toHaveLength(1);
    // The status landed after the answer's reply, so the bot took it down itself.
    await until("the late status taken down", () =>
      h?.fake.statuses.at(-1)?.status === "" ? true : undefined,
    );
    expect(h.fake.statusOf("C1", ts)).toBe("");
  });
});
