import { afterAll, describe, expect, it } from "vitest";
import { APPEND_STREAM_BURST, APPEND_STREAM_PER_MINUTE } from "../../adapters/slack/limits.ts";
import { Workspace } from "../../adapters/slack/workspace.ts";
import { openEmbeddedStore } from "../../src/store/embedded-store.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import type { KeyValueStore } from "../../src/store/types.ts";
import { busiestWindow } from "../support/flood-limits.ts";
import { startTestRedis } from "../support/redis.ts";
import { botWorkDir } from "../support/run-bot.ts";

const redis = await startTestRedis("Slack workspace budgets");
afterAll(() => redis?.close());

/** Slack's minute, shortened: the test takes about a second. */
const MINUTE_MS = 1_000;

/** When each of `count` appends was granted, in ms from the first ask. */
async function appendGrants(store: KeyValueStore, count: number): Promise<number[]> {
  const workspace = new Workspace(
    "T1",
    {
      updates: { perWindow: 50, burst: 3 },
      appends: { perWindow: APPEND_STREAM_PER_MINUTE, burst: APPEND_STREAM_BURST },
      windowMs: MINUTE_MS,
    },
    store,
  );
  const started = performance.now();
  return Promise.all(
    Array.from({ length: count }, () =>
      workspace.appends.acquire().then(() => performance.now() - started),
    ),
  );
}

const stores: [string, () => Promise<KeyValueStore>][] = [
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

        // The burst: thirty appends at once, three for each of ten answers starting together.
        expect(times.filter((t) => t < 50).length).toBeGreaterThanOrEqual(APPEND_STREAM_BURST);
        // The rest at an even pace (60 in a minute), never stalling…
        const paced = times.slice(APPEND_STREAM_BURST).sort((a, b) => a - b);
        for (let i = 1; i < paced.length; i++) {
          expect((paced[i] ?? 0) - (paced[i - 1] ?? 0)).toBeLessThan(MINUTE_MS / 10);
        }
        // …so that no minute holds more than 90% of Slack's 100.
        expect(busiestWindow(times, MINUTE_MS)).toBeLessThanOrEqual(90);
      } finally {
        await store.close();
      }
    },
  );
});
