import { randomUUID } from "node:crypto";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ThreadLines } from "../../src/bridge/thread-lines.ts";
import { ProcessPresence } from "../../src/coordination/process-presence.ts";
import { ProcessSignals } from "../../src/coordination/signals.ts";
import { createLogger } from "../../src/log.ts";
import { openEmbeddedStore } from "../../src/store/embedded-store.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import type { Store } from "../../src/store/types.ts";
import { countingStore } from "../bench/counting-store.ts";
import { startTestRedis } from "../support/redis.ts";
import { botWorkDir } from "../support/run-bot.ts";

const silent = createLogger({ level: "silent", secrets: [] });
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** One process's thread lines on `store`: its presence, its messages, its lines. */
async function linesOn(store: Store, id: string, leaseMs = 10_000) {
  const presence = new ProcessPresence({ store, log: silent, leaseMs, id });
  await presence.join();
  const signals = new ProcessSignals({ store, processId: id, log: silent });
  await signals.start();
  cleanups.push(
    () => signals.close(),
    () => presence.close(),
  );
  return new ThreadLines({ store, presence, signals, log: silent });
}

/** The order in which `turns` came, by their names. */
function order(turns: Record<string, Promise<void>>): string[] {
  const came: string[] = [];
  for (const [name, turn] of Object.entries(turns)) void turn.then(() => came.push(name));
  return came;
}

describe("a thread's line in one process", () => {
  it("gives each ticket its turn once the one before left, and other threads theirs at once", async () => {
    const store = await openEmbeddedStore({ dataDir: await botWorkDir(), processId: "p" });
    cleanups.push(() => store.close());
    const lines = await linesOn(store, "p");
    const [q1, q2, q3, other] = [
      lines.take("t1"),
      lines.take("t1"),
      lines.take("t1"),
      lines.take("t2"),
    ];
    const came = order({ q1: q1.turn(), q2: q2.turn(), q3: q3.turn(), other: other.turn() });
    await Promise.all([q1.turn(), other.turn()]);
    expect(came.sort()).toEqual(["other", "q1"]);
    expect((await q2.joined).ahead).toBe(true);
    q1.release();
    await q2.turn();
    expect(came).toContain("q2");
    expect(came).not.toContain("q3");
    q2.release();
    await q3.turn();
    q3.release();
    other.release();
  });

  it("keeps a ticket handed on with its question in its place, until it is taken and done", async () => {
    const store = await openEmbeddedStore({ dataDir: await botWorkDir(), processId: "p" });
    cleanups.push(() => store.close());
    const lines = await linesOn(store, "p");
    const first = lines.take("t");
    await first.turn();
    const next = lines.take("t");
    const handed = first.handOn();
    // Handed on: nothing of the thread goes past it, until whoever takes it lets it go.
    const adopted = lines.adopt("t", handed.id);
    await adopted.turn();
    expect(await store.lineHeads(["line:thread:t"])).toEqual([adopted.id]);
    adopted.release();
    await next.turn();
    next.release();
  });
});

const redis = await startTestRedis("a thread's line across processes");
afterAll(() => redis?.close());

describe.runIf(redis)("a thread's line across processes on Redis", () => {
  const LEASE_MS = 300;
  const namespace = `thread-lines-${randomUUID()}`;

  async function process(id = randomUUID()) {
    const inner = await openRedisStore({ url: redis?.url ?? "", namespace, processId: id });
    cleanups.push(() => inner.close());
    const counting = countingStore(inner);
    const lines = await linesOn(counting.store, id, LEASE_MS);
    return { id, counting, lines, store: inner };
  }

  it("hands the turn to the other process, which never polls its line for it", async () => {
    const a = await process();
    const b = await process();
    const answering = a.lines.take("handed thread");
    await answering.turn();
    b.counting.reset();
    const waiting = b.lines.take("handed thread");
    expect((await waiting.joined).ahead).toBe(true);
    answering.release();
    await waiting.turn();
    // B looked at its line once, right after it said it waits (A may have left before it heard
    // that, or told it its turn): no polling.
    expect(b.counting.counts.get("lineHeads") ?? 0).toBeLessThanOrEqual(1);
    waiting.release();
  });

  it("holds the turn of a process cut off from Redis, whose connection is still open", async () => {
    const a = await process();
    const b = await process();
    const answering = a.lines.take("cut thread");
    await answering.turn();
    const waiting = b.lines.take("cut thread");
    await waiting.joined;
    // A's presence lapses (its renewals do not reach Redis); its connection stays.
    await a.store.delete(`process:${a.id}`);
    await b.lines.check();
    await b.lines.check();
    expect(await a.store.lineHeads(["line:thread:cut thread"])).toEqual([
      expect.stringMatching(new RegExp(`^${a.id}:`)),
    ]);
    answering.release();
    await waiting.turn();
    waiting.release();
  });

  it("goes on without a dead process's ticket, once its presence lapsed and its connections closed", async () => {
    const a = await process();
    const b = await process();
    const killed = a.lines.take("dead thread");
    await killed.turn();
    const waiting = b.lines.take("dead thread");
    await waiting.joined;
    // A killed: nothing renews its presence, its connection closes.
    await a.store.delete(`process:${a.id}`);
    await a.store.close();
    // The beat's look (on every presence renewal) finds the head's process gone.
    await b.lines.check();
    await waiting.turn();
    waiting.release();
  });
});
