import { randomUUID } from "node:crypto";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Lease } from "../../src/coordination/lease.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import type { Store } from "../../src/store/types.ts";
import { sleep, startTestRedis } from "../support/redis.ts";

const redis = await startTestRedis("leases");
afterAll(() => redis?.close());

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const namespace = `lease-${randomUUID()}`;

/** A store of its own on the one Redis, as each process has. */
async function redisStore(): Promise<Store> {
  if (!redis) throw new Error("no Redis");
  const store = await openRedisStore({ url: redis.url, namespace });
  cleanups.push(() => store.close());
  return store;
}

describe.runIf(redis)("a lease on a store processes share", () => {
  it("is held by one owner at a time, and freed at once when released", async () => {
    const [a, b] = [await redisStore(), await redisStore()];
    const key = `lease-${randomUUID()}`;
    const first = new Lease({ store: a, key, owner: "a", leaseMs: 5_000 });
    const second = new Lease({ store: b, key, owner: "b", leaseMs: 5_000 });
    expect(await first.acquire()).toBe(true);
    expect(await first.acquire()).toBe(true);
    expect(await second.acquire()).toBe(false);
    await first.release();
    expect(await second.acquire()).toBe(true);
  });

  it("stays held past its length while kept renewed, and lapses once no longer renewed", async () => {
    const store = await redisStore();
    const key = `lease-${randomUUID()}`;
    const kept = new Lease({ store, key, owner: "kept", leaseMs: 300 });
    const other = new Lease({ store, key, owner: "other", leaseMs: 300 });
    await kept.acquire();
    kept.keepRenewed();
    cleanups.push(() => kept.release());
    await sleep(900);
    expect(await other.acquire()).toBe(false);
    await kept.stopRenewing();
    await sleep(400);
    expect(await other.acquire()).toBe(true);
  });

  it("reports its loss when a renewal finds another owner holding it", async () => {
    const store = await redisStore();
    const key = `lease-${randomUUID()}`;
    const lease = new Lease({ store, key, owner: "first", leaseMs: 300 });
    let lost = 0;
    await lease.acquire();
    lease.keepRenewed({ lost: () => void lost++ });
    cleanups.push(() => lease.stopRenewing());
    await store.release(key, "first");
    await store.claim(key, "thief", 60_000);
    const started = performance.now();
    while (lost === 0 && performance.now() - started < 2_000) await sleep(10);
    expect(lost).toBeGreaterThan(0);
    expect(await store.get(key)).toBe("thief");
  });
});
