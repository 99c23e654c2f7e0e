import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { streamAddedChannel } from "../../src/coordination/work-stream.ts";
import type { Store } from "../../src/store/types.ts";
import { until as untilFound } from "../support/run-bot.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `done` holds: a message is delivered after its publisher's turn. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; !done() && i < 200; i += 1) await sleep(5);
}

/**
 * What every store keeps, run against each implementation: one block for each port it
 * implements, one for its life (ping, close). `open` gives a fresh, empty store for each test.
 */
export function storeContract(name: string, open: () => Promise<Store>): void {
  let store: Store;
  const freshForEachTest = () => {
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });
  };

  describe(`${name}: the key-value port (src/store/types.ts)`, () => {
    freshForEachTest();

    it("reads back what it wrote, and undefined for a key never written", async () => {
      await store.set("greeting", "hello");
      expect(await store.get("greeting")).toBe("hello");
      expect(await store.get("never-written")).toBeUndefined();
    });

    it("round-trips objects, strings, numbers, booleans and arrays", async () => {
      const values: Record<string, unknown> = {
        object: { conversationUid: "c-1", nested: { n: 2, list: [1, "two", null] } },
        string: 'ünïcödé ✓ with "quotes" and :colon',
        colonFirst: ":starts with a colon",
        number: 42.5,
        zero: 0,
        negative: -7,
        boolean: false,
        array: ["a", 1, { b: true }],
        empty: "",
      };
      for (const [key, value] of Object.entries(values)) await store.set(key, value);
      for (const [key, value] of Object.entries(values)) {
        expect(await store.get(key)).toEqual(value);
      }
    });

    it("overwrites a value", async () => {
      await store.set("k", { v: 1 });
      await store.set("k", { v: 2 });
      expect(await store.get("k")).toEqual({ v: 2 });
    });

    it("getMany keeps the order of the keys and gives undefined for missing ones", async () => {
      await store.set("a", 1);
      await store.set("c", "three");
      expect(await store.getMany(["c", "missing", "a", "c"])).toEqual([
        "three",
        undefined,
        1,
        "three",
      ]);
      expect(await store.getMany([])).toEqual([]);
    });

    it("delete says whether the key existed", async () => {
      await store.set("k", "v");
      expect(await store.delete("k")).toBe(true);
      expect(await store.get("k")).toBeUndefined();
      expect(await store.delete("k")).toBe(false);
    });

    it("forgets an entry after its TTL, and keeps one without TTL", async () => {
      await store.set("short", "v", 300);
      await store.set("long", "v", 60_000);
      await store.set("forever", "v");
      expect(await store.get("short")).toBe("v");
      await sleep(400);
      expect(await store.get("short")).toBeUndefined();
      expect(await store.getMany(["short", "long", "forever"])).toEqual([undefined, "v", "v"]);
    });

    it("a kept record (a value, a set, a claim) reads back like any, and goes once its time is up", async () => {
      await store.set("kept", { v: 1 }, { keptMs: 300 });
      await store.setMany([
        { key: "kept-many", value: "many", ttlMs: { keptMs: 300 } },
        { key: "kept-long", value: "long", ttlMs: { keptMs: 60_000 } },
      ]);
      expect(await store.addToSet("kept-set", "m", { keptMs: 300 })).toBe(true);
      expect(await store.claim("kept-claim", "owner", { keptMs: 300 })).toBe(true);
      expect(await store.claim("kept-claim", "other", { keptMs: 300 })).toBe(false);
      expect(await store.getMany(["kept", "kept-many", "kept-claim"])).toEqual([
        { v: 1 },
        "many",
        "owner",
      ]);
      expect(await store.setMembers("kept-set")).toEqual(["m"]);
      // The store deletes them itself (on Redis, its sweep: a kept record has no TTL there).
      const deadline = performance.now() + 5_000;
      while ((await store.getMany(["kept", "kept-many", "kept-claim"])).some(Boolean)) {
        if (performance.now() > deadline) throw new Error("the kept records outlived their time");
        await sleep(50);
      }
      expect(await store.setMembers("kept-set")).toEqual([]);
      expect(await store.get("kept-long")).toBe("long");
      await expect(store.set("k", "v", { keptMs: 0 })).rejects.toThrow(RangeError);
    });

    it("setMany writes every entry, each with its own TTL", async () => {
      await store.set("b", "old");
      await store.setMany([
        { key: "a", value: { text: "first" }, ttlMs: 300 },
        { key: "b", value: ["second", 2] },
        { key: "c", value: "third", ttlMs: 60_000 },
      ]);
      expect(await store.getMany(["a", "b", "c"])).toEqual([
        { text: "first" },
        ["second", 2],
        "third",
      ]);
      await sleep(400);
      expect(await store.getMany(["a", "b", "c"])).toEqual([undefined, ["second", 2], "third"]);
      await store.setMany([]);
      await expect(store.setMany([{ key: "d", value: 1, ttlMs: 0 }])).rejects.toThrow(RangeError);
      expect(await store.get("d")).toBeUndefined();
    });

    it("a set without TTL replaces an earlier TTL", async () => {
      await store.set("k", "first", 60);
      await store.set("k", "second");
      await sleep(120);
      expect(await store.get("k")).toBe("second");
    });

    it("rejects a TTL that is not a positive number for a value, a set or a map", async () => {
      await expect(store.set("k", "v", 0)).rejects.toThrow(RangeError);
      await expect(store.addToSet("s", "m", -1)).rejects.toThrow(RangeError);
      await expect(store.putInMap("m", "f", 1, Number.NaN)).rejects.toThrow(RangeError);
      expect(await store.setMembers("s")).toEqual([]);
    });

    it("sets: add and remove say whether they changed the set; members lists what is in it", async () => {
      expect(await store.setMembers("channels")).toEqual([]);
      expect(await store.addToSet("channels", "slack:C1")).toBe(true);
      expect(await store.addToSet("channels", "telegram:-100")).toBe(true);
      expect(await store.addToSet("channels", "slack:C1")).toBe(false);
      expect((await store.setMembers("channels")).sort()).toEqual(["slack:C1", "telegram:-100"]);
      expect(await store.removeFromSet("channels", "slack:C1")).toBe(true);
      expect(await store.removeFromSet("channels", "slack:C1")).toBe(false);
      expect(await store.removeFromSet("never-a-set", "x")).toBe(false);
      expect(await store.setMembers("channels")).toEqual(["telegram:-100"]);
      expect(await store.removeFromSet("channels", "telegram:-100")).toBe(true);
      expect(await store.setMembers("channels")).toEqual([]);
    });

    it("sets: concurrent adds and removes of one set lose none", async () => {
      const members = Array.from({ length: 40 }, (_, i) => `member-${i}`);
      const added = await Promise.all(members.map((m) => store.addToSet("crowd", m)));
      expect(added.every(Boolean)).toBe(true);
      expect((await store.setMembers("crowd")).sort()).toEqual([...members].sort());

      const leaving = members.filter((_, i) => i % 2 === 0);
      const staying = members.filter((_, i) => i % 2 === 1);
      const changes = await Promise.all([
        ...leaving.map((m) => store.removeFromSet("crowd", m)),
        ...staying.map((m) => store.addToSet("crowd", m)),
      ]);
      expect(changes).toEqual([...leaving.map(() => true), ...staying.map(() => false)]);
      expect((await store.setMembers("crowd")).sort()).toEqual([...staying].sort());
    });

    it("sets and maps with a TTL lapse that long after their last change", async () => {
      await store.addToSet("posts", "a", 1_000);
      await store.putInMap("day", "a1:U1", { rating: "up" }, 1_000);
      // Written last, changed never: when it lapses, the TTLs the first changes set are up.
      await store.set("unchanged", true, 1_000);
      await store.set("half", true, 500);
      // Half a TTL on, a change starts the set's and the map's TTL anew.
      await untilFound("half a TTL on", async () =>
        (await store.get("half")) === undefined ? true : undefined,
      );
      await store.addToSet("posts", "b", 1_000);
      await store.putInMap("day", "a1:U2", { rating: "down" }, 1_000);
      await untilFound("the unchanged record lapsed", async () =>
        (await store.get("unchanged")) === undefined ? true : undefined,
      );
      expect((await store.setMembers("posts")).sort()).toEqual(["a", "b"]);
      expect(Object.keys(await store.mapEntries("day")).sort()).toEqual(["a1:U1", "a1:U2"]);
      // The map was changed just after the set: it lapses just after it.
      const lapsed = async () =>
        (await store.setMembers("posts")).length === 0 &&
        Object.keys(await store.mapEntries("day")).length === 0;
      await untilFound("the set and the map lapsed", async () =>
        (await lapsed()) ? true : undefined,
      );
      expect(await store.setMembers("posts")).toEqual([]);
      expect(await store.mapEntries("day")).toEqual({});
    });

    it("maps: a field set returns what it held before; entries list every field", async () => {
      expect(await store.mapEntries("votes")).toEqual({});
      expect(await store.putInMap("votes", "a1:U1", { rating: "up" })).toBeUndefined();
      expect(await store.putInMap("votes", "a1:U2", { rating: "down" })).toBeUndefined();
      expect(await store.putInMap("votes", "a1:U1", { rating: "down" })).toEqual({ rating: "up" });
      expect(await store.mapEntries("votes")).toEqual({
        "a1:U1": { rating: "down" },
        "a1:U2": { rating: "down" },
      });
      // Another key is another map.
      expect(await store.mapEntries("other votes")).toEqual({});
    });

    it("maps: concurrent puts of one map lose none, and each sees one earlier value", async () => {
      const fields = Array.from({ length: 30 }, (_, i) => `f${i}`);
      await Promise.all(fields.map((f) => store.putInMap("crowd-map", f, 1)));
      const before = await Promise.all(fields.map((f) => store.putInMap("crowd-map", f, 2)));
      expect(before).toEqual(fields.map(() => 1));
      const entries = await store.mapEntries<number>("crowd-map");
      expect(Object.keys(entries).sort()).toEqual([...fields].sort());
      expect(Object.values(entries).every((v) => v === 2)).toBe(true);
    });
  });

  describe(`${name}: the coordination port (src/coordination/port.ts)`, () => {
    freshForEachTest();

    it("rejects a TTL that is not a positive number for a claim", async () => {
      await expect(store.claim("k", "me", -1)).rejects.toThrow(RangeError);
    });

    it("claim: only the first claim wins, and the key is free again after its TTL", async () => {
      // TTLs of 300 ms, not less: on a loaded machine a few calls can take longer than 60 ms.
      expect(await store.claim("lock", "a", 300)).toBe(true);
      expect(await store.claim("lock", "b", 300)).toBe(false);
      expect(await store.claim("lock", "a", 300)).toBe(false);
      expect(await store.get("lock")).toBe("a");
      await sleep(400);
      expect(await store.claim("lock", "b", 300)).toBe(true);
      expect(await store.get("lock")).toBe("b");
    });

    it("claim without TTL holds until released", async () => {
      expect(await store.claim("forever", "a")).toBe(true);
      await sleep(60);
      expect(await store.claim("forever", "b")).toBe(false);
      expect(await store.release("forever", "a")).toBe(true);
      expect(await store.claim("forever", "b")).toBe(true);
    });

    it("renew extends the claim for its owner only", async () => {
      expect(await store.claim("lease", "owner", 300)).toBe(true);
      expect(await store.renew("lease", "intruder", 2_000)).toBe(false);
      expect(await store.renew("lease", "owner", 2_000)).toBe(true);
      await sleep(400);
      // Past the first TTL: still held, thanks to the renewal.
      expect(await store.claim("lease", "intruder", 300)).toBe(false);
      expect(await store.get("lease")).toBe("owner");
    });

    it("renew of an expired claim fails", async () => {
      expect(await store.claim("lease", "owner", 50)).toBe(true);
      await sleep(100);
      expect(await store.renew("lease", "owner", 400)).toBe(false);
      expect(await store.get("lease")).toBeUndefined();
    });

    it("extend lengthens a claim that exists, and not one that is gone", async () => {
      expect(await store.claim("own", "owner", 300)).toBe(true);
      // Taken after it with the same TTL, not extended: when it lapses, so would have "own".
      expect(await store.claim("alike", "owner", 300)).toBe(true);
      expect(await store.extend("own", 10_000)).toBe(true);
      await untilFound("the claim not extended lapsed", async () =>
        (await store.get("alike")) === undefined ? true : undefined,
      );
      expect(await store.get("own")).toBe("owner");
      expect(await store.extend("never-taken", 2_000)).toBe(false);
      expect(await store.get("never-taken")).toBeUndefined();
    });

    it("release deletes the claim for its owner only", async () => {
      expect(await store.claim("lock", "owner", 5_000)).toBe(true);
      expect(await store.release("lock", "intruder")).toBe(false);
      expect(await store.get("lock")).toBe("owner");
      expect(await store.release("lock", "owner")).toBe(true);
      expect(await store.release("lock", "owner")).toBe(false);
      expect(await store.claim("lock", "intruder", 5_000)).toBe(true);
    });

    it("a claim's owner may be a record (JSON with quotes, colons, any script): read back whole, released only by that exact text", async () => {
      // What a lead's claim keeps: who took it and when (src/leads/lead-claims.ts).
      const owner = JSON.stringify({ personId: "U1", name: 'Zoë "ann" <@U2>: 李', at: "2026" });
      const other = JSON.stringify({ personId: "U2", name: "bob", at: "2026" });
      expect(await store.claim("lead:claim:1", owner, 60_000)).toBe(true);
      expect(await store.claim("lead:claim:1", other, 60_000)).toBe(false);
      expect(await store.get("lead:claim:1")).toBe(owner);
      expect(await store.release("lead:claim:1", other)).toBe(false);
      expect(await store.release("lead:claim:1", owner)).toBe(true);
      expect(await store.claim("lead:claim:1", other, 60_000)).toBe(true);
    });

    it("concurrent claims of one key: exactly one wins", async () => {
      const owners = Array.from({ length: 25 }, (_, i) => `owner-${i}`);
      const results = await Promise.all(owners.map((owner) => store.claim("race", owner, 5_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.get("race")).toBe(owners[results.indexOf(true)]);
    });

    it("concurrent claims of different keys all win", async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.claim(`key-${i}`, "me", 5_000)),
      );
      expect(results.every(Boolean)).toBe(true);
    });

    it("lines: a ticket says its place on joining; leaving tells who is at the head now", async () => {
      expect(await store.lineJoin("line", "p:1")).toBe(1);
      expect(await store.lineJoin("line", "q:1")).toBe(2);
      expect(await store.lineJoin("line", "p:2")).toBe(3);
      expect(await store.lineHeads(["line", "empty"])).toEqual(["p:1", undefined]);
      // Out of turn: the head stays.
      expect(await store.lineLeave("line", "p:2", true)).toBe("p:1");
      expect(await store.lineLeave("line", "p:1", true)).toBe("q:1");
      // Without `next`, nothing is read.
      expect(await store.lineLeave("line", "q:1", false)).toBeUndefined();
      expect(await store.lineHeads(["line"])).toEqual([undefined]);
      // An emptied line starts again; a ticket not in it leaves nothing.
      expect(await store.lineJoin("line", "r:1")).toBe(1);
      expect(await store.lineLeave("line", "gone:1", true)).toBe("r:1");
    });

    it("lines: tickets joining at the same moment keep the order they were sent in", async () => {
      const tickets = Array.from({ length: 20 }, (_, i) => `p:${i}`);
      const places = await Promise.all(tickets.map((ticket) => store.lineJoin("crowd", ticket)));
      expect(places).toEqual(tickets.map((_, i) => i + 1));
      for (const ticket of tickets) {
        expect(await store.lineHeads(["crowd"])).toEqual([ticket]);
        await store.lineLeave("crowd", ticket, false);
      }
    });

    it("lines: a ticket is replaced in its place, and only a ticket that is there", async () => {
      await store.lineJoin("line", "a:1");
      await store.lineJoin("line", "a:2");
      expect(await store.lineReplace("line", "a:1", "b:1")).toBe(true);
      expect(await store.lineReplace("line", "a:1", "c:1")).toBe(false);
      expect(await store.lineHeads(["line"])).toEqual(["b:1"]);
      expect(await store.lineLeave("line", "b:1", true)).toBe("a:2");
    });

    it("drawToken: a full bucket gives its burst at once, then says how long until the next token", async () => {
      const bucket = { intervalMs: 200, burst: 3 };
      const draws = await Promise.all(
        Array.from({ length: 5 }, async () => (await store.drawToken("budget", bucket)).waitMs),
      );
      expect(draws.filter((wait) => wait === 0)).toHaveLength(3);
      for (const wait of draws.filter((w) => w > 0)) {
        expect(wait).toBeGreaterThan(150);
        expect(wait).toBeLessThanOrEqual(200);
      }
      // A draw that must wait takes nothing: the token it waited for is there afterwards.
      await sleep(210);
      expect((await store.drawToken("budget", bucket)).waitMs).toBe(0);
      expect((await store.drawToken("budget", bucket)).waitMs).toBeGreaterThan(0);
      // Another key is another bucket.
      expect((await store.drawToken("other budget", bucket)).waitMs).toBe(0);
    });

    it("drawToken with a reserve leaves that many tokens (all but one at most) to draws without", async () => {
      const bucket = { intervalMs: 200, burst: 3 };
      expect((await store.drawToken("kept", bucket, { reserve: 1 })).waitMs).toBe(0);
      expect((await store.drawToken("kept", bucket, { reserve: 1 })).waitMs).toBe(0);
      // One token left: kept for a draw that must not wait.
      const wait = (await store.drawToken("kept", bucket, { reserve: 1 })).waitMs;
      expect(wait).toBeGreaterThan(150);
      expect(wait).toBeLessThanOrEqual(200);
      expect((await store.drawToken("kept", bucket)).waitMs).toBe(0);
      // A reserve larger than the burst keeps all but one token: routine draws still go.
      expect((await store.drawToken("crowded", bucket, { reserve: 10 })).waitMs).toBe(0);
      expect((await store.drawToken("crowded", bucket, { reserve: 10 })).waitMs).toBeGreaterThan(
        150,
      );
    });

    it("drawToken ahead takes more tokens only while the bucket stays at least half full", async () => {
      const bucket = { intervalMs: 10_000, burst: 10 };
      // 10 tokens: this draw's, then 4 ahead (5 left: half).
      expect(await store.drawToken("ahead", bucket, { ahead: 4 })).toEqual({ waitMs: 0, ahead: 4 });
      // 5 left: one for the draw, none ahead below half.
      expect(await store.drawToken("ahead", bucket, { ahead: 4 })).toEqual({ waitMs: 0, ahead: 0 });
      for (let i = 0; i < 4; i++) expect((await store.drawToken("ahead", bucket)).waitMs).toBe(0);
      expect((await store.drawToken("ahead", bucket)).waitMs).toBeGreaterThan(0);
    });

    it("drawToken with a hold empties the bucket for that long; holds for one moment do not add up", async () => {
      const bucket = { intervalMs: 100, burst: 5 };
      expect((await store.drawToken("held", bucket, { holdMs: 400 })).waitMs).toBe(400);
      expect((await store.drawToken("held", bucket, { holdMs: 400 })).waitMs).toBe(400);
      const wait = (await store.drawToken("held", bucket)).waitMs;
      expect(wait).toBeGreaterThan(400);
      expect(wait).toBeLessThanOrEqual(500);
      // A timer may fire up to a millisecond before the store's clock says the hold ended.
      await sleep(wait + 2);
      expect((await store.drawToken("held", bucket)).waitMs).toBe(0);
    });

    it("drawWindow: the burst at once, then one per spacing, and never more than the limit in any window", async () => {
      const window = { limit: 5, windowMs: 600, burst: 2, spacingMs: 60 };
      const started = performance.now();
      const granted: number[] = [];
      while (granted.length < 7) {
        const wait = await store.drawWindow("window", window);
        if (wait === 0) granted.push(performance.now() - started);
        else await sleep(wait);
      }
      expect(granted[1]).toBeLessThan(50);
      // The third and fourth wait for the pace (two at once, then one per 60 ms), the sixth
      // for the window.
      expect(granted[2]).toBeGreaterThanOrEqual(55);
      expect(granted[3]).toBeGreaterThanOrEqual(115);
      expect(granted[5]).toBeGreaterThanOrEqual(595);
      for (let i = 5; i < granted.length; i++) {
        expect((granted[i] ?? 0) - (granted[i - 5] ?? 0)).toBeGreaterThanOrEqual(595);
      }
      expect(await store.drawWindow("other window", window)).toBe(0);
    });

    it("drawWindow leaves the places a reserve asks for, and a hold stops every call while calls made before still count", async () => {
      const window = { limit: 4, windowMs: 500, burst: 4, spacingMs: 1 };
      expect(await store.drawWindow("reserved", window)).toBe(0);
      expect(await store.drawWindow("reserved", window)).toBe(0);
      // Two more would leave no room for the two reserved.
      expect(await store.drawWindow("reserved", window, { reserve: 2 })).toBeGreaterThan(400);
      expect(await store.drawWindow("reserved", window, { reserve: 1 })).toBe(0);
      expect(await store.drawWindow("reserved", window, { holdMs: 200 })).toBe(200);
      expect(await store.drawWindow("reserved", window, { holdMs: 200 })).toBe(200);
      const wait = await store.drawWindow("reserved", window);
      expect(wait).toBeGreaterThan(150);
      expect(wait).toBeLessThanOrEqual(200);
      // Timers may fire a millisecond early on the store's clock.
      await sleep(wait + 5);
      // The hold is over; the three calls before it still fill the window but one place.
      expect(await store.drawWindow("reserved", window)).toBe(0);
      expect(await store.drawWindow("reserved", window)).toBeGreaterThan(0);
    });

    it("work stream: entries are taken oldest first, each by one consumer, and say their place when added", async () => {
      expect(await store.streamAdd("work", { q: 1 }, 10, "adder")).toMatchObject({ place: 1 });
      expect(await store.streamAdd("work", { q: 2 }, 10, "adder")).toMatchObject({ place: 2 });
      expect(await store.streamAdd("work", { q: 3 }, 10, "adder")).toMatchObject({ place: 3 });
      expect(await store.streamWaiting("work")).toBe(3);
      const places = await store.streamPlaces("work");
      expect(places).toHaveLength(3);
      const a = await store.streamTake("work", "a", 2);
      expect(a.map((e) => e.value)).toEqual([{ q: 1 }, { q: 2 }]);
      const b = await store.streamTake("work", "b", 5);
      expect(b.map((e) => e.value)).toEqual([{ q: 3 }]);
      expect(await store.streamTake("work", "b", 5)).toEqual([]);
      expect(await store.streamWaiting("work")).toBe(0);
      expect(await store.streamPlaces("work")).toEqual([]);
      // Held entries are not waiting: a new one is next in line.
      const fourth = await store.streamAdd("work", { q: 4 }, 10, "adder");
      expect(fourth).toMatchObject({ place: 1 });
      expect(await store.streamPlaces("work")).toEqual([fourth?.id]);
      expect(a.map((e) => e.id)).toEqual(places.slice(0, 2));
      expect(await store.streamTake("nothing here", "a", 5)).toEqual([]);
      expect(await store.streamWaiting("nothing here")).toBe(0);
    });

    it("work stream: an add past maxWaiting is refused, and taking makes room", async () => {
      await store.streamAdd("bounded", "x", 2, "adder");
      await store.streamAdd("bounded", "y", 2, "adder");
      expect(await store.streamAdd("bounded", "z", 2, "adder")).toBeUndefined();
      await store.streamTake("bounded", "a", 1);
      expect(await store.streamAdd("bounded", "z", 2, "adder")).toMatchObject({ place: 2 });
      expect(await store.streamAdd("unbounded", "z", Infinity, "adder")).toMatchObject({
        place: 1,
      });
    });

    it("work stream: only the holder finishes an entry; a finished entry is gone", async () => {
      await store.streamAdd("work", "one", 10, "adder");
      const [entry] = await store.streamTake("work", "a", 1);
      if (!entry) throw new Error("nothing taken");
      expect(await store.streamFinish("work", "b", entry.id)).toBe(false);
      expect(await store.streamFinish("work", "a", entry.id)).toBe(true);
      expect(await store.streamFinish("work", "a", entry.id)).toBe(false);
      expect(await store.streamTakeOver("work", "b", 0, 10)).toEqual({ entries: [], quiet: true });
    });

    it("work stream: an entry whose holder stops renewing is taken over once idle long enough, and is no longer the first holder's", async () => {
      await store.streamAdd("work", "kept", 10, "adder");
      await store.streamAdd("work", "dropped", 10, "adder");
      const taken = await store.streamTake("work", "dead", 2);
      const [kept, dropped] = taken.map((e) => e.id);
      if (!kept || !dropped) throw new Error("nothing taken");
      expect(await store.streamTakeOver("work", "b", 300, 10)).toEqual({
        entries: [],
        quiet: false,
      });
      await sleep(200);
      expect(await store.streamHold("work", "dead", [kept])).toEqual([kept]);
      await sleep(200);
      const over = await store.streamTakeOver("work", "b", 300, 10);
      expect(over).toEqual({ entries: [{ id: dropped, value: "dropped" }], quiet: false });
      expect(await store.streamHold("work", "dead", [kept, dropped])).toEqual([kept]);
      expect(await store.streamFinish("work", "dead", dropped)).toBe(false);
      expect(await store.streamFinish("work", "b", dropped)).toBe(true);
    });

    it("work stream: a take-over says the stream is quiet only while no entry waits or is held", async () => {
      await store.streamAdd("calm", "one", 10, "adder");
      const waited = await store.streamTakeOver("calm", "b", 60_000, 1);
      expect(waited).toMatchObject({ entries: [{ value: "one" }], quiet: false });
      expect(await store.streamTakeOver("calm", "c", 60_000, 1)).toEqual({
        entries: [],
        quiet: false,
      });
      expect(await store.streamFinish("calm", "b", waited.entries[0]?.id ?? "")).toBe(true);
      expect((await store.streamTakeOver("calm", "c", 60_000, 1)).quiet).toBe(true);
    });

    it("work stream: a take-over also takes waiting entries, after a dead holder's, up to its count", async () => {
      await store.streamAdd("work", "held", 10, "adder");
      await store.streamTake("work", "dead", 1);
      await store.streamAdd("work", "waiting", 10, "adder");
      await store.streamAdd("work", "last", 10, "adder");
      await sleep(100);
      const over = await store.streamTakeOver("work", "b", 50, 2);
      expect(over.entries.map((entry) => entry.value)).toEqual(["held", "waiting"]);
      expect((await store.streamTake("work", "c", 10)).map((entry) => entry.value)).toEqual([
        "last",
      ]);
    });

    it("messages: a subscriber hears what is published on its topic, and of no other topic", async () => {
      const heard: string[] = [];
      const other: string[] = [];
      const stop = await store.subscribe("topic", (message) => heard.push(message));
      const stopOther = await store.subscribe("elsewhere", (message) => other.push(message));
      expect(await store.publish("topic", "one")).toBe(1);
      await until(() => heard.length === 1);
      expect(heard).toEqual(["one"]);
      expect(other).toEqual([]);
      stop();
      stopOther();
    });

    it("work stream: an add is told on its queue's topic", async () => {
      const heard: string[] = [];
      const stop = await store.subscribe(streamAddedChannel("watched"), (id) => heard.push(id));
      const added = await store.streamAdd("watched", "x", 10, "a");
      await until(() => heard.length === 1);
      expect(heard).toEqual([added?.id]);
      stop();
    });

    it("work stream: at a stop, what no other process could take is taken out and given back", async () => {
      const mine = await store.streamAdd("work", "mine", 10, "me");
      await store.streamAdd("work", "theirs", 10, "them");
      await store.streamAdd("work", "taken", 10, "me");
      const abandoned = (await store.streamAbandon("work", "me")).map((entry) => entry.value);
      // On Redis every entry waits there for the other processes; in memory only this one has
      // them, and they go: never another's.
      expect([[], ["mine", "taken"]]).toContainEqual(abandoned);
      expect(mine).toBeDefined();
      expect(await store.streamWaiting("work")).toBe(3 - abandoned.length);
    });

    it("processes: one never seen is not alive", async () => {
      expect(await store.processesAlive([])).toEqual([]);
      expect(await store.processesAlive(["never-was"])).toEqual([false]);
    });
  });

  describe(`${name}: the store's life, over both ports`, () => {
    freshForEachTest();

    it("ping resolves while the store is up", async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it("after close every operation rejects with StoreUnavailableError", async () => {
      await store.close();
      for (const operation of [
        () => store.get("k"),
        () => store.getMany(["k"]),
        () => store.set("k", "v"),
        () => store.delete("k"),
        () => store.claim("k", "me", 1_000),
        () => store.renew("k", "me", 1_000),
        () => store.extend("k", 1_000),
        () => store.release("k", "me"),
        () => store.addToSet("s", "m"),
        () => store.removeFromSet("s", "m"),
        () => store.setMembers("s"),
        () => store.putInMap("m", "f", 1),
        () => store.mapEntries("m"),
        () => store.updateMap("m", { f: 1 }, []),
        () => store.lineJoin("l", "me:1"),
        () => store.lineLeave("l", "me:1", true),
        () => store.lineHeads(["l"]),
        () => store.publish("t", "m"),
        () => store.drawToken("k", { intervalMs: 100, burst: 1 }),
        () => store.drawWindow("k", { limit: 1, windowMs: 100, burst: 1, spacingMs: 100 }),
        () => store.ping(),
      ]) {
        await expect(operation()).rejects.toMatchObject({ code: "STORE_UNAVAILABLE" });
      }
    });
  });
}
