import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { inspect } from "node:util";
import { createClient } from "@keyv/redis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { presenceKey } from "../../src/coordination/process-presence.ts";
import { STREAM_GROUP } from "../../src/coordination/work-stream.ts";
import { StoreUnavailableError } from "../../src/errors.ts";
import { createLogger } from "../../src/log.ts";
import { openStore } from "../../src/store/open-store.ts";
import { KEPT_INDEX_KEY, openRedisStore } from "../../src/store/redis-store.ts";
import type { Store } from "../../src/store/types.ts";
import {
  hasRedisServerBinary,
  type RedisServer,
  sleep,
  spawnRedisServer,
  startBlackHole,
  startTestRedis,
} from "../support/redis.ts";
import { storeContract } from "./store-contract.ts";

const redis = await startTestRedis("redis store");
afterAll(() => redis?.close());

if (redis) {
  // A namespace per test: each starts empty, and nothing leaks into a shared Redis.
  storeContract("redis", () =>
    openRedisStore({
      url: redis.url,
      namespace: `${redis.namespace}-${randomUUID()}`,
      // Kept records go by this sweep: the contract waits for it, not for a minute.
      sweepIntervalMs: 50,
    }),
  );
}

describe.skipIf(!redis)("redis store", () => {
  const url = redis?.url ?? "";
  const namespace = `${redis?.namespace}-shared`;

  it("is a redis store that two processes share: one claim wins across clients", async () => {
    const [a, b] = await Promise.all([
      openRedisStore({ url, namespace }),
      openRedisStore({ url, namespace }),
    ]);
    const key = `race-${randomUUID()}`;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).claim(key, `owner-${i}`, 5_000)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = `owner-${results.indexOf(true)}`;
    expect(await a.get(key)).toBe(winner);
    // The lease is only the winner's to renew or release, whichever client asks.
    expect(await a.release(key, "someone-else")).toBe(false);
    expect(await (results.indexOf(true) % 2 ? b : a).release(key, winner)).toBe(true);
    await Promise.all([a.close(), b.close()]);
  });

  it("changes one set from two clients at once without losing a change", async () => {
    const [a, b] = await Promise.all([
      openRedisStore({ url, namespace }),
      openRedisStore({ url, namespace }),
    ]);
    const key = `set-${randomUUID()}`;
    const members = Array.from({ length: 20 }, (_, i) => `group-${i}`);
    await Promise.all(members.map((m, i) => (i % 2 ? a : b).addToSet(key, m)));
    expect((await a.setMembers(key)).sort()).toEqual([...members].sort());
    await Promise.all(members.slice(0, 10).map((m, i) => (i % 2 ? b : a).removeFromSet(key, m)));
    expect((await b.setMembers(key)).sort()).toEqual(members.slice(10).sort());
    await Promise.all([a.close(), b.close()]);
  });

  it("keeps one line's order whichever client joins, and leaves no key once it is empty", async () => {
    const [a, b] = await Promise.all([
      openRedisStore({ url, namespace }),
      openRedisStore({ url, namespace }),
    ]);
    const line = `line-${randomUUID()}`;
    expect(await a.lineJoin(line, "a:1")).toBe(1);
    expect(await b.lineJoin(line, "b:1")).toBe(2);
    expect(await a.lineJoin(line, "a:2")).toBe(3);
    expect(await a.lineLeave(line, "a:1", true)).toBe("b:1");
    expect(await b.lineLeave(line, "b:1", true)).toBe("a:2");
    await a.lineLeave(line, "a:2", false);
    const raw = createClient({ url });
    await raw.connect();
    expect(await raw.exists(`${namespace}:${line}`)).toBe(0);
    raw.destroy();
    await Promise.all([a.close(), b.close()]);
  });

  it("takes a process for alive while its presence holds, or while a connection it named is open", async () => {
    const [a, b] = await Promise.all([
      openRedisStore({ url, namespace, processId: "process-a" }),
      openRedisStore({ url, namespace, processId: "process-b" }),
    ]);
    await a.claim(presenceKey("process-a"), "process-a", 60_000);
    // B never took a presence (or it lapsed: cut off from Redis): its connection is still there.
    expect(await a.processesAlive(["process-a", "process-b", "process-c"])).toEqual([
      true,
      true,
      false,
    ]);
    await b.close();
    expect(await a.processesAlive(["process-b"])).toEqual([false]);
    await a.close();
  });

  it("runs its scripts by digest, and sends their text again when Redis lost them", async () => {
    const store = await openRedisStore({ url, namespace });
    const raw = createClient({ url });
    await raw.connect();
    try {
      const bucket = { intervalMs: 1_000, burst: 1 };
      const calls = async (command: string) => {
        const stats = await raw.info("commandstats");
        return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
      };
      const evalShaBefore = await calls("evalsha");
      expect((await store.drawToken("scripted", bucket)).waitMs).toBe(0);
      expect((await store.drawToken("scripted", bucket)).waitMs).toBeGreaterThan(0);
      expect((await calls("evalsha")) - evalShaBefore).toBeGreaterThanOrEqual(2);
      // A restarted Redis (or SCRIPT FLUSH) knows no scripts: they are loaded again.
      await raw.scriptFlush();
      expect((await store.drawToken("scripted", bucket)).waitMs).toBeGreaterThan(0);
      expect(await store.claim("lease", "me", 5_000)).toBe(true);
      expect(await store.renew("lease", "me", 5_000)).toBe(true);
      expect(await store.release("lease", "me")).toBe(true);
    } finally {
      raw.destroy();
      await store.close();
    }
  });

  it("keeps a kept record without a TTL of Redis's (volatile-lru never evicts it), and its time in the kept index", async () => {
    const store = await openRedisStore({ url, namespace });
    const raw = createClient({ url });
    await raw.connect();
    try {
      await store.set("kept-value", "v", { keptMs: 60_000 });
      await store.claim("kept-claim", "owner", { keptMs: 60_000 });
      await store.addToSet("kept-set", "member", { keptMs: 60_000 });
      await store.set("plain-ttl", "v", 60_000);
      for (const key of ["kept-value", "kept-claim", "kept-set"]) {
        expect(await raw.pTTL(`${namespace}:${key}`)).toBe(-1);
        const until = await raw.zScore(`${namespace}:${KEPT_INDEX_KEY}`, `${namespace}:${key}`);
        expect(until).toBeGreaterThan(Date.now() + 50_000);
      }
      expect(await raw.pTTL(`${namespace}:plain-ttl`)).toBeGreaterThan(50_000);
    } finally {
      raw.destroy();
      await store.close();
    }
  });

  it("brings the work stream and its group back by themselves: a group gone (NOGROUP), a stream gone", async () => {
    const store = await openRedisStore({ url, namespace });
    const raw = createClient({ url });
    await raw.connect();
    const queue = `queue-${randomUUID()}`;
    const full = `${namespace}:${queue}`;
    try {
      await store.streamAdd(queue, "first", 10, "adder");
      await store.streamAdd(queue, "second", 10, "adder");
      expect((await store.streamTake(queue, "a", 1)).map((e) => e.value)).toEqual(["first"]);
      // The group deleted under the running processes: adds and takes go on, and what was
      // still in the stream is taken again (the holder's hold went with the group).
      await raw.xGroupDestroy(full, STREAM_GROUP);
      expect(await store.streamAdd(queue, "third", 10, "adder")).toMatchObject({ place: 3 });
      expect((await store.streamTake(queue, "b", 5)).map((e) => e.value)).toEqual([
        "first",
        "second",
        "third",
      ]);
      // The stream gone (a store that lost its data): a process's round makes both again, so
      // an autoscaler reading the group's lag finds it before anything is added.
      await raw.del(full);
      expect((await store.streamTakeOver(queue, "b", 1_000, 5)).entries).toEqual([]);
      const groups = await raw.xInfoGroups(full);
      expect(groups.map((g) => g.name)).toEqual([STREAM_GROUP]);
      expect(await store.streamWaiting(queue)).toBe(0);
      expect(await store.streamPlaces(queue)).toEqual([]);
      expect(await store.streamHold(queue, "b", ["1-0"])).toEqual([]);
      expect(await store.streamFinish(queue, "b", "1-0")).toBe(false);
    } finally {
      raw.destroy();
      await store.close();
    }
  });

  it("keeps keys under its namespace", async () => {
    const store = await openRedisStore({ url, namespace });
    await store.set("plain", { v: 1 });
    const raw = createClient({ url });
    await raw.connect();
    expect(await raw.get(`${namespace}:plain`)).toBeTypeOf("string");
    expect(await raw.get("plain")).toBeNull();
    raw.destroy();
    await store.close();
  });
});

const ownServer = hasRedisServerBinary();
if (redis && !ownServer) {
  console.warn(
    "[redis store failure tests] skipped: no redis-server on PATH (they stop, freeze and restart a server of their own)",
  );
}

describe.skipIf(!ownServer)("redis store against a redis-server of its own", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    await Promise.allSettled(cleanups.splice(0).map((cleanup) => cleanup()));
  });

  async function serverAndStore(
    options: { timeoutMs?: number } = {},
  ): Promise<{ server: RedisServer; store: Store }> {
    const server = await spawnRedisServer();
    const store = await openRedisStore({ url: server.url, namespace: "t", ...options });
    cleanups.push(
      () => store.close(),
      () => server.close(),
    );
    return { server, store };
  }

  /** Runs `operation`, expects StoreUnavailableError, and returns how long it took. */
  async function failsFast(operation: () => Promise<unknown>): Promise<number> {
    const started = performance.now();
    const error = await operation().then(
      () => undefined,
      (e: unknown) => e,
    );
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(elapsed).toBeLessThan(1_500);
    return elapsed;
  }

  it("getMany is one MGET", async () => {
    const { server, store } = await serverAndStore();
    await store.set("a", 1);
    await store.set("b", 2);
    const raw = createClient({ url: server.url });
    await raw.connect();
    await raw.configResetStat();
    expect(await store.getMany(["a", "missing", "b"])).toEqual([1, undefined, 2]);
    const stats = await raw.info("commandstats");
    raw.destroy();
    expect(stats).toMatch(/cmdstat_mget:calls=1,/);
    expect(stats).not.toMatch(/cmdstat_get:/);
  });

  it("setMany writes every record without a TTL in Redis (none, or kept) in one MSET, and the kept ones' times in one ZADD", async () => {
    const { server, store } = await serverAndStore();
    const raw = createClient({ url: server.url });
    await raw.connect();
    await raw.set("t:plain", "old", { expiration: { type: "PX", value: 60_000 } });
    await raw.configResetStat();
    await store.setMany([
      { key: "plain", value: { a: 1 } },
      { key: "kept", value: "k", ttlMs: { keptMs: 60_000 } },
      { key: "timed", value: 2, ttlMs: 60_000 },
    ]);
    const stats = await raw.info("commandstats");
    expect(stats).toMatch(/cmdstat_mset:calls=1,/);
    expect(stats).toMatch(/cmdstat_set:calls=1,/);
    expect(stats).toMatch(/cmdstat_zadd:calls=1,/);
    expect(await store.getMany(["plain", "kept", "timed"])).toEqual([{ a: 1 }, "k", 2]);
    // As a SET without a TTL would: the value written lasts.
    expect(await raw.pTTL("t:plain")).toBe(-1);
    expect(await raw.pTTL("t:kept")).toBe(-1);
    expect(await raw.pTTL("t:timed")).toBeGreaterThan(0);
    raw.destroy();
  });

  it("fails fast while Redis is down, and recovers when it is back on the same port", async () => {
    const { server, store } = await serverAndStore();
    await store.set("k", "before");
    await server.stop();

    await failsFast(() => store.get("k"));
    await failsFast(() => store.set("k", "during"));
    await failsFast(() => store.claim("lock", "me", 1_000));
    await failsFast(() => store.ping());
    const error = await store.get("k").catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /store get failed: redis 127\.0\.0\.1:\d+ is not connected/,
    );

    await server.start();
    const deadline = Date.now() + 5_000;
    while (
      !(await store.ping().then(
        () => true,
        () => false,
      ))
    ) {
      expect(Date.now()).toBeLessThan(deadline);
      await sleep(50);
    }
    await store.set("k", "after");
    expect(await store.get("k")).toBe("after");
    expect(await store.claim("lock", "me", 1_000)).toBe(true);
  });

  it("logs an outage once as it starts and once as it ends, and marks the failures it explains", async () => {
    const lines: { level: number; msg: string; reason?: string; downMs?: number }[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const log = createLogger({ level: "debug", secrets: [], pretty: false, destination });
    const server = await spawnRedisServer();
    // A command timeout shorter than the default 1 s: a frozen server costs one.
    const store = await openRedisStore({ url: server.url, namespace: "t", log, timeoutMs: 250 });
    cleanups.push(
      () => store.close(),
      () => server.close(),
    );
    const outage = (msg: string) => lines.filter((line) => line.msg === msg);
    const recovered = async () => {
      const deadline = Date.now() + 5_000;
      while (
        !(await store.ping().then(
          () => true,
          () => false,
        ))
      ) {
        expect(Date.now()).toBeLessThan(deadline);
        await sleep(50);
      }
    };

    await server.stop();
    for (let i = 0; i < 3; i++) {
      const error = await store.get("k").catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "STORE_UNAVAILABLE", duringOutage: true });
    }
    await server.start();
    await recovered();
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [50, "store unreachable; retrying in the background"],
      [30, "store reachable again"],
    ]);

    // A server that stops answering without dropping the connection: the first timeout
    // starts the outage, the first answer ends it.
    server.pause();
    try {
      await expect(store.get("k")).rejects.toMatchObject({ duringOutage: true });
    } finally {
      server.resume();
    }
    await recovered();
    expect(outage("store unreachable; retrying in the background")[1]?.reason).toBe(
      "no answer within 250 ms",
    );
    expect(outage("store reachable again")).toHaveLength(2);
    expect(lines).toHaveLength(4);
  });

  it("fails each command within the timeout when Redis stops answering, then recovers", async () => {
    // Shorter than the default 1 s: each command waits it out.
    const { server, store } = await serverAndStore({ timeoutMs: 250 });
    await store.set("k", "v");
    server.pause();
    try {
      await failsFast(() => store.get("k"));
      await failsFast(() => store.set("k", "w"));
      const error = await store.claim("lock", "me").catch((e: unknown) => e);
      expect((error as Error).message).toMatch(/did not answer within 250 ms/);
    } finally {
      server.resume();
    }
    // A timed-out write may still land once Redis answers again (the caller was told it
    // failed, not that it did not happen). Replies to the timed-out commands arrive late;
    // later commands must still get their own.
    expect(["v", "w"]).toContain(await store.get("k"));
    await store.set("k2", "x");
    expect(await store.getMany(["k2", "missing"])).toEqual(["x", undefined]);
  });

  it("fails fast against a server that accepts connections and never answers", async () => {
    const hole = await startBlackHole();
    cleanups.push(() => hole.close());
    const started = performance.now();
    const store = await openRedisStore({ url: hole.url });
    cleanups.push(() => store.close());
    expect(performance.now() - started).toBeLessThan(1_500);

    await failsFast(() => store.get("k"));
    await failsFast(() => store.getMany(["a", "b"]));
    await failsFast(() => store.set("k", "v"));
    await failsFast(() => store.claim("k", "me", 1_000));
    await failsFast(() => store.ping());
  });

  it("honours the password and database number of STORE_URL", async () => {
    const password = `pw-${randomUUID()}`;
    const server = await spawnRedisServer({ password });
    cleanups.push(() => server.close());
    const url = `redis://:${password}@127.0.0.1:${server.port}/3`;
    const store = await openStore({ storeUrl: url, dataDir: "unused", namespace: "db-test" });
    cleanups.push(() => store.close());
    await store.set("k", "in db 3");

    const raw = createClient({ url: `redis://:${password}@127.0.0.1:${server.port}` });
    await raw.connect();
    cleanups.push(async () => raw.destroy());
    expect(await raw.get("db-test:k")).toBeNull(); // not in db 0
    await raw.select(3);
    expect(await raw.get("db-test:k")).toBeTypeOf("string");
  });

  it("rejects a wrong password with StoreUnavailableError that does not show it", async () => {
    const password = `right-${randomUUID()}`;
    const wrong = `wrong-${randomUUID()}`;
    const server = await spawnRedisServer({ password });
    cleanups.push(() => server.close());
    const started = performance.now();
    const error = await openStore({
      storeUrl: `redis://:${wrong}@127.0.0.1:${server.port}/2`,
      dataDir: "unused",
    }).catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toMatch(/refused the connection: WRONGPASS/);
    const shown = inspect(error, { depth: 10 });
    expect(shown).not.toContain(wrong);
    expect(shown).not.toContain(password);
  });

  it("rejects a missing password and a malformed URL without echoing the URL", async () => {
    const password = `right-${randomUUID()}`;
    const server = await spawnRedisServer({ password });
    cleanups.push(() => server.close());
    await expect(
      openStore({ storeUrl: `redis://127.0.0.1:${server.port}`, dataDir: "unused" }),
    ).rejects.toThrow(/NOAUTH/);

    const secret = `s3cret-${randomUUID()}`;
    const error = await openStore({
      storeUrl: `redis://:${secret}@127.0.0.1:${server.port}/not-a-number`,
      dataDir: "unused",
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(inspect(error, { depth: 10 })).not.toContain(secret);
  });
});
