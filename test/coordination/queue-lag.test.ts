import { createClient } from "@keyv/redis";
import { afterAll, describe, expect, it } from "vitest";
import { ANSWER_QUEUE_KEY } from "../../src/coordination/shared-queue.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import { readQueueLag } from "../support/queue-lag.ts";
import { startTestRedis } from "../support/redis.ts";

const redis = await startTestRedis("queue lag");
afterAll(() => redis?.close());

/** The consumer group's lag as KEDA's redis-streams scaler reads it. */
async function lagOf(url: string, stream: string): Promise<unknown> {
  const client = createClient({ url });
  await client.connect();
  try {
    return await readQueueLag(client, stream);
  } finally {
    client.destroy();
  }
}

describe.skipIf(!redis)("the answer queue's lag on Redis (what KEDA's lagCount scales on)", () => {
  it("counts the questions no process has taken yet, entries begun and deleted or not", async () => {
    if (!redis) return;
    const store = await openRedisStore({ url: redis.url, namespace: redis.namespace });
    try {
      const stream = `${redis.namespace}:${ANSWER_QUEUE_KEY}`;
      for (const n of [1, 2, 3, 4])
        await store.streamAdd(ANSWER_QUEUE_KEY, { n }, 100, "process-a");
      expect(await lagOf(redis.url, stream)).toBe(4);

      // A process with room for two takes them and begins one (acknowledged and deleted).
      const taken = await store.streamTake(ANSWER_QUEUE_KEY, "process-a", 2);
      await store.streamFinish(ANSWER_QUEUE_KEY, "process-a", taken[0]?.id ?? "");
      expect(await lagOf(redis.url, stream)).toBe(2);
      expect(await store.streamWaiting(ANSWER_QUEUE_KEY)).toBe(2);

      // Another takes the rest: nothing waits, so nothing asks for another replica.
      await store.streamTake(ANSWER_QUEUE_KEY, "process-b", 5);
      expect(await lagOf(redis.url, stream)).toBe(0);
    } finally {
      await store.close();
    }
  });
});
