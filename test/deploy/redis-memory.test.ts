import { createClient } from "@keyv/redis";
import { afterEach, describe, expect, it } from "vitest";
import { FeedbackVotes } from "../../src/feedback/votes.ts";
import { LeadChannels } from "../../src/leads/lead-channels.ts";
import { LeadClaimBook } from "../../src/leads/lead-claims.ts";
import { leadId } from "../../src/leads/lead-id.ts";
import type { Lead } from "../../src/ports.ts";
import { openRedisStore, type RedisStore } from "../../src/store/redis-store.ts";
import { Conversations, Deliveries } from "../../src/store/repositories.ts";
import { hasRedisServerBinary, type RedisServer, spawnRedisServer } from "../support/redis.ts";
import { hasKubectl, redisArgs, render } from "./kustomize.ts";

const own = hasRedisServerBinary();
if (!own) console.warn("[redis memory] skipped: no redis-server on PATH");
const runs = own && hasKubectl("redis memory");

// The overlay's policy on a Redis made small, so that memory runs out within the test.
const POLICY = runs
  ? (redisArgs(render("overlays/with-redis")).get("--maxmemory-policy") ?? "")
  : "";
const SMALL = "3mb";

let server: RedisServer | undefined;
let store: RedisStore | undefined;
afterEach(async () => {
  await store?.close();
  await server?.close();
});

const lead = (n: number): Lead => ({
  botUid: "sim-sales",
  conversationUid: `conv-${n}`,
  createdAt: "2026-11-20T10:00:00+00:00",
  name: `Lead ${n}`,
  phone: "+1 555 0100",
  email: `lead${n}@example.com`,
  remark: "",
});

describe.skipIf(!runs)("the with-redis overlay's Redis, out of memory", () => {
  it(`evicts (${POLICY}) what is transient, never the lead channels, conversations or lead records`, async () => {
    server = await spawnRedisServer({ args: ["--maxmemory", SMALL, "--maxmemory-policy", POLICY] });
    const opened = await openRedisStore({ url: server.url });
    store = opened;
    // What must stay: two lead channels, a hundred threads' conversations, twenty leads'
    // cards, posts and claims.
    const channels = new LeadChannels(opened, [], {
      chatbots: [{ name: "sales", botUid: "sim-sales" }],
    });
    await channels.subscribe({ platform: "slack", id: "C1" });
    await channels.subscribe({ platform: "telegram", id: "-100" });
    const conversations = new Conversations(opened);
    for (let i = 0; i < 100; i++) await conversations.save(`slack:T1:C1:${i}`, `conv-${i}`);
    const book = new LeadClaimBook(opened);
    const at = { platform: "slack", channelId: "C1" };
    for (let i = 0; i < 20; i++) {
      const id = leadId(lead(i));
      await book.announcing(id, lead(i), at);
      await book.posted(id, { ...at, message: { ts: `17000000${i}.0001` } });
      await book.claim(id, {
        platform: "slack",
        personId: "U1",
        name: "Sam",
        at: lead(i).createdAt,
      });
    }

    // Then the transient records of many answers, until Redis has evicted thousands of keys.
    const deliveries = new Deliveries(opened, "process-1");
    const votes = new FeedbackVotes(opened);
    const raw = createClient({ url: server.url });
    await raw.connect();
    const evicted = async () =>
      Number(/^evicted_keys:(\d+)/m.exec(await raw.info("stats"))?.[1] ?? 0);
    let answers = 0;
    while ((await evicted()) < 2_000) {
      if (answers > 100_000) throw new Error("Redis evicted nothing: is maxmemory set?");
      await Promise.all(
        Array.from({ length: 200 }, (_, i) => {
          const n = answers + i;
          return Promise.all([
            deliveries.claim("slack", `Ev${n}`),
            votes.remember(`answer-${n}`, {
              platform: "slack",
              channelKey: "slack:T1:D1",
              questionAt: new Date().toISOString(),
            }),
          ]);
        }),
      );
      answers += 200;
    }
    raw.destroy();

    const leadChannels = await channels.of("sales");
    expect(leadChannels).toHaveLength(2);
    expect(leadChannels).toEqual(
      expect.arrayContaining([
        { platform: "slack", id: "C1" },
        { platform: "telegram", id: "-100" },
      ]),
    );
    const kept = await opened.getMany(
      Array.from({ length: 100 }, (_, i) => `conv:slack:T1:C1:${i}`),
    );
    expect(kept.filter((c) => c === undefined)).toHaveLength(0);
    for (let i = 0; i < 20; i++) {
      const id = leadId(lead(i));
      expect((await book.card(id))?.posts).toHaveLength(1);
      expect((await book.holder(id))?.claim.name).toBe("Sam");
    }
  });
});
