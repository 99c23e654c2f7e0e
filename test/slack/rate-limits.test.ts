import { describe, expect, it } from "vitest";
import { renderMrkdwn } from "../../adapters/slack/render.ts";
import { safeMarkdown } from "../../adapters/slack/stream-markdown.ts";
import { DEFAULTS } from "../../src/config.ts";
import { hugeAnswer } from "../../src/simulator/answers.ts";
import { mention, type SlackHarness, slackHarnessPerTest } from "../support/slack-harness.ts";
import { slackTiers } from "../support/slack-tiers.ts";
import { waitFor } from "./wait.ts";

/**
 * Slack's tiers as Slack documents them (Tier 3 chat.update, 50 calls a minute; Tier 4
 * chat.appendStream, 100), with Slack's minute twelve times shorter so a test takes seconds,
 * not minutes; the bot's budgets are its own production figures over the same minute.
 */
const MINUTE_MS = 5_000;

const start = slackHarnessPerTest({
  simulator: { chunkDelayMs: [2, 4] },
  fake: { tiers: slackTiers(MINUTE_MS) },
  slack: {
    nativeStreaming: false,
    editIntervalMs: 50,
    updatesPerMinute: DEFAULTS.slackUpdatesPerMinute,
    appendsPerMinute: DEFAULTS.slackAppendsPerMinute,
    budgetBurst: undefined,
    rateWindowMs: MINUTE_MS,
  },
});

async function askTen(harness: SlackHarness, length: number): Promise<string[]> {
  const roots = Array.from({ length: 10 }, () => harness.nextTs());
  const question = `ten at once #huge=${length}`;
  await Promise.all(roots.map((ts) => harness.sendEvent(mention(question, { ts }))));
  await harness.settle();
  return roots.map((ts) =>
    harness.fake
      .thread("C1", ts)
      .map((m) => m.text)
      .join("\n"),
  );
}

describe("Slack's rate limits", () => {
  it("answers ten questions at once in one workspace without a single 429", async () => {
    const harness = await start();
    const answers = await askTen(harness, 1500);

    expect(harness.fake.rateLimited).toEqual([]);
    for (const answer of answers) expect(answer).toBe(renderMrkdwn(hugeAnswer(1500)));
    // Every answer got its share: a few edits each, not one answer hogging the budget.
    const edits = harness.fake.callsTo("chat.update").length;
    expect(edits).toBeGreaterThanOrEqual(10);
  });

  it("without the shared budget the same load meets 429s, and the answers still end right", async () => {
    // The control: each answer only keeps its own pace, as if the workspace were its alone.
    // (Answers that grow for a while: each is posted, then edited a few times.)
    const harness = await start({
      simulator: { chunkDelayMs: [1, 2] },
      slack: { updatesPerMinute: 1_000_000, budgetBurst: 1_000 },
    });
    const answers = await askTen(harness, 1500);

    expect(harness.fake.rateLimited.length).toBeGreaterThan(0);
    for (const answer of answers) expect(answer).toBe(renderMrkdwn(hugeAnswer(1500)));
  });

  it("honours Retry-After for the workspace that got the 429, while another goes on", async () => {
    const harness = await start({ simulator: { chunkDelayMs: [3, 6] } });
    const first = harness.nextTs();
    harness.fake.rateLimitNext("chat.update", 2);
    await harness.sendEvent(mention("#huge=1200", { ts: first }));
    const limited = await waitFor(() => harness.fake.rateLimited[0], "the 429");
    const pauseEnd = limited.at + 2_000;

    const second = harness.nextTs();
    await harness.sendEvent(mention("#huge=600 elsewhere", { ts: second }), { team: "T0OTHER" });
    await harness.settle();

    const ts = (root: string) => harness.fake.thread("C1", root)[0]?.ts;
    const updatesOf = (root: string) =>
      harness.fake
        .callsTo("chat.update")
        .filter((c) => c.args.ts === ts(root) && c.outcome === "ok");
    // Nothing more for the limited workspace until Retry-After passed…
    expect(updatesOf(first).every((c) => c.at >= pauseEnd - 5)).toBe(true);
    // …while the other workspace's answer went on meanwhile.
    expect(updatesOf(second).some((c) => c.at < pauseEnd)).toBe(true);
    expect(harness.fake.thread("C1", first)[0]?.text).toBe(renderMrkdwn(hugeAnswer(1200)));
    expect(harness.fake.thread("C1", second)[0]?.text).toBe(renderMrkdwn(hugeAnswer(600)));
  });

  it("pauses the workspace's appends once for one 429 amid ten streams, then they go on", async () => {
    const harness = await start({
      simulator: { chunkDelayMs: [10, 20] },
      slack: { nativeStreaming: true },
    });
    harness.fake.rateLimitNext("chat.appendStream", 1);
    const roots = Array.from({ length: 10 }, () => harness.nextTs());
    await Promise.all(roots.map((ts) => harness.sendEvent(mention("ten #huge=1500", { ts }))));
    await harness.settle();

    const [limited, ...more] = harness.fake.rateLimited;
    expect(limited?.method).toBe("chat.appendStream");
    expect(more).toEqual([]);
    const at = limited?.at ?? 0;
    const pauseEnd = at + 1_000;
    const appends = harness.fake.callsTo("chat.appendStream").filter((c) => c !== limited);
    // Appends already on their way when Slack answered arrive at once; none goes in the pause,
    // whichever answer it is for…
    expect(appends.filter((c) => c.at > at + 100 && c.at < pauseEnd - 5)).toEqual([]);
    // …and the pause is one, not one per answer: the streams go on as soon as it ends.
    expect(appends.some((c) => c.at >= pauseEnd - 5 && c.at < pauseEnd + 500)).toBe(true);
    for (const root of roots) {
      expect(harness.fake.thread("C1", root)[0]?.text).toBe(safeMarkdown(hugeAnswer(1500)));
    }
  });
});
