// Cost of one store write and one read as the store grows: `npx tsx test/bench/store-bench.ts`.
// The embedded store must not get slower per write as keys pile up (LevelDB appends to a
// log; its compaction runs in the background), and the fsync row shows what `sync: true`
// would cost, which is why the embedded store does not fsync each write.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { openEmbeddedStore } from "../../src/store/embedded-store.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import type { Store } from "../../src/store/types.ts";
import { hasRedisServerBinary, spawnRedisServer } from "../support/redis.ts";

export interface BenchRow {
  store: string;
  /** Keys in the store when the measurement started. */
  storedKeys: number;
  /** Mean µs for one awaited set() of a new key, without and with a TTL. */
  writeUs: number;
  writeTtlUs: number;
  /** Mean µs for one awaited get() of a random existing key. */
  readUs: number;
  ops: number;
}

export interface BenchOptions {
  sizes?: readonly number[];
  /** Operations averaged per figure. */
  ops?: number;
  /** Where progress notes go (the table itself is returned). */
  log?: (line: string) => void;
}

const VALUE = {
  conversationUid: "c-4f1b2a7e-5d3c-4e8f-9a6b-1c2d3e4f5a6b",
  updatedAt: 1_700_000_000,
};
const DAY_MS = 24 * 60 * 60 * 1000;

export async function benchStore(options: BenchOptions = {}): Promise<BenchRow[]> {
  const sizes = options.sizes ?? [10, 10_000, 100_000];
  const ops = options.ops ?? 2_000;
  const log = options.log ?? (() => undefined);
  const rows: BenchRow[] = [];
  const dir = await mkdtemp(join(tmpdir(), "store-bench-"));
  try {
    log("embedded store…");
    const embedded = await openEmbeddedStore({ dataDir: join(dir, "plain") });
    rows.push(...(await growAndMeasure("embedded", embedded, sizes, ops)));
    await embedded.close();

    log("embedded store with fsync…");
    const synced = await openEmbeddedStore({ dataDir: join(dir, "sync"), sync: true });
    // fsync makes each write milliseconds long: fewer ops, one size, same meaning.
    rows.push(...(await growAndMeasure("embedded, fsync", synced, [10_000], Math.min(ops, 300))));
    await synced.close();

    if (hasRedisServerBinary()) {
      log("redis (own redis-server)…");
      const server = await spawnRedisServer();
      const redis = await openRedisStore({ url: server.url, namespace: "bench" });
      rows.push(...(await growAndMeasure("redis", redis, sizes, ops)));
      await redis.close();
      await server.close();
    } else {
      log("redis skipped: no redis-server on PATH");
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

async function growAndMeasure(
  name: string,
  store: Store,
  sizes: readonly number[],
  ops: number,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  let filled = 0;
  let written = 0;
  for (const size of sizes) {
    filled = await fill(store, filled, size);
    // Warm-up: first calls pay for JIT and connection buffers.
    for (let i = 0; i < 100; i++) await store.get(`fill:${i % filled}`);
    const storedKeys = filled + written;

    const writeUs = await timePerOp(ops, (i) => store.set(`new:${written + i}`, VALUE));
    written += ops;
    const writeTtlUs = await timePerOp(ops, (i) => store.set(`ttl:${written + i}`, VALUE, DAY_MS));
    written += ops;
    const readUs = await timePerOp(ops, () =>
      store.get(`fill:${Math.floor(Math.random() * filled)}`),
    );
    rows.push({ store: name, storedKeys, writeUs, writeTtlUs, readUs, ops });
  }
  return rows;
}

/** Writes fill:<from>…fill:<to-1>, many at a time (the store may batch them). */
async function fill(store: Store, from: number, to: number): Promise<number> {
  const concurrency = 256;
  for (let start = from; start < to; start += concurrency) {
    const end = Math.min(start + concurrency, to);
    const writes: Promise<void>[] = [];
    for (let i = start; i < end; i++) writes.push(store.set(`fill:${i}`, VALUE));
    await Promise.all(writes);
  }
  return Math.max(from, to);
}

async function timePerOp(ops: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < ops; i++) await op(i);
  return Math.round(((performance.now() - started) * 1000) / ops);
}

export function formatBenchRows(rows: readonly BenchRow[]): string {
  const header = ["store", "stored keys", "write µs", "write+TTL µs", "read µs", "ops"];
  const lines = rows.map((r) => [
    r.store,
    r.storedKeys.toLocaleString("en-US"),
    String(r.writeUs),
    String(r.writeTtlUs),
    String(r.readUs),
    String(r.ops),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? "").length)));
  const format = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join("  ");
  return [format(header), ...lines.map(format)].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = performance.now();
  const rows = await benchStore({ log: (line) => console.error(line) });
  console.log(formatBenchRows(rows));
  console.error(`(${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
