import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/errors.ts";
import { openEmbeddedStore } from "../../src/store/embedded-store.ts";
import { openStore } from "../../src/store/open-store.ts";
import { tempDirs } from "../support/temp-dirs.ts";
import { storeContract } from "./store-contract.ts";

const freshDir = tempDirs("bridge-store-");

storeContract("embedded", async () => openEmbeddedStore({ dataDir: await freshDir() }));

describe("embedded store", () => {
  it("keeps its data across a close and reopen", async () => {
    const dataDir = await freshDir();
    const first = await openStore({ dataDir });
    await first.set("conv:thread-1", "c-123");
    await first.set("lang:channel", "fr", 60_000);
    expect(await first.claim("delivery:1", "me", 60_000)).toBe(true);
    await first.close();

    const second = await openStore({ dataDir });
    expect(await second.getMany(["conv:thread-1", "lang:channel"])).toEqual(["c-123", "fr"]);
    expect(await second.claim("delivery:1", "other", 60_000)).toBe(false);
    await second.close();
  });

  it("reads a map an earlier version kept as one value, and goes on with it field by field", async () => {
    const dataDir = await freshDir();
    const store = await openStore({ dataDir });
    // As the journal's map of a run looked before maps kept a key per field.
    await store.set("journal:run:earlier", { "0": { channel: "slack" }, "1": { channel: "x" } });
    expect(await store.mapEntries("journal:run:earlier")).toEqual({
      "0": { channel: "slack" },
      "1": { channel: "x" },
    });
    await store.updateMap("journal:run:earlier", { "2": { channel: "telegram" } }, ["1"]);
    expect(await store.mapEntries("journal:run:earlier")).toEqual({
      "0": { channel: "slack" },
      "2": { channel: "telegram" },
    });
    // A field set returns what the earlier map held for it.
    await store.set("votes:earlier", { "a1:U1": "up" });
    expect(await store.putInMap("votes:earlier", "a1:U1", "down")).toBe("up");
    expect(await store.mapEntries("votes:earlier")).toEqual({ "a1:U1": "down" });
    await store.close();
    // Across a reopen, and gone with a delete.
    const again = await openStore({ dataDir });
    expect(Object.keys(await again.mapEntries("journal:run:earlier"))).toEqual(["0", "2"]);
    expect(await again.delete("journal:run:earlier")).toBe(true);
    expect(await again.mapEntries("journal:run:earlier")).toEqual({});
    expect(await again.get("journal:run:earlier")).toBeUndefined();
    await again.close();
  });

  it("answers every read and write of a burst, in order, and keeps them across a reopen", async () => {
    const dataDir = await freshDir();
    const first = await openStore({ dataDir });
    // Hundreds at once, as a busy bot sends them: the disk takes them in groups.
    await Promise.all([
      ...Array.from({ length: 200 }, (_, i) => first.set(`key-${i}`, { i }, 60_000)),
      ...Array.from({ length: 50 }, (_, i) => first.set("latest", i)),
    ]);
    const claims = await Promise.all(
      Array.from({ length: 100 }, (_, i) => first.claim(`delivery-${i % 10}`, `p${i}`)),
    );
    const [deleted, values] = await Promise.all([
      Promise.all(Array.from({ length: 20 }, (_, i) => first.delete(`key-${i * 10}`))),
      Promise.all(Array.from({ length: 200 }, (_, i) => first.get(`key-${i}`))),
    ]);
    expect(claims.filter(Boolean)).toHaveLength(10);
    expect(deleted).toEqual(Array(20).fill(true));
    // Those no delete touched are read whatever the order.
    expect(values.filter((value, i) => i % 10 !== 0 && value !== undefined)).toHaveLength(180);
    await first.close();

    const second = await openStore({ dataDir });
    const kept = await second.getMany(Array.from({ length: 200 }, (_, i) => `key-${i}`));
    expect(kept.filter((value) => value === undefined)).toHaveLength(20);
    expect(kept[1]).toEqual({ i: 1 });
    expect(await second.get("latest")).toBe(49);
    await second.close();
  });

  it("creates DATA_DIR when it is missing", async () => {
    const dataDir = join(await freshDir(), "nested", "data");
    const store = await openStore({ dataDir });
    await store.set("k", "v");
    await store.close();
  });

  it("refuses a second open in the same process too", async () => {
    const dataDir = await freshDir();
    const store = await openStore({ dataDir });
    await expect(openStore({ dataDir })).rejects.toThrow(/is in use by another process/);
    await store.close();
  });

  it("reports a DATA_DIR it cannot create as StoreUnavailableError", async () => {
    const file = join(await freshDir(), "a-file");
    await writeFile(file, "");
    const dataDir = join(file, "data");
    const error = await openStore({ dataDir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toContain(`cannot open DATA_DIR ${dataDir}: ENOTDIR`);
  });

  it("sweeps expired entries that are never read again, and nothing else", async () => {
    const dataDir = await freshDir();
    const store = await openEmbeddedStore({ dataDir });
    for (let i = 0; i < 50; i++) await store.set(`delivery:${i}`, "seen", 30);
    await store.set("replaced", "old", 30);
    await store.set("replaced", "new"); // no TTL now: the stale index entry must not delete it
    await store.set("later", "v", 60_000);
    await store.set("kept", "v");
    await new Promise((resolve) => setTimeout(resolve, 80));

    expect(await store.sweep()).toBe(50);
    expect(await store.sweep()).toBe(0);
    expect(await store.getMany(["replaced", "later", "kept"])).toEqual(["new", "v", "v"]);
    await store.close();

    // On disk: the three live values, and the one index entry of "later".
    const db = new ClassicLevel<string, string>(join(dataDir, "store"));
    const keys = await db.keys().all();
    await db.close();
    expect(keys.filter((k) => k.startsWith("d:")).sort()).toEqual([
      "d:kept",
      "d:later",
      "d:replaced",
    ]);
    expect(keys.filter((k) => k.startsWith("x:"))).toHaveLength(1);
  });

  it("sweeps on its own timer", async () => {
    const store = await openEmbeddedStore({ dataDir: await freshDir(), sweepIntervalMs: 40 });
    await store.set("short", "v", 20);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await store.sweep()).toBe(0); // already swept by the timer
    await store.close();
  });
});
