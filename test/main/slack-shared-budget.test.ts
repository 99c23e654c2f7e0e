import { afterAll, describe, expect, it } from "vitest";
import { renderMrkdwn } from "../../adapters/slack/render.ts";
import { hugeAnswer } from "../../src/simulator/answers.ts";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { FakeSlack } from "../support/fake-slack.ts";
import { slackEventsOf, trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach } from "../support/process-test.ts";
import { startTestRedis } from "../support/redis.ts";
import { until } from "../support/run-bot.ts";
import {
  eventEnvelope,
  mention,
  SIGNING_SECRET,
  signedJsonHeaders,
} from "../support/slack-harness.ts";

const redis = await startTestRedis("Slack budget shared by two processes");
afterAll(() => redis?.close());
// The bots use the default key prefix, so they need a Redis of their own, not a shared one.
const ownRedis = redis?.server !== undefined;
if (redis && !ownRedis) console.warn("[Slack shared budget] skipped: no redis-server of its own");

const track = cleanupAfterEach();

/**
 * The workspace's chat.update allowance: Slack's Tier 3 (about 50 a minute) sped up twelve
 * times, so the test takes seconds. The bots are told the same figure.
 */
const TIER = { perMinute: 600, burst: 5 };
const LENGTH = 1_500;

/**
 * A bot over Slack HTTP, one process of the deployment; `storeUrl` is a Redis URL, or undefined
 * for an embedded store of its own.
 */
async function startSlackBot(fake: FakeSlack, simulator: Simulator, storeUrl: string | undefined) {
  const bot = trackedBot(track, {
    SLACK_BOT_TOKEN: fake.options.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    SLACK_NATIVE_STREAMING: "false",
    SLACK_UPDATES_PER_MINUTE: String(TIER.perMinute),
    SLACK_EDIT_INTERVAL_MS: "50",
    CHATBOT_BASE_URL: simulator.url,
    CHATBOT_API_KEY: simulator.apiKey,
    CHATBOT_BOT_UID: simulator.botUid,
    LEADS_POLL_INTERVAL: "0",
    RATE_LIMIT_QUESTIONS: "0",
    PORT: "0",
    ...(storeUrl ? { STORE_URL: storeUrl } : {}),
  });
  return { bot, events: await slackEventsOf(bot) };
}

async function deliver(events: string, event: Record<string, unknown>): Promise<void> {
  const body = JSON.stringify(eventEnvelope(event));
  const response = await fetch(events, { method: "POST", headers: signedJsonHeaders(body), body });
  await response.arrayBuffer();
  expect(response.status).toBe(200);
}

/** Ten long answers at once in one workspace, five asked through each of two processes. */
async function tenAnswersThroughTwoProcesses(storeUrls: [string | undefined, string | undefined]) {
  const fake = track(
    await FakeSlack.start({ tiers: { "chat.update": TIER }, streaming: false }),
    (f) => f.close(),
  );
  const simulator = track(await startSimulator({ chunkDelayMs: [2, 4] }), (s) => s.close());
  const processes = [
    await startSlackBot(fake, simulator, storeUrls[0]),
    await startSlackBot(fake, simulator, storeUrls[1]),
  ];
  const roots = Array.from({ length: 10 }, (_, i) => `1700000200.${String(i).padStart(6, "0")}`);
  await Promise.all(
    roots.map((ts, i) =>
      deliver(processes[i % 2]?.events ?? "", mention(`ten at once #huge=${LENGTH}`, { ts })),
    ),
  );
  const expected = renderMrkdwn(hugeAnswer(LENGTH));
  const answers = await until(
    "ten complete answers",
    () => {
      const texts = roots.map((ts) => fake.thread("C1", ts)[0]?.text);
      return texts.every((text) => text === expected) ? texts : undefined;
    },
    30_000,
  );
  return { fake, answers };
}

describe.skipIf(!ownRedis)("two bot processes in one Slack workspace, on one Redis", () => {
  it("share the workspace's chat.update budget: ten answers at once, not a single 429", async () => {
    const url = `${redis?.url}/6`;
    const { fake, answers } = await tenAnswersThroughTwoProcesses([url, url]);
    expect(answers).toHaveLength(10);
    expect(fake.rateLimited).toEqual([]);
    // Every answer was streamed (edited), not posted whole at the end.
    expect(fake.callsTo("chat.update").length).toBeGreaterThanOrEqual(10);
  });

  it("the control: each process on a store of its own keeps only its own pace and meets 429s", async () => {
    const { fake } = await tenAnswersThroughTwoProcesses([undefined, undefined]);
    expect(fake.rateLimited.length).toBeGreaterThan(0);
  });
});
