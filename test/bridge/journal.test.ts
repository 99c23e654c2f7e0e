import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Bridge, type BridgeOptions } from "../../src/bridge/bridge.ts";
import { AnswerJournal } from "../../src/journal/answer-journal.ts";
import type { RecoveryChannel } from "../../src/journal/finish-interrupted.ts";
import { createLogger } from "../../src/log.ts";
import type { MessageRef } from "../../src/ports.ts";
import { startSimulator } from "../../src/simulator/index.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import type { Store } from "../../src/store/types.ts";
import { type Harness, incoming, OPEN_BRIDGE, startHarness } from "../support/bridge-harness.ts";
import { journalEntries, journalRuns, recordingReads } from "../support/journal.ts";
import { MemorySurface } from "../support/memory-surface.ts";
import { startTestRedis } from "../support/redis.ts";

const CUT = "\n\n⚠️ answer cut off: interrupted";
const silent = createLogger({ level: "silent", secrets: [] });

/** A surface whose messages a later process can find again (by name and index, in memory). */
class PersistingSurface extends MemorySurface {
  constructor(
    readonly name = "s",
    options: ConstructorParameters<typeof MemorySurface>[0] = {},
  ) {
    super(options);
  }

  persistRef(ref: MessageRef): unknown {
    return { surface: this.name, id: ref };
  }
}

/** A channel that reopens saved messages on these surfaces, as a restarted process would. */
function channelOver(...surfaces: PersistingSurface[]): RecoveryChannel {
  return {
    name: "test",
    reopen: (saved) => {
      const { surface, id } = saved as { surface: string; id: number };
      const found = surfaces.find((s) => s.name === surface);
      return found && { surface: found, ref: id, streaming: false };
    },
  };
}

function bridgeWith(h: Harness, options: Partial<BridgeOptions>): Bridge {
  const bridge = new Bridge({
    backend: h.backend,
    store: h.store,
    log: silent,
    ...OPEN_BRIDGE,
    ...options,
  });
  bridges.push(bridge);
  return bridge;
}

/** Counts the writes a store takes, by kind, for keys of the journal. */
function countWrites(store: Store): { store: Store; writes: string[] } {
  const writes: string[] = [];
  const counted = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (name === "setMany") {
          const keys = (args[0] as { key: string }[]).map((entry) => entry.key.split(":")[1]);
          writes.push(`setMany ${keys.join(" ")}`);
          return value.apply(target, args);
        }
        const key = String(args[0]);
        if (["set", "delete", "claim", "release", "renew"].includes(String(name))) {
          if (key.startsWith("journal:")) writes.push(`${String(name)} ${key.split(":")[1]}`);
        }
        return value.apply(target, args);
      };
    },
  });
  return { store: counted, writes };
}

async function untilJournaled(store: Store, runId: string, withText: boolean) {
  const deadline = performance.now() + 5_000;
  let last = "";
  for (;;) {
    const entries = await journalEntries(store, runId);
    const now = JSON.stringify(entries);
    const ready = entries.some((e) => e.messages.some((m) => (m.markdown !== "") === withText));
    if (ready && now === last) return entries;
    if (performance.now() > deadline) throw new Error(`journal never settled: ${now}`);
    last = now;
    await sleep(60);
  }
}

let harnesses: Harness[] = [];
let bridges: Bridge[] = [];
afterEach(async () => {
  // Answers left hanging on purpose end now, before their store closes.
  for (const h of harnesses) await h.simulator.close();
  for (const bridge of bridges) await bridge.drain(0);
  for (const h of harnesses) await h.close();
  harnesses = [];
  bridges = [];
});

describe("the answer journal (embedded store)", () => {
  it("journals an answer in a handful of writes and keeps nothing once it completes", async () => {
    const h = await startHarness({ simulator: { chunkDelayMs: 10, chunkChars: [4, 10] } });
    harnesses.push(h);
    const { store, writes } = countWrites(h.store);
    const journal = new AnswerJournal({ store, log: silent, updateIntervalMs: 200 });
    const bridge = bridgeWith(h, { store, journal });
    const surface = new PersistingSurface("s", { limits: { minEditIntervalMs: 20 } });
    const started = performance.now();
    await bridge.handle(incoming("hello there"), surface);
    const ms = performance.now() - started;

    expect(surface.messages[0]).not.toContain("⚠️");
    expect(surface.edits).toBeGreaterThan(10);
    expect(await journalEntries(h.store, journal.runId)).toEqual([]);
    const answerWrites = writes.filter((w) => w.endsWith(" answer"));
    // One at the first message, at most one per interval as the text grows, one delete.
    expect(answerWrites.filter((w) => w.startsWith("delete"))).toHaveLength(1);
    expect(answerWrites.filter((w) => w.startsWith("set")).length).toBeLessThanOrEqual(
      1 + Math.ceil(ms / 200),
    );
    // The run lists itself once (under a short lock) and indexes the answer once.
    expect(writes.filter((w) => w === "set run")).toHaveLength(1);
    expect(writes.filter((w) => w === "set runs")).toHaveLength(1);
    await journal.close();
    expect(await journalRuns(h.store)).toEqual([]);
  });

  it("brings the records of answers streaming at once up to date together: one store call a round, not one per answer", async () => {
    const h = await startHarness({ simulator: { chunkDelayMs: 10, chunkChars: [2, 4] } });
    harnesses.push(h);
    const { store, writes } = countWrites(h.store);
    const journal = new AnswerJournal({ store, log: silent, updateIntervalMs: 150 });
    const bridge = bridgeWith(h, { store, journal });
    const surfaces = Array.from({ length: 5 }, () => new PersistingSurface());
    const started = performance.now();
    await Promise.all(
      surfaces.map((surface, i) =>
        bridge.handle(
          incoming(`question number ${i} asks for a long answer please`, { threadKey: `t${i}` }),
          surface,
        ),
      ),
    );
    const rounds = Math.ceil((performance.now() - started) / 150);

    for (const surface of surfaces) expect(surface.messages[0]).not.toContain("⚠️");
    expect(rounds).toBeGreaterThan(2);
    // Each answer's first record is written at once; its growing text only in the rounds.
    expect(writes.filter((w) => w === "set answer")).toHaveLength(5);
    const batched = writes.filter((w) => w.startsWith("setMany"));
    expect(batched.length).toBeGreaterThan(0);
    expect(batched.length).toBeLessThanOrEqual(rounds);
    // Answers that grew during the same round share its write.
    expect(Math.max(...batched.map((w) => w.split(" ").length - 1))).toBeGreaterThan(1);
    expect(writes.filter((w) => w === "delete answer")).toHaveLength(5);
    expect(await journalEntries(h.store, journal.runId)).toEqual([]);
  });

  it("writes a run's index only when more answers than ever are in flight, not per answer", async () => {
    const h = await startHarness({ simulator: { chunkDelayMs: 2 } });
    harnesses.push(h);
    const { store, writes } = countWrites(h.store);
    const journal = new AnswerJournal({ store, log: silent, updateIntervalMs: 20 });
    const bridge = bridgeWith(h, { store, journal });
    for (let i = 0; i < 4; i++) {
      await bridge.handle(
        incoming(`question ${i}`, { threadKey: `t${i}` }),
        new PersistingSurface(),
      );
    }
    await Promise.all(
      [4, 5].map((i) =>
        bridge.handle(incoming(`question ${i}`, { threadKey: `t${i}` }), new PersistingSurface()),
      ),
    );

    expect(writes.filter((w) => w === "delete answer")).toHaveLength(6);
    // One answer at a time, then two at once: the index grew twice.
    expect(writes.filter((w) => w === "set run")).toHaveLength(2);
    expect(await journalEntries(h.store, journal.runId)).toEqual([]);
  });

  it("finishes a dead run's answers: the text it had plus the note, or the note alone", async () => {
    const h = await startHarness({ simulator: { chunkDelayMs: 2 } });
    harnesses.push(h);
    const journal = new AnswerJournal({ store: h.store, log: silent, updateIntervalMs: 20 });
    const bridge = bridgeWith(h, { journal });
    const cut = new PersistingSurface("cut");
    const waiting = new PersistingSurface("waiting");
    void bridge.handle(incoming("stop half-way #stall"), cut);
    await untilJournaled(h.store, journal.runId, true);
    // Before any text: only the placeholder is on screen.
    void bridge.handle(incoming("slow start #delay=10000", { threadKey: "t2" }), waiting);
    await untilJournaled(h.store, journal.runId, false);
    expect(cut.messages[0]).not.toContain("⚠️");
    expect(waiting.messages).toEqual(["…"]);

    // The process "dies" here; the next one finds both answers.
    const reading = recordingReads(h.store);
    const next = new AnswerJournal({ store: reading.store, log: silent });
    const recovered = await next.recover([channelOver(cut, waiting)]);
    const entries = reading.read.filter((e) => e.messages.some((m) => m.markdown !== ""));
    expect(recovered).toBe(2);
    expect(cut.messages).toEqual([`${entries[0]?.messages[0]?.markdown}${CUT}`]);
    expect(waiting.messages).toEqual(["⚠️ interrupted"]);
    expect(await journalRuns(h.store)).not.toContain(journal.runId);
  });
});

describe("the answer journal finishes an answer in its language", () => {
  it("after /language fr, a dead run's answer ends with the French note", async () => {
    const h = await startHarness({ simulator: { chunkDelayMs: 2 } });
    harnesses.push(h);
    const journal = new AnswerJournal({ store: h.store, log: silent, updateIntervalMs: 20 });
    const bridge = bridgeWith(h, { journal });
    const cut = new PersistingSurface("cut");
    await bridge.handle(incoming("/language fr"), cut);
    void bridge.handle(incoming("stop half-way #stall"), cut);
    await untilJournaled(h.store, journal.runId, true);

    const next = new AnswerJournal({ store: h.store, log: silent });
    expect(await next.recover([channelOver(cut)])).toBe(1);
    expect(cut.messages.at(-1)).toMatch(/\n\n⚠️ réponse coupée : interrompue$/);
  });
});

const redis = await startTestRedis("answer journal on Redis");
afterAll(() => redis?.close());

describe.skipIf(!redis)("the answer journal on Redis, several processes", () => {
  it("leaves a live process's answers alone and finishes a dead one's within its lease", async () => {
    const namespace = `${redis?.namespace}-${randomUUID()}`;
    const open = () => openRedisStore({ url: redis?.url ?? "", namespace });
    const simulator = await startSimulator({ chunkDelayMs: 2 });
    const storeA = await open();
    const storeB = await open();
    const journalA = new AnswerJournal({
      store: storeA,
      log: silent,
      updateIntervalMs: 20,
      leaseMs: 300,
    });
    const a = await startHarness({ store: storeA, simulatorInstance: simulator, bridge: {} });
    const bridgeA = bridgeWith(a, { journal: journalA });
    const surface = new PersistingSurface();
    void bridgeA.handle(incoming("stop half-way #stall"), surface);
    await untilJournaled(storeB, journalA.runId, true);

    const reading = recordingReads(storeB);
    const journalB = new AnswerJournal({
      store: reading.store,
      log: silent,
      leaseMs: 300,
      sweepIntervalMs: 50,
    });
    // A is alive (its lease is renewed): B does not touch its answer.
    expect(await journalB.recover([channelOver(surface)])).toBe(0);
    const sweeps = journalB.recovery([channelOver(surface)]);
    sweeps.start();
    await sleep(600);
    expect(surface.messages[0]).not.toContain("⚠️");

    // A dies: its connection to Redis is gone, its lease lapses, B's sweep finishes the answer.
    await storeA.close();
    const deadline = performance.now() + 3_000;
    while (!surface.messages[0]?.endsWith(CUT) && performance.now() < deadline) await sleep(20);
    await sweeps.stop();
    const [entry] = reading.read;
    expect(surface.messages).toEqual([`${entry?.messages[0]?.markdown}${CUT}`]);
    expect(entry?.messages[0]?.markdown).not.toBe("");
    expect(await journalRuns(storeB)).not.toContain(journalA.runId);

    await simulator.close();
    await bridgeA.drain(0);
    await a.close();
    await journalB.close();
    await storeB.close();
  });
});
