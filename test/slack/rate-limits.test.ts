import { describe, expect, it } from "vitest";
import { renderMrkdwn } from "../../adapters/slack/render.ts";
import { hugeAnswer } from "../../src/simulator/answers.ts";
import { mention, type SlackHarness, slackHarnessPerTest } from "../support/slack-harness.ts";
import { waitFor } from "./wait.ts";

/**
 * A workspace whose chat.update allowance is 600 a minute with bursts of 5: Slack's Tier 3
 * (about 50 a minute) sped up twelve times, so a test takes seconds, not minutes.
 */
const TIER = { perMinute: 600, burst: 5 };

const start = slackHarnessPerTest({
  simulator: { chunkDelayMs: [2, 4] },
  fake: { tiers: { "chat.update": TIER } },
  slack: { nativeStreaming: false, editIntervalMs: 50 },
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
    const harness = await start({ slack: { updatesPerMinute: TIER.perMinute, budgetBurst: 3 } });
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
});
