import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createBackendClient } from "../../src/backend/client.ts";
import type { BackendClient } from "../../src/backend/types.ts";
import { ProcessPresence } from "../../src/coordination/process-presence.ts";
import { StoreMark } from "../../src/coordination/store-mark.ts";
import { LeadChannels } from "../../src/leads/lead-channels.ts";
import { LeadPoller, type LeadPollerOptions } from "../../src/leads/lead-poller.ts";
import { createLogger } from "../../src/log.ts";
import type { Lead, LeadAnnouncement, LeadAnnouncer } from "../../src/ports.ts";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { openEmbeddedStore } from "../../src/store/embedded-store.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import type { Store } from "../../src/store/types.ts";
import { deleteKeys, startTestRedis } from "../support/redis.ts";

const silent = createLogger({ level: "silent", secrets: [] });
const redis = await startTestRedis("lead poller on Redis");
afterAll(() => redis?.close());

/** What a lead channel shows: every announcement, in order, per channel. */
class RecordingAnnouncer implements LeadAnnouncer {
  readonly posted: { channelId: string; lead: Lead }[] = [];
  failNext = 0;
  constructor(readonly platform: string) {}
  channelKey(channelId: string): string {
    return `${this.platform}:${channelId}`;
  }
  async announce(channelId: string, { lead }: LeadAnnouncement): Promise<void> {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error("platform refused");
    }
    this.posted.push({ channelId, lead });
  }
  names(channelId: string): string[] {
    return this.posted.filter((p) => p.channelId === channelId).map((p) => p.lead.name);
  }
}

let simulator: Simulator;
let backend: BackendClient;
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function setUp(leads = 5): Promise<void> {
  simulator = await startSimulator({ chunkDelayMs: 0, leads, maxPageSize: 10 });
  backend = createBackendClient({
    baseUrl: simulator.url,
    apiKey: simulator.apiKey,
    botUid: simulator.botUid,
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
  });
  cleanup.push(
    () => simulator.close(),
    () => backend.close(),
  );
}

async function embeddedStore(): Promise<{ store: Store; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), "leads-test-"));
  const store = await openEmbeddedStore({ dataDir: dir });
  cleanup.push(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { store, dir };
}

function poller(
  store: Store,
  announcer: RecordingAnnouncer,
  extra: Partial<LeadPollerOptions> = {},
) {
  return new LeadPoller({
    backend,
    store,
    channels: new LeadChannels(store, [
      { platform: "test", id: "sales" },
      { platform: "test", id: "managers" },
    ]),
    announcers: [announcer],
    log: silent,
    intervalMs: 60_000,
    pageSize: 100,
    ...extra,
  });
}

describe("the lead poller", () => {
  it("announces no history on the first poll, then each new lead once in every lead channel", async () => {
    await setUp(12);
    const { store } = await embeddedStore();
    const announcer = new RecordingAnnouncer("test");
    const leads = poller(store, announcer);

    expect(await leads.pollOnce()).toMatchObject({ outcome: "first-poll", announced: 0 });
    expect(announcer.posted).toEqual([]);

    simulator.addLead({ name: "Ada Lovelace", email: "ada@example.com" });
    simulator.addLead({ name: "Grace Hopper", phone: "+1 555 0100" });
    expect(await leads.pollOnce()).toMatchObject({ outcome: "announced", announced: 4 });
    expect(announcer.names("sales")).toEqual(["Ada Lovelace", "Grace Hopper"]);
    expect(announcer.names("managers")).toEqual(["Ada Lovelace", "Grace Hopper"]);

    expect(await leads.pollOnce()).toMatchObject({ announced: 0 });
    expect(announcer.posted).toHaveLength(4);
  });

  it("notices the server's page cap and pages until a short page", async () => {
    await setUp(0);
    simulator.addLeads(25);
    const { store } = await embeddedStore();
    const report = await poller(store, new RecordingAnnouncer("test")).pollOnce();
    // 25 leads at the server's cap of 10 per page: pages of 10, 10 and 5.
    expect(report.requests).toBe(3);
  });

  it("does not announce again after a restart, even after a kill between polls", async () => {
    await setUp(3);
    const dir = await mkdtemp(join(tmpdir(), "leads-restart-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const announcer = new RecordingAnnouncer("test");
    let store = await openEmbeddedStore({ dataDir: dir });
    await poller(store, announcer).pollOnce();
    simulator.addLead({ name: "Before restart" });
    await poller(store, announcer).pollOnce();
    await store.close();

    store = await openEmbeddedStore({ dataDir: dir });
    cleanup.push(() => store.close());
    simulator.addLead({ name: "After restart" });
    await poller(store, announcer).pollOnce();
    expect(announcer.names("sales")).toEqual(["Before restart", "After restart"]);
  });

  it("announces a lead added between two page fetches once", async () => {
    await setUp(15);
    const { store } = await embeddedStore();
    const announcer = new RecordingAnnouncer("test");
    await poller(store, announcer, { pageSize: 10 }).pollOnce();
    // A lead arrives right after the first page was read: pages shift by one.
    let pages = 0;
    const shifting: BackendClient = {
      ...backend,
      chat: backend.chat,
      close: backend.close,
      leads: async (query) => {
        const page = await backend.leads(query);
        if (++pages === 1) simulator.addLead({ name: "Between pages" });
        return page;
      },
    };
    simulator.addLead({ name: "Before the poll" });
    await poller(store, announcer, { backend: shifting, pageSize: 10 }).pollOnce();
    await poller(store, announcer, { pageSize: 10 }).pollOnce();
    expect(announcer.names("sales").sort()).toEqual(["Before the poll", "Between pages"]);
  });

  it("survives failing polls and malformed pages, and catches up on the next success", async () => {
    await setUp(2);
    const { store } = await embeddedStore();
    const announcer = new RecordingAnnouncer("test");
    const leads = poller(store, announcer);
    await leads.pollOnce();
    simulator.addLead({ name: "During the outage" });
    for (const fault of ["#status=500", "#code=1001", "#bad-header"]) {
      simulator.setFaults(fault, "leads");
      await expect(leads.pollOnce()).rejects.toThrow();
    }
    simulator.setFaults("", "leads");
    await leads.pollOnce();
    expect(announcer.names("sales")).toEqual(["During the outage"]);
  });

  it("retries a lead whose announcement failed, without doubling it where it was posted", async () => {
    await setUp(1);
    const { store } = await embeddedStore();
    const announcer = new RecordingAnnouncer("test");
    const leads = poller(store, announcer);
    await leads.pollOnce();
    simulator.addLead({ name: "Flaky" });
    // Posted to "sales", refused in "managers".
    const original = announcer.announce.bind(announcer);
    announcer.announce = async (channelId, lead) => {
      if (channelId === "managers") throw new Error("platform refused");
      return original(channelId, lead);
    };
    await expect(leads.pollOnce()).rejects.toThrow("platform refused");
    announcer.announce = original;
    await leads.pollOnce();
    expect(announcer.names("sales")).toEqual(["Flaky"]);
    expect(announcer.names("managers")).toEqual(["Flaky"]);
  });

  it.skipIf(!redis)(
    "announces each lead once with two processes on Redis and overlapping leases",
    async () => {
      await setUp(3);
      const namespace = `${redis?.namespace}-${randomUUID()}`;
      const stores = await Promise.all(
        [0, 1].map(() => openRedisStore({ url: redis?.url ?? "", namespace })),
      );
      cleanup.push(async () => {
        for (const store of stores) await store.close();
      });
      const announcer = new RecordingAnnouncer("test");
      // Presences of 1 ms: each process finds the other's lapsed, and takes polling over, on
      // every round, while the other may still be polling.
      const pollers = stores.map((store) => poller(store, announcer, { leaseMs: 1 }));
      cleanup.push(async () => {
        for (const each of pollers) await each.stop();
      });
      await pollers[0]?.pollOnce();
      const added: string[] = [];
      for (let round = 0; round < 8; round++) {
        for (let i = 0; i < 3; i++)
          added.push(simulator.addLead({ name: `Lead ${round}-${i}` }).name);
        await Promise.all(pollers.map((p) => p.pollOnce().catch(() => undefined)));
      }
      await Promise.all(pollers.map((p) => p.pollOnce()));
      expect(announcer.names("sales").sort()).toEqual([...added].sort());
      expect(announcer.names("managers").sort()).toEqual([...added].sort());
    },
  );

  it.skipIf(!redis)(
    "keeps polling to itself between polls while its process lives, and a dead poller's role frees with its presence",
    async () => {
      await setUp(1);
      const namespace = `${redis?.namespace}-${randomUUID()}`;
      const [storeA, storeB, storeC] = await Promise.all(
        [0, 1, 2].map(() => openRedisStore({ url: redis?.url ?? "", namespace })),
      );
      cleanup.push(async () => {
        for (const store of [storeA, storeB, storeC]) await store?.close();
      });
      if (!storeA || !storeB || !storeC) throw new Error("no store");
      const announcer = new RecordingAnnouncer("test");
      const alive = poller(storeA, announcer, { leaseMs: 300, intervalMs: 60_000 });
      const other = poller(storeB, announcer, { leaseMs: 300, intervalMs: 60_000 });
      cleanup.push(() => other.stop());
      alive.start();
      cleanup.push(() => alive.stop());
      await new Promise((resolve) => setTimeout(resolve, 700));
      // Two leases long after the last poll, the live poller still holds it.
      expect(await other.pollOnce()).toMatchObject({ outcome: "not-leader" });

      // A poller whose process dies (its connection to Redis gone, so its presence lapses)
      // holds polling for one lease at most.
      const dead = poller(storeC, announcer, { leaseMs: 300 });
      await alive.stop();
      expect((await dead.pollOnce()).outcome).not.toBe("not-leader");
      await storeC.close();
      expect(await other.pollOnce()).toMatchObject({ outcome: "not-leader" });
      await new Promise((resolve) => setTimeout(resolve, 350));
      expect((await other.pollOnce()).outcome).not.toBe("not-leader");
    },
  );

  describe.skipIf(!redis)("on a store that lost its data", () => {
    /** A process on its own connection: its presence, and its store mark, started. */
    async function processOn(namespace: string, id: string) {
      const store = await openRedisStore({ url: redis?.url ?? "", namespace });
      const presence = new ProcessPresence({ store, log: silent, leaseMs: 30_000, id });
      await presence.join();
      const mark = new StoreMark({ store, presence, log: silent });
      await mark.start();
      cleanup.push(async () => {
        await presence.close();
        await store.close();
      });
      return { store, presence, mark };
    }
    const wipe = (namespace: string) => deleteKeys(redis?.url ?? "", `${namespace}*`);

    it("the process that polled writes its state back and goes on: the lead of the loss is announced, nothing twice; a process without the state waits for it", async () => {
      await setUp(3);
      const namespace = `${redis?.namespace}-${randomUUID()}`;
      const [a, b] = [await processOn(namespace, "a"), await processOn(namespace, "b")];
      const announcer = new RecordingAnnouncer("test");
      const [pollerA, pollerB] = [a, b].map(({ store, presence, mark }) =>
        poller(store, announcer, { presence, writeBacks: mark }),
      ) as [LeadPoller, LeadPoller];
      expect(await pollerA.pollOnce()).toMatchObject({ outcome: "first-poll", announced: 0 });
      simulator.addLead({ name: "Before" });
      await pollerA.pollOnce();

      await wipe(namespace);
      simulator.addLead({ name: "At the loss" });
      // The other process finds the poll's state gone first: it gives the poll back, once.
      expect(await pollerB.pollOnce()).toMatchObject({ outcome: "not-leader" });
      expect(b.mark.losses).toBe(1);
      // The poller finds the mark another process wrote anew: it writes back and goes on.
      expect(await pollerA.pollOnce()).toMatchObject({ outcome: "announced", announced: 2 });
      expect(a.mark.losses).toBe(1);
      await pollerB.pollOnce();
      await pollerA.pollOnce();
      expect(announcer.names("sales")).toEqual(["Before", "At the loss"]);
      expect(announcer.names("managers")).toEqual(["Before", "At the loss"]);
    });

    it("with no process holding the poll's state, the poll after a loss waits once, then announces the leads since a poll interval before it and records older ones as seen", async () => {
      await setUp(0);
      const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
      simulator.addLead({ name: "Seen before", created_at: minutesAgo(5) });
      const namespace = `${redis?.namespace}-${randomUUID()}`;
      const [a, c] = [await processOn(namespace, "a"), await processOn(namespace, "c")];
      const announcer = new RecordingAnnouncer("test");
      // The process that polled is gone with the data; the one left never polled.
      await poller(a.store, announcer, { presence: a.presence, writeBacks: a.mark }).pollOnce();
      const left = poller(c.store, announcer, { presence: c.presence, writeBacks: c.mark });

      await wipe(namespace);
      simulator.addLead({ name: "Recent", created_at: minutesAgo(0.5) });
      simulator.addLead({ name: "Backdated", created_at: minutesAgo(10) });
      expect(await left.pollOnce()).toMatchObject({ outcome: "not-leader" });
      // Leads since one interval (60 s) and a lease (30 s) before the loss.
      expect(await left.pollOnce()).toMatchObject({ outcome: "first-poll", announced: 2 });
      expect(await left.pollOnce()).toMatchObject({ outcome: "announced", announced: 0 });
      expect(announcer.names("sales")).toEqual(["Recent"]);
    });

    it("a store new to the process is a first poll as ever: existing leads are not announced", async () => {
      await setUp(3);
      const namespace = `${redis?.namespace}-${randomUUID()}`;
      const { store, presence, mark } = await processOn(namespace, "a");
      const announcer = new RecordingAnnouncer("test");
      const leads = poller(store, announcer, { presence, writeBacks: mark });
      expect(await leads.pollOnce()).toMatchObject({ outcome: "first-poll", announced: 0 });
      expect(mark.losses).toBe(0);
      expect(announcer.posted).toEqual([]);
    });
  });
});
