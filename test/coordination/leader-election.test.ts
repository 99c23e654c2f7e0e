import { randomUUID } from "node:crypto";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { LeaderElection } from "../../src/coordination/leader-election.ts";
import { ProcessPresence, presenceKey } from "../../src/coordination/process-presence.ts";
import { createLogger } from "../../src/log.ts";
import { interceptStore } from "../../src/store/instrumented-store.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import type { Store } from "../../src/store/types.ts";
import { sleep, startTestRedis } from "../support/redis.ts";

const redis = await startTestRedis("leader election");
afterAll(() => redis?.close());

const LEASE_MS = 1_500;
const log = createLogger({
  level: "silent",
  secrets: [],
  pretty: false,
  destination: { write: () => true } as unknown as NodeJS.WritableStream,
});

type Event = { who: string; what: "lead" | "step down" | "stand by"; leaseHeld?: boolean };

const presences: ProcessPresence[] = [];

/**
 * Elections on one key, each on a store and presence of its own (as separate processes have),
 * and what they did.
 */
function contest(stores: Record<string, Store>) {
  const key = `poller-${randomUUID()}`;
  const events: Event[] = [];
  const elections = Object.fromEntries(
    Object.entries(stores).map(([who, store]) => [
      who,
      new LeaderElection({
        store,
        presence: presenceOf(store),
        key,
        log,
        role: {
          lead: () => void events.push({ who, what: "lead" }),
          stepDown: async (leaseHeld) => void events.push({ who, what: "step down", leaseHeld }),
          standBy: () => void events.push({ who, what: "stand by" }),
        },
      }),
    ]),
  );
  /** The processes leading now, replayed from the events: never more than one. */
  const leaders = () => {
    const now = new Set<string>();
    for (const event of events) {
      if (event.what === "lead") now.add(event.who);
      if (event.what === "step down") now.delete(event.who);
      expect(now.size).toBeLessThanOrEqual(1);
    }
    return [...now];
  };
  return { key, events, elections, leaders };
}

/** The presence of the process `store` stands for. */
function presenceOf(store: Store): ProcessPresence {
  const presence = new ProcessPresence({ store, log, leaseMs: LEASE_MS, id: randomUUID() });
  presences.push(presence);
  return presence;
}

async function waitFor(what: string, probe: () => boolean, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (!probe()) {
    if (performance.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
  return performance.now() - started;
}

describe.skipIf(!redis)("leader election on Redis", () => {
  const opened: Store[] = [];
  const open = async () => {
    const store = await openRedisStore({ url: redis?.url ?? "", namespace: redis?.namespace });
    opened.push(store);
    return store;
  };
  afterEach(async () => {
    for (const presence of presences.splice(0)) await presence.close().catch(() => undefined);
    for (const store of opened.splice(0)) await store.close();
  });

  it("lets one process lead while the other stands by, and hands over at once on stop", async () => {
    // The waiting process's tries: each round reads who holds the role.
    let tries = 0;
    const b = interceptStore(await open(), (operation, run) => {
      if (operation === "getMany") tries++;
      return run();
    });
    const { events, elections, leaders } = contest({ a: await open(), b });
    await elections.a?.start();
    await elections.b?.start();
    expect(leaders()).toEqual(["a"]);
    expect(events).toEqual([
      { who: "a", what: "lead" },
      { who: "b", what: "stand by" },
    ]);
    // A whole lease of rounds later (a third of a lease each), the leader's presence renewed
    // meanwhile: still the same leader and no second stand-by line.
    const first = tries;
    await waitFor("a lease of b's tries", () => tries >= first + 3, LEASE_MS * 3);
    expect(leaders()).toEqual(["a"]);
    expect(events).toHaveLength(2);

    await elections.a?.stop();
    // b's next try may come while a's stop returns: a's step-down is the third event, whatever
    // follows it.
    expect(events[2]).toEqual({ who: "a", what: "step down", leaseHeld: true });
    // The next try of the waiting process, a third of the lease at most: no waiting for a lapse
    // (timers on a busy machine given 300 ms).
    const took = await waitFor("b to lead", () => leaders()[0] === "b", LEASE_MS);
    expect(took).toBeLessThan(LEASE_MS / 3 + 300);
    await elections.b?.stop();
    expect(leaders()).toEqual([]);
  });

  it("replaces a leader whose presence is no longer renewed within a lease, and it steps down before", async () => {
    const lost = await open();
    const { events, elections, leaders } = contest({ a: lost, b: await open() });
    await elections.a?.start();
    await elections.b?.start();
    // The leader's store fails for good (Redis out of its reach): it keeps leading while its
    // presence presumably holds, then steps down before it lapses; the other takes over after.
    await lost.close();
    const took = await waitFor("b to lead", () => leaders()[0] === "b", LEASE_MS * 3);
    // The presence lapses within LEASE_MS of the close, and the waiting process tries every third.
    expect(took).toBeLessThan(LEASE_MS + LEASE_MS / 3 + 250);
    expect(took).toBeGreaterThan(LEASE_MS / 3);
    expect(events.map((e) => `${e.who} ${e.what}`)).toEqual([
      "a lead",
      "b stand by",
      "a step down",
      "b lead",
    ]);
    await elections.b?.stop();
    await elections.a?.stop();
  });

  it("steps down, leaving the new leader's work alone, when its presence lapsed and another process took the role", async () => {
    const store = await open();
    const { key, events, elections, leaders } = contest({ a: store });
    await elections.a?.start();
    expect(leaders()).toEqual(["a"]);
    // Its presence lapsed while it could not see it, and another (live) process took the role.
    const [aPresence] = presences;
    await store.delete(presenceKey(aPresence?.id ?? ""));
    await store.delete(key);
    await store.claim(presenceKey("another process"), "another process", 60_000);
    await store.claim(key, "another process");
    // Its presence's next renewal finds it lapsed (and takes it again); the round after sees
    // the role taken.
    await waitFor("a to step down", () => leaders().length === 0, 2 * LEASE_MS);
    expect(events.slice(1)).toEqual([
      { who: "a", what: "step down", leaseHeld: false },
      { who: "a", what: "stand by" },
    ]);
    await elections.a?.stop();
    // Its release leaves the other process's role in place.
    expect(await store.get(key)).toBe("another process");
  });
});
