import { afterAll, describe, expect, it } from "vitest";
import { APPEND_STREAM_BURST, APPEND_STREAM_PER_MINUTE } from "../../adapters/slack/limits.ts";
import { Workspace } from "../../adapters/slack/workspace.ts";
import { openEmbeddedStore } from "../../src/store/embedded-store.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import type { Store } from "../../src/store/types.ts";
import { startTestRedis } from "../support/redis.ts";
import { botWorkDir } from "../support/run-bot.ts";

const redis = await startTestRedis("Slack workspace budgets");
afterAll(() => redis?.close());

/** Slack's minute, shortened: the test takes about a second. */
const MINUTE_MS = 1_000;

/**
 * When each of `count` appends was granted, in ms from the first grant (ascending), in a
 * workspace allowed `perWindow` appends a minute.
 */
async function appendGrants(
  store: Store,
  count: number,
  perWindow = APPEND_STREAM_PER_MINUTE,
): Promise<number[]> {
  const workspace = new Workspace(
    "T1",
    {
      updates: { perWindow: 50, burst: 3 },
      appends: { perWindow, burst: APPEND_STREAM_BURST },
      windowMs: MINUTE_MS,
    },
    store,
  );
  const times = await Promise.all(
    Array.from({ length: count }, () => workspace.appends.acquire().then(() => performance.now())),
  );
  const first = Math.min(...times);
  return times.map((t) => t - first).sort((a, b) => a - b);
}

const stores: [string, () => Promise<Store>][] = [
  [
    "in one process (embedded store)",
    async () => openEmbeddedStore({ dataDir: await botWorkDir() }),
  ],
];
if (redis) {
  const { url, namespace } = redis;
  stores.push(["shared by processes (Redis)", () => openRedisStore({ url, namespace })]);
}

describe("a Slack workspace's chat.appendStream budget", () => {
  it.each(stores)(
    "spends Tier 4's burst at once, then the rest of Slack's minute evenly: %s",
    async (_, open) => {
      const store = await open();
      try {
        const times = await appendGrants(store, 100);
        const sinceFirst = (i: number) => times[i] ?? Number.POSITIVE_INFINITY;

        // The burst: thirty appends at once, three for each of ten answers starting together
        // (at the even pace they would take half a minute).
        expect(sinceFirst(APPEND_STREAM_BURST - 1)).toBeLessThan(MINUTE_MS / 4);
        // The rest at the even pace: a hundred take more than Slack's minute (90% of its 100
        // fit in one), and not much more.
        expect(sinceFirst(99)).toBeGreaterThanOrEqual(MINUTE_MS);
        expect(sinceFirst(99)).toBeLessThan(2 * MINUTE_MS);
      } finally {
        await store.close();
      }
    },
  );

  it("keeps a lower tier's minute too: a burst takes at most a third of it", async () => {
    // SLACK_APPENDS_PER_MINUTE=20: 18 a minute spent, 6 of them at once, not Tier 4's 30.
    const store = await openEmbeddedStore({ dataDir: await botWorkDir() });
    try {
      const times = await appendGrants(store, 19, 20);
      // Six at once (at the even pace they would take 400 ms), and 19 never fit in a minute.
      expect(times[5]).toBeLessThan(MINUTE_MS / 4);
      expect(times.at(-1)).toBeGreaterThanOrEqual(MINUTE_MS);
    } finally {
      await store.close();
    }
  });
});
