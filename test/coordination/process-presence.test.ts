import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ProcessPresence, presenceKey } from "../../src/coordination/process-presence.ts";
import { createLogger } from "../../src/log.ts";
import { openEmbeddedStore } from "../../src/store/embedded-store.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import type { Store } from "../../src/store/types.ts";
import { type CountingStore, countingStore } from "../bench/counting-store.ts";
import { sleep, startTestRedis } from "../support/redis.ts";

const redis = await startTestRedis("a process's presence");
afterAll(() => redis?.close());

const silent = createLogger({ level: "silent", secrets: [] });
const LEASE_MS = 300;

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const namespace = `presence-${randomUUID()}`;

/** A store of its own on the one Redis, as each process has, counting its calls. */
async function redisProcess(): Promise<{
  store: Store;
  counting: CountingStore;
  presence: ProcessPresence;
}> {
  if (!redis) throw new Error("no Redis");
  const id = randomUUID();
  const inner = await openRedisStore({ url: redis.url, namespace, processId: id });
  cleanups.push(() => inner.close());
  const counting = countingStore(inner);
  const store = counting.store;
  const presence = new ProcessPresence({ store, log: silent, leaseMs: LEASE_MS, id });
  cleanups.push(() => presence.close());
  return { store, counting, presence };
}

describe.runIf(redis)("a process's presence on a store processes share", () => {
  it("shows the process alive to every other while it runs, renewed past its lease", async () => {
    const a = await redisProcess();
    const b = await redisProcess();
    await a.presence.join();
    await b.presence.join();
    await sleep(3 * LEASE_MS);
    // One step answers for many processes (b's own renewals may run meanwhile: not counted).
    b.counting.reset();
    expect(await b.presence.alive([a.presence.id, "never-ran", b.presence.id])).toEqual([
      true,
      false,
      true,
    ]);
    const { extend: _renewals, ...reads } = Object.fromEntries(b.counting.counts);
    expect(reads).toEqual({ processesAlive: 1 });
  });

  it("lapses a lease after its process died, and is gone at once once it closed", async () => {
    const killed = await redisProcess();
    const closed = await redisProcess();
    const watcher = await redisProcess();
    await killed.presence.join();
    await closed.presence.join();
    await closed.presence.close();
    await closed.store.close();
    expect(await watcher.presence.alive([closed.presence.id])).toEqual([false]);

    // Killed: its connection gone, nothing renews it.
    await killed.presence.close();
    await killed.store.claim(presenceKey(killed.presence.id), killed.presence.id, LEASE_MS);
    await killed.store.close();
    expect(await watcher.presence.alive([killed.presence.id])).toEqual([true]);
    await sleep(LEASE_MS + 50);
    expect(await watcher.presence.alive([killed.presence.id])).toEqual([false]);
  });

  it("takes itself again when a renewal finds it lapsed, and tells who holds by it", async () => {
    const { store, presence } = await redisProcess();
    await presence.join();
    const generation = presence.generation;
    let told = 0;
    presence.onLost(() => void told++);
    // Lapsed while the process could not see it (the store was away past the lease).
    await store.delete(presenceKey(presence.id));
    const started = performance.now();
    while (told === 0 && performance.now() - started < 2_000) await sleep(10);
    expect(told).toBe(1);
    expect(presence.generation).toBe(generation + 1);
    expect(await store.get(presenceKey(presence.id))).toBe(presence.id);
  });
});

describe.runIf(redis)("a process cut off from the store", () => {
  it("is not taken for dead while its connection stays open, though its presence lapsed", async () => {
    const cut = await redisProcess();
    const watcher = await redisProcess();
    await cut.presence.join();
    // Its presence lapses (no renewal reaches Redis), its connection is still there.
    await cut.presence.close();
    expect(await watcher.presence.alive([cut.presence.id])).toEqual([true]);
    await cut.store.close();
    expect(await watcher.presence.alive([cut.presence.id])).toEqual([false]);
  });
});

describe("a process's presence on a store one process owns", () => {
  it("shows only that process alive: one a killed process left on disk is dead at once", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "presence-"));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const store: Store = await openEmbeddedStore({ dataDir, processId: "me" });
    cleanups.push(() => store.close());
    await store.claim(presenceKey("killed"), "killed", 60_000);
    const presence = new ProcessPresence({ store, log: silent, id: "me" });
    await presence.join();
    expect(await presence.alive(["me", "killed"])).toEqual([true, false]);
    await presence.close();
  });
});
