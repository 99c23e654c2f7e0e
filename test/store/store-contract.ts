import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { KeyValueStore } from "../../src/store/types.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What every KeyValueStore keeps, run against each implementation. `open` gives a fresh,
 * empty store for each test.
 */
export function storeContract(name: string, open: () => Promise<KeyValueStore>): void {
  describe(`${name}: KeyValueStore contract`, () => {
    let store: KeyValueStore;

    beforeEach(async () => {
      store = await open();
    });

    afterEach(async () => {
      await store.close();
    });

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
      await store.set("short", "v", 60);
      await store.set("long", "v", 60_000);
      await store.set("forever", "v");
      expect(await store.get("short")).toBe("v");
      await sleep(120);
      expect(await store.get("short")).toBeUndefined();
      expect(await store.getMany(["short", "long", "forever"])).toEqual([undefined, "v", "v"]);
    });

    it("a set without TTL replaces an earlier TTL", async () => {
      await store.set("k", "first", 60);
      await store.set("k", "second");
      await sleep(120);
      expect(await store.get("k")).toBe("second");
    });

    it("rejects a TTL that is not a positive number", async () => {
      await expect(store.set("k", "v", 0)).rejects.toThrow(RangeError);
      await expect(store.claim("k", "me", -1)).rejects.toThrow(RangeError);
    });

    it("claim: only the first claim wins, and the key is free again after its TTL", async () => {
      expect(await store.claim("lock", "a", 80)).toBe(true);
      expect(await store.claim("lock", "b", 80)).toBe(false);
      expect(await store.claim("lock", "a", 80)).toBe(false);
      expect(await store.get("lock")).toBe("a");
      await sleep(150);
      expect(await store.claim("lock", "b", 80)).toBe(true);
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
      expect(await store.claim("lease", "owner", 80)).toBe(true);
      expect(await store.renew("lease", "intruder", 400)).toBe(false);
      expect(await store.renew("lease", "owner", 400)).toBe(true);
      await sleep(150);
      // Past the first TTL: still held, thanks to the renewal.
      expect(await store.claim("lease", "intruder", 80)).toBe(false);
      expect(await store.get("lease")).toBe("owner");
    });

    it("renew of an expired claim fails", async () => {
      expect(await store.claim("lease", "owner", 50)).toBe(true);
      await sleep(100);
      expect(await store.renew("lease", "owner", 400)).toBe(false);
      expect(await store.get("lease")).toBeUndefined();
    });

    it("release deletes the claim for its owner only", async () => {
      expect(await store.claim("lock", "owner", 5_000)).toBe(true);
      expect(await store.release("lock", "intruder")).toBe(false);
      expect(await store.get("lock")).toBe("owner");
      expect(await store.release("lock", "owner")).toBe(true);
      expect(await store.release("lock", "owner")).toBe(false);
      expect(await store.claim("lock", "intruder", 5_000)).toBe(true);
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

    it("drawToken: a full bucket gives its burst at once, then says how long until the next token", async () => {
      const bucket = { intervalMs: 200, burst: 3 };
      const draws = await Promise.all(
        Array.from({ length: 5 }, () => store.drawToken("budget", bucket)),
      );
      expect(draws.filter((wait) => wait === 0)).toHaveLength(3);
      for (const wait of draws.filter((w) => w > 0)) {
        expect(wait).toBeGreaterThan(150);
        expect(wait).toBeLessThanOrEqual(200);
      }
      // A draw that must wait takes nothing: the token it waited for is there afterwards.
      await sleep(210);
      expect(await store.drawToken("budget", bucket)).toBe(0);
      expect(await store.drawToken("budget", bucket)).toBeGreaterThan(0);
      // Another key is another bucket.
      expect(await store.drawToken("other budget", bucket)).toBe(0);
    });

    it("drawToken with a hold empties the bucket for that long; holds for one moment do not add up", async () => {
      const bucket = { intervalMs: 100, burst: 5 };
      expect(await store.drawToken("held", bucket, 400)).toBe(400);
      expect(await store.drawToken("held", bucket, 400)).toBe(400);
      const wait = await store.drawToken("held", bucket);
      expect(wait).toBeGreaterThan(400);
      expect(wait).toBeLessThanOrEqual(500);
      await sleep(wait);
      expect(await store.drawToken("held", bucket)).toBe(0);
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
        () => store.release("k", "me"),
        () => store.drawToken("k", { intervalMs: 100, burst: 1 }),
        () => store.drawWindow("k", { limit: 1, windowMs: 100, burst: 1, spacingMs: 100 }),
        () => store.ping(),
      ]) {
        await expect(operation()).rejects.toMatchObject({ code: "STORE_UNAVAILABLE" });
      }
    });
  });
}
