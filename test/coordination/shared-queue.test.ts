import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Room } from "../../src/bridge/room.ts";
import { type QueueJob, SharedQueue } from "../../src/coordination/shared-queue.ts";
import { createLogger } from "../../src/log.ts";
import { openEmbeddedStore } from "../../src/store/embedded-store.ts";
import { interceptStore } from "../../src/store/instrumented-store.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import type { Store } from "../../src/store/types.ts";
import { sleep, startTestRedis } from "../support/redis.ts";

const redis = await startTestRedis("shared queue");
afterAll(() => redis?.close());

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const log = createLogger({ level: "silent", secrets: [] });
const TAKEOVER_MS = 600;

/** A consumer that records what it took and holds each job until released. */
class Worker {
  readonly taken: unknown[] = [];
  readonly begun: unknown[] = [];
  readonly queue: SharedQueue;
  readonly #release: (() => void)[] = [];
  #autoRelease = false;

  constructor(store: Store, key: string, name: string, maxActive: number) {
    this.queue = new SharedQueue({
      store,
      key,
      consumer: name,
      room: new Room(maxActive),
      maxQueued: 100,
      takeoverMs: TAKEOVER_MS,
      log,
    });
  }

  /** Serves the queue; `begin` false leaves each job taken and never begun. */
  serve(options: { begin: boolean } = { begin: true }): Promise<void> {
    return this.queue.serve(async (job: QueueJob) => {
      this.taken.push(job.value);
      if (!options.begin) return new Promise<void>(() => undefined);
      if ((await job.begin()) === "begun") this.begun.push(job.value);
      if (this.#autoRelease) return;
      await new Promise<void>((resolve) => this.#release.push(resolve));
    });
  }

  releaseAll(): void {
    this.#autoRelease = true;
    for (const release of this.#release.splice(0)) release();
  }
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error("condition not met in time");
    await sleep(10);
  }
}

function queueSuite(name: string, openStore: () => Promise<Store>): void {
  describe(`${name}: a queue shared by the processes`, () => {
    it("each process takes only what it has room for, whichever process added it; each entry is taken once", async () => {
      const key = `work-${randomUUID()}`;
      const a = new Worker(await openStore(), key, "a", 2);
      const b = new Worker(await openStore(), key, "b", 2);
      cleanups.push(async () => {
        a.releaseAll();
        b.releaseAll();
        await Promise.all([a.queue.stop(), b.queue.stop()]);
      });
      await a.serve();
      await b.serve();
      for (let i = 1; i <= 6; i += 1) expect(await a.queue.push(i)).toBeDefined();
      await until(() => a.begun.length === 2 && b.begun.length === 2);
      // Past both caps, two wait.
      await sleep(100);
      expect(a.queue.active + b.queue.active).toBe(4);
      expect(a.taken.length + b.taken.length).toBe(4);
      a.releaseAll();
      b.releaseAll();
      await until(() => a.begun.length + b.begun.length === 6);
      expect([...a.begun, ...b.begun].sort()).toEqual([1, 2, 3, 4, 5, 6]);
      expect(b.begun.length).toBeGreaterThanOrEqual(2);
    });

    it("refuses an entry past maxQueued, and takes new ones again once there is room", async () => {
      const store = await openStore();
      const queue = new SharedQueue({
        store,
        key: `bounded-${randomUUID()}`,
        consumer: "a",
        room: new Room(0),
        maxQueued: 2,
        takeoverMs: TAKEOVER_MS,
        log,
      });
      expect(await queue.push("x")).toMatchObject({ place: 1 });
      expect(await queue.push("y")).toMatchObject({ place: 2 });
      expect(await queue.push("z")).toBeUndefined();
    });

    it("a quiet queue is looked at for a dead holder's entries only now and then; an add heard brings the looks back", async () => {
      const store = await openStore();
      const key = `quiet-${randomUUID()}`;
      const takeoverMs = 400;
      const looks: { at: number; quiet: boolean }[] = [];
      const watched = interceptStore(store, async (operation, run) => {
        const result = await run();
        if (operation === "streamTakeOver") {
          looks.push({ at: performance.now(), quiet: (result as { quiet: boolean }).quiet });
        }
        return result;
      });
      const taken: unknown[] = [];
      const queue = new SharedQueue({
        store: watched,
        key,
        consumer: "a",
        room: new Room(5),
        maxQueued: 10,
        takeoverMs,
        log,
      });
      cleanups.push(() => queue.stop());
      await queue.serve(async (job) => {
        taken.push(job.value);
        await job.begin();
      });
      // A look once a lease until one finds the queue quiet; then the next only six leases on.
      await until(() => looks.filter((l) => l.quiet).length >= 2, 10_000);
      const first = looks.findIndex((l) => l.quiet);
      const [quiet, next] = [looks[first], looks[first + 1]];
      expect(next && quiet && next.at - quiet.at).toBeGreaterThanOrEqual(5 * takeoverMs);

      // An add heard: the entry is taken at once, and the looks are back within a lease or two.
      const lookedBefore = looks.length;
      await store.streamAdd(key, "question", 10, "another process");
      await until(() => taken.length === 1);
      await until(() => looks.length > lookedBefore, 4 * takeoverMs);
    });
  });
}

async function embeddedStore(): Promise<Store> {
  const dir = await mkdtemp(join(tmpdir(), "bridge-queue-"));
  const store = await openEmbeddedStore({ dataDir: dir });
  cleanups.push(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  return store;
}

let shared: Store | undefined;
// The embedded store belongs to one process: both consumers share one store object.
queueSuite("embedded", async () => {
  shared ??= await embeddedStore();
  return shared;
});
afterEach(() => {
  shared = undefined;
});

/** A store of its own on the one Redis, as each process has. */
async function redisStore(): Promise<Store> {
  if (!redis) throw new Error("no Redis");
  const store = await openRedisStore({ url: redis.url, namespace: redis.namespace });
  cleanups.push(() => store.close());
  return store;
}

describe.runIf(redis)("redis", () => {
  queueSuite("redis", redisStore);

  it("a process that dies holding entries not begun: another takes each over within TAKEOVER_MS, once", async () => {
    const key = `work-${randomUUID()}`;
    const deadStore = await openRedisStore({ url: redis?.url ?? "", namespace: redis?.namespace });
    const dead = new Worker(deadStore, key, "dead", 3);
    await dead.serve({ begin: false });
    for (let i = 1; i <= 3; i += 1) await dead.queue.push(i);
    await until(() => dead.taken.length === 3);
    // A kill: its connection goes, so nothing is renewed and nothing more is taken.
    await deadStore.close();
    const diedAt = performance.now();
    const heir = new Worker(await redisStore(), key, "heir", 5);
    await heir.serve();
    cleanups.push(async () => {
      heir.releaseAll();
      await heir.queue.stop();
    });
    await until(() => heir.begun.length === 3, TAKEOVER_MS * 4);
    expect(performance.now() - diedAt).toBeLessThan(TAKEOVER_MS * 2 + 500);
    expect([...heir.begun].sort()).toEqual([1, 2, 3]);
    await sleep(TAKEOVER_MS * 1.5);
    expect(heir.taken).toHaveLength(3);
  });

  it("a live holder keeps an entry it has not begun past TAKEOVER_MS, and begins it then", async () => {
    const key = `work-${randomUUID()}`;
    const store = await redisStore();
    let beginHeld: QueueJob["begin"] | undefined;
    const holder: SharedQueue = new SharedQueue({
      store,
      key,
      consumer: "holder",
      room: new Room(1),
      maxQueued: 10,
      takeoverMs: TAKEOVER_MS,
      log,
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    cleanups.push(() => {
      release();
      return holder.stop();
    });
    await holder.serve(async (job) => {
      beginHeld = () => job.begin();
      await released;
    });
    await holder.push("held");
    await until(() => beginHeld !== undefined);
    const other = new Worker(await redisStore(), key, "other", 1);
    await other.serve();
    cleanups.push(async () => {
      other.releaseAll();
      await other.queue.stop();
    });
    await sleep(TAKEOVER_MS * 2);
    expect(other.taken).toEqual([]);
    expect(await beginHeld?.()).toBe("begun");
  });

  it("begin at a stop says so and leaves the entry for another process", async () => {
    const key = `work-${randomUUID()}`;
    const store = await redisStore();
    const stopping: SharedQueue = new SharedQueue({
      store,
      key,
      consumer: "stopping",
      room: new Room(1),
      maxQueued: 10,
      takeoverMs: TAKEOVER_MS,
      log,
    });
    let outcome: unknown;
    let go!: () => void;
    const gate = new Promise<void>((resolve) => {
      go = resolve;
    });
    await stopping.serve(async (job) => {
      await gate;
      outcome = await job.begin();
    });
    await stopping.push("question");
    await until(() => stopping.active === 1);
    const stopped = stopping.stop();
    go();
    await stopped;
    expect(outcome).toBe("stopped");
    const heir = new Worker(await redisStore(), key, "heir", 1);
    await heir.serve();
    cleanups.push(async () => {
      heir.releaseAll();
      await heir.queue.stop();
    });
    await until(() => heir.begun.length === 1, TAKEOVER_MS * 4);
    expect(heir.begun).toEqual(["question"]);
  });
});
