import { randomUUID } from "node:crypto";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { LeadChannels } from "../../src/leads/lead-channels.ts";
import { createLeadsCommands } from "../../src/leads/leads-commands.ts";
import type { Logger } from "../../src/log.ts";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import type { Store } from "../../src/store/types.ts";
import { type Harness, incoming, startHarness } from "../support/bridge-harness.ts";
import { MemorySurface } from "../support/memory-surface.ts";
import { startTestRedis } from "../support/redis.ts";

const redis = await startTestRedis("lead subscriptions on Redis");
afterAll(() => redis?.close());

const NOT_A_LEAD_CHANNEL =
  "Leads are shown only in lead channels. One of the bot's admins can make this one a lead channel with /leads subscribe.";
const NO_LEADS = "No leads in the last 7 days.";

/** A message in group `id`, written by an admin. */
const inGroup = (text: string, id: string) =>
  incoming(text, { channelId: id, channelKey: `test:${id}`, threadKey: `test:${id}:t` });

/** Every /leads command path with no configured lead channel: only what admins subscribe. */
const withLeads = {
  leads: (backend: Parameters<typeof createLeadsCommands>[0]["backend"], store: Store) =>
    createLeadsCommands({ backend, channels: new LeadChannels(store, []) }),
};

/** What `text` in group `id` gets back, through bridge `h`. */
async function reply(h: Harness, text: string, id: string): Promise<string | undefined> {
  const surface = new MemorySurface();
  await h.bridge.handle(inGroup(text, id), surface);
  return surface.notices[0]?.text;
}

const groups = Array.from({ length: 20 }, (_, i) => `group-${i + 1}`);

/**
 * The deployments under test: one process on the embedded store, and two processes (two
 * bridges, each with its own Redis connection) on one Redis.
 */
const deployments: { name: string; skip: boolean; start(sim: Simulator): Promise<Harness[]> }[] = [
  {
    name: "one process on the embedded store",
    skip: false,
    start: async (sim) => [await startHarness({ simulatorInstance: sim, bridge: withLeads })],
  },
  {
    name: "two processes on one Redis",
    skip: !redis,
    start: async (sim) => {
      const namespace = `${redis?.namespace}-${randomUUID()}`;
      const started: Harness[] = [];
      for (let i = 0; i < 2; i++) {
        const store = await openRedisStore({ url: redis?.url ?? "", namespace });
        const h = await startHarness({ store, simulatorInstance: sim, bridge: withLeads });
        started.push({ ...h, close: () => h.close().then(() => store.close()) });
      }
      return started;
    },
  },
];

for (const deployment of deployments) {
  describe.skipIf(deployment.skip)(`/leads subscribe, ${deployment.name}`, () => {
    let simulator: Simulator | undefined;
    let harnesses: Harness[] = [];
    afterEach(async () => {
      for (const h of harnesses) await h.close();
      harnesses = [];
      await simulator?.close();
    });
    const start = async () => {
      simulator = await startSimulator({ leads: 0 });
      harnesses = await deployment.start(simulator);
      return harnesses;
    };
    /** The bridge a message to group `i` reaches: the processes take turns. */
    const via = (i: number) => harnesses[i % harnesses.length] as Harness;

    it("20 admins subscribing 20 groups at the same moment: every group becomes a lead channel", async () => {
      await start();
      const replies = await Promise.all(
        groups.map((id, i) => reply(via(i), "/leads subscribe", id)),
      );
      expect(replies).toEqual(groups.map(() => "This channel now gets every new lead."));

      const listings = await Promise.all(groups.map((id, i) => reply(via(i + 1), "/leads", id)));
      expect(listings).toEqual(groups.map(() => NO_LEADS));
    });

    it("unsubscribing half of them at the same moment leaves exactly the other half", async () => {
      await start();
      for (const [i, id] of groups.entries()) await reply(via(i), "/leads subscribe", id);
      const leaving = groups.filter((_, i) => i % 2 === 0);
      const replies = await Promise.all(
        leaving.map((id, i) => reply(via(i), "/leads unsubscribe", id)),
      );
      expect(replies).toEqual(leaving.map(() => "This channel no longer gets lead announcements."));

      const listings = await Promise.all(groups.map((id, i) => reply(via(i + 1), "/leads", id)));
      expect(listings).toEqual(groups.map((_, i) => (i % 2 === 0 ? NOT_A_LEAD_CHANNEL : NO_LEADS)));
    });

    it("keeps the subscriptions an earlier version stored, and they can be changed", async () => {
      const [first] = await start();
      // The earlier version kept every subscription in one value under this key.
      await first?.store.set("leads:subscriptions", [
        { platform: "test", id: "old-1" },
        { platform: "test", id: "old-2" },
      ]);
      expect(await reply(via(0), "/leads", "old-1")).toBe(NO_LEADS);
      expect(await reply(via(1), "/leads unsubscribe", "old-2")).toBe(
        "This channel no longer gets lead announcements.",
      );
      expect(await reply(via(0), "/leads subscribe", "new-1")).toBe(
        "This channel now gets every new lead.",
      );
      expect(await reply(via(1), "/leads subscribe", "old-1")).toBe(
        "This channel already gets every new lead.",
      );
      for (const h of harnesses) {
        expect(await reply(h, "/leads", "old-1")).toBe(NO_LEADS);
        expect(await reply(h, "/leads", "old-2")).toBe(NOT_A_LEAD_CHANNEL);
        expect(await reply(h, "/leads", "new-1")).toBe(NO_LEADS);
      }
    });

    it("does not keep the Telegram chats an earlier version let anyone subscribe", async () => {
      const [first] = await start();
      const store = first?.store;
      if (!store) throw new Error("no store");
      // Then a stranger's own group or private chat with the bot could be subscribed.
      await store.addToSet("leads:subscribed", "telegram:-100777");
      await store.addToSet("leads:subscribed", "telegram:4242");
      await store.addToSet("leads:subscribed", "test:old-3");
      const warnings: unknown[] = [];
      const log = { warn: (fields: unknown) => warnings.push(fields) } as unknown as Logger;
      expect(await new LeadChannels(store, [], { log }).all()).toEqual([
        { platform: "test", id: "old-3" },
      ]);
      // A set has no order.
      expect(warnings).toEqual([{ chats: expect.arrayContaining(["-100777", "4242"]) }]);
      expect((warnings[0] as { chats: string[] }).chats).toHaveLength(2);
      for (const h of harnesses) {
        expect(await reply(h, "/leads", "old-3")).toBe(NO_LEADS);
      }
    });
  });
}
