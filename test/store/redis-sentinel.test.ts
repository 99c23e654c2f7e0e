import { randomUUID } from "node:crypto";
import { createClient } from "@keyv/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStoreAtStart } from "../../src/store/open-store.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import { hasRedisServerBinary, type SentinelSet, spawnSentinelSet } from "../support/redis.ts";
import { until } from "../support/run-bot.ts";
import { tempDirs } from "../support/temp-dirs.ts";

const ownServers = hasRedisServerBinary();
if (!ownServers) {
  if (process.env.REQUIRE_REDIS === "1") throw new Error("REQUIRE_REDIS=1 but no redis-server");
  console.warn("[redis sentinel] skipped: no redis-server on PATH to start a Sentinel with");
}

const tempDir = tempDirs("sentinel-");
let set: SentinelSet | undefined;
beforeAll(async () => {
  if (ownServers) set = await spawnSentinelSet(await tempDir());
}, 30_000);
afterAll(() => set?.close());

const through = (namespace: string, processId: string) => {
  if (!set) throw new Error("no Sentinel");
  return openRedisStore({
    url: undefined,
    processId,
    sentinel: { nodes: [{ host: "127.0.0.1", port: set.sentinelPort }], name: set.name },
    namespace,
  });
};

describe.skipIf(!ownServers)("Redis through Sentinel", () => {
  it("refuses at start, in one line naming the setting, Sentinels that do not answer or know no such primary", async () => {
    const unknown = openStoreAtStart({
      dataDir: "unused",
      storeSentinel: {
        nodes: [{ host: "127.0.0.1", port: set?.sentinelPort ?? 0 }],
        name: "no-such-primary",
      },
    });
    await expect(unknown).rejects.toThrow(
      /^STORE_SENTINEL_NAME: the Sentinel at 127\.0\.0\.1:\d+ watches no primary named "no-such-primary"$/,
    );
    const away = openStoreAtStart({
      dataDir: "unused",
      storeSentinel: { nodes: [{ host: "127.0.0.1", port: 1 }], name: "bridge-primary" },
    });
    await expect(away).rejects.toThrow(/^STORE_SENTINELS: no Sentinel answers \(127\.0\.0\.1:1: /);
  });

  // Last: it fails the primary over, which every other test here would then run on.
  it("follows a failover: what was written is there, scripts run, the queue and the subscriptions go on", async () => {
    if (!set) throw new Error("no Sentinel");
    const namespace = `failover-${randomUUID()}`;
    const [a, b] = await Promise.all([
      through(namespace, "process-a"),
      through(namespace, "process-b"),
    ]);
    // Each process's connections carry its name, as on one Redis: alive while connected.
    expect(await a.processesAlive(["process-b", "process-gone"])).toEqual([true, false]);
    expect(await a.claim("claim", "a", 60_000)).toBe(true);
    const heard: string[] = [];
    await a.subscribe("news", (message) => heard.push(message));
    await b.publish("news", "before");
    await until("the message before", () => heard.includes("before") || undefined);
    await a.set("kept", { value: 1 }, { keptMs: 60_000 });
    await a.streamAdd("jobs", { question: "q1" }, 10, "a");
    const bucket = { intervalMs: 1_000, burst: 4 };
    expect((await a.drawToken("budget", bucket)).waitMs).toBe(0);

    // Acknowledged writes reach the replica before it is promoted (replication is
    // asynchronous: what the primary had not sent yet is what a failover loses).
    const primary = createClient({ socket: { host: "127.0.0.1", port: set.primary.port } });
    await primary.connect();
    await primary.set(`${namespace}:marker`, "1");
    expect(await primary.sendCommand(["WAIT", "1", "2000"])).toBe(1);
    primary.destroy();

    await set.primary.stop();
    const replicaPort = set.replica.port;
    await until("the Sentinel promotes the replica", async () =>
      (await set?.primaryPort()) === replicaPort ? true : undefined,
    );
    // Each store finds the new primary on its own, by Sentinel's news or a failed command.
    await until("a write through the new primary", () =>
      b.set("after", 2).then(
        () => true,
        () => undefined,
      ),
    );
    expect(await b.get("kept")).toEqual({ value: 1 });
    expect(await b.claim("claim", "b", 60_000)).toBe(false);
    expect(await b.processesAlive(["process-a"])).toEqual([true]);
    // A script the new primary never saw is sent whole once (NOSCRIPT), then by its digest.
    expect((await b.drawToken("budget", bucket)).waitMs).toBe(0);
    const [job] = await b.streamTake("jobs", "b", 1);
    expect(job?.value).toEqual({ question: "q1" });
    await until("a publish heard on the new primary", async () => {
      await b.publish("news", "after").catch(() => undefined);
      return heard.includes("after") || undefined;
    });
    await Promise.all([a.close(), b.close()]);
  });
});
