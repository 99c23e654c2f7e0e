import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Bridge } from "../../src/bridge/bridge.ts";
import { ProcessPresence, presenceKey } from "../../src/coordination/process-presence.ts";
import { AnswerJournal } from "../../src/journal/answer-journal.ts";
import type { RecoveryChannel } from "../../src/journal/finish-interrupted.ts";
import { createLogger, type Logger } from "../../src/log.ts";
import type { MessageRef } from "../../src/ports.ts";
import { startSimulator } from "../../src/simulator/index.ts";
import { interceptStore } from "../../src/store/instrumented-store.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import type { Store } from "../../src/store/types.ts";
import {
  type Harness,
  incoming,
  OPEN_BRIDGE,
  startBridge,
  startHarness,
  type TestBridgeOptions,
} from "../support/bridge-harness.ts";
import { journalEntries, journalRuns, recordingReads } from "../support/journal.ts";
import { capturingLog } from "../support/log-lines.ts";
import { MemorySurface } from "../support/memory-surface.ts";
import { startTestRedis } from "../support/redis.ts";
import { until } from "../support/run-bot.ts";

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

/** A journal as a process keeps it: its run is the process's presence. */
function journalOf(
  store: Store,
  options: {
    updateIntervalMs?: number;
    leaseMs?: number;
    sweepIntervalMs?: number;
    log?: Logger;
  } = {},
): AnswerJournal {
  const presence = new ProcessPresence({ store, log: silent, leaseMs: options.leaseMs });
  presences.push(presence);
  const journal = new AnswerJournal({
    store,
    log: options.log ?? silent,
    presence,
    updateIntervalMs: options.updateIntervalMs ?? 1_000,
    ...(options.sweepIntervalMs !== undefined && { sweepIntervalMs: options.sweepIntervalMs }),
  });
  presenceOf.set(journal, presence);
  return journal;
}

const presenceOf = new WeakMap<AnswerJournal, ProcessPresence>();

async function bridgeWith(
  h: Harness,
  options: Partial<TestBridgeOptions> & { journal: AnswerJournal },
): Promise<Bridge> {
  const bridge = await startBridge({
    backend: h.backend,
    store: h.store,
    log: silent,
    ...OPEN_BRIDGE,
    ...options,
    presence: presenceOf.get(options.journal),
  });
  bridges.push(bridge);
  return bridge;
}

/** Counts the journal's writes a store takes: each map update (fields put, removed), and the runs. */
function countWrites(store: Store): { store: Store; writes: string[] } {
  const writes: string[] = [];
  const counted = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const key = String(args[0]);
        if (name === "updateMap" && key.startsWith("journal:")) {
          const put = Object.keys(args[1] as object).length;
          writes.push(`update ${put} ${(args[2] as string[]).length}`);
        } else if (name === "addToSet" || name === "removeFromSet") {
          if (key.startsWith("journal:")) writes.push(`${String(name)} runs`);
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
let presences: ProcessPresence[] = [];
afterEach(async () => {
  // Answers left hanging on purpose end now, before their store closes.
  for (const h of harnesses) await h.simulator.close();
  for (const bridge of bridges) await bridge.drain(0);
  for (const presence of presences) await presence.close();
  for (const h of harnesses) await h.close();
  harnesses = [];
  bridges = [];
  presences = [];
});

describe("the answer journal (embedded store)", () => {
  it("journals an answer in a handful of writes and keeps nothing once it completes", async () => {
    const h = await startHarness({ simulator: { chunkDelayMs: 5, chunkChars: [4, 10] } });
    harnesses.push(h);
    const { store, writes } = countWrites(h.store);
    const journal = journalOf(store, { updateIntervalMs: 100 });
    const bridge = await bridgeWith(h, { store, journal });
    const surface = new PersistingSurface("s", { limits: { minEditIntervalMs: 20 } });
    const started = performance.now();
    await bridge.handle(incoming("hello there"), surface);
    const ms = performance.now() - started;

    expect(surface.messages[0]).not.toContain("⚠️");
    expect(surface.edits).toBeGreaterThan(10);
    expect(await journalEntries(h.store, journal.runId)).toEqual([]);
    // One at the first message, at most one per interval as the text grows, one removal.
    expect(writes.filter((w) => w === "update 0 1")).toHaveLength(1);
    const puts = writes.filter((w) => w.startsWith("update 1"));
    expect(puts.length).toBeGreaterThan(1);
    expect(puts.length).toBeLessThanOrEqual(1 + Math.ceil(ms / 100));
    // The run lists itself once.
    expect(writes.filter((w) => w === "addToSet runs")).toHaveLength(1);
    await journal.close();
    expect(await journalRuns(h.store)).toEqual([]);
  });

  it("brings the records of answers streaming at once up to date together: one store call a round, not one per answer", async () => {
    const h = await startHarness({ simulator: { chunkDelayMs: 4, chunkChars: [2, 4] } });
    harnesses.push(h);
    const { store, writes } = countWrites(h.store);
    const journal = journalOf(store, { updateIntervalMs: 60 });
    const bridge = await bridgeWith(h, { store, journal });
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
    const rounds = Math.ceil((performance.now() - started) / 60);

    for (const surface of surfaces) expect(surface.messages[0]).not.toContain("⚠️");
    expect(rounds).toBeGreaterThan(2);
    // Each answer's first record is written at once, its final text before it goes, and its
    // end; its growing text in rounds.
    expect(writes.filter((w) => w === "update 0 1")).toHaveLength(5);
    const rounded = writes.filter((w) => /^update [2-5] 0$/.test(w));
    // Answers that grew during the same round share its write.
    expect(rounded.length).toBeGreaterThan(0);
    const puts = writes.filter((w) => /^update [1-5] 0$/.test(w));
    expect(puts.length).toBeLessThanOrEqual(5 + rounds + 5);
    expect(await journalEntries(h.store, journal.runId)).toEqual([]);
    expect(writes.filter((w) => w === "addToSet runs")).toHaveLength(1);
  });

  it("keeps a record never more than one edit behind what its message shows", async () => {
    const h = await startHarness({ simulator: { chunkDelayMs: 15, chunkChars: [3, 6] } });
    harnesses.push(h);
    const EDIT_MS = 60;
    const journal = journalOf(h.store, { updateIntervalMs: EDIT_MS });
    const bridge = await bridgeWith(h, { journal });
    const surface = new PersistingSurface("s", { limits: { minEditIntervalMs: EDIT_MS } });
    const answering = bridge.handle(incoming("a long answer please, long long long"), surface);
    let done = false;
    void answering.then(() => {
      done = true;
    });
    /** What the message showed, and when. */
    const shown: { at: number; text: string }[] = [];
    let checked = 0;
    while (!done) {
      shown.push({ at: performance.now(), text: surface.messages[0] ?? "" });
      const [record] = await journalEntries(h.store, journal.runId);
      const journaled = record?.messages[0]?.markdown;
      // What it showed one edit interval before now (and a round's write, and what a busy
      // machine adds to both) is in the record; rounds slower than the edits lag by seconds.
      const before = shown.filter((s) => s.at <= performance.now() - 4 * EDIT_MS).at(-1);
      if (journaled !== undefined && before && !done) {
        expect(journaled.length).toBeGreaterThanOrEqual(before.text.length);
        checked += 1;
      }
      await sleep(EDIT_MS / 3);
    }
    expect(checked).toBeGreaterThan(3);
  });

  it("finishes a dead run's answers: the text it had plus the note, or the note alone", async () => {
    const h = await startHarness({ simulator: { chunkDelayMs: 2 } });
    harnesses.push(h);
    const journal = journalOf(h.store, { updateIntervalMs: 20 });
    const bridge = await bridgeWith(h, { journal });
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
    const next = journalOf(reading.store);
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
    const journal = journalOf(h.store, { updateIntervalMs: 20 });
    const bridge = await bridgeWith(h, { journal });
    const cut = new PersistingSurface("cut");
    await bridge.handle(incoming("/language fr"), cut);
    void bridge.handle(incoming("stop half-way #stall"), cut);
    await untilJournaled(h.store, journal.runId, true);

    const next = journalOf(h.store);
    expect(await next.recover([channelOver(cut)])).toBe(1);
    expect(cut.messages.at(-1)).toMatch(/\n\n⚠️ réponse coupée : interrompue$/);
  });
});

const redis = await startTestRedis("answer journal on Redis");
afterAll(() => redis?.close());

describe.skipIf(!redis)("the answer journal on Redis, several processes", () => {
  it("alone, reads the runs only now and then, and hears of a run listed: a dead one's answer is finished within its lease", async () => {
    const namespace = `${redis?.namespace}-${randomUUID()}`;
    const open = () => openRedisStore({ url: redis?.url ?? "", namespace });
    const simulator = await startSimulator({ chunkDelayMs: 2 });
    const calls = { setMembers: 0, renewals: 0 };
    const storeB = interceptStore(await open(), (operation, run) => {
      if (operation === "setMembers") calls.setMembers++;
      if (operation === "extend" || operation === "renew") calls.renewals++;
      return run();
    });
    // A lease of 1.5 s: B alone would read the runs once a lease if it did not hear listings.
    const { log, lines: checks } = capturingLog();
    const journalB = journalOf(storeB, { leaseMs: 1_500, sweepIntervalMs: 50, log });
    await presenceOf.get(journalB)?.join();
    const surface = new PersistingSurface();
    const sweeps = journalB.recovery([channelOver(surface)]);
    sweeps.start();
    // Read at its start and once it hears listings; then, over five renewals of its presence
    // (every half second, with sweeps twenty a second all along), not again.
    const afterRenewal = async (n: number) => {
      const renewals = calls.renewals;
      await until(`${n} renewals`, () => (calls.renewals >= renewals + n ? true : undefined));
    };
    await afterRenewal(1);
    const reads = calls.setMembers;
    expect(reads).toBeGreaterThan(0);
    await afterRenewal(5);
    expect(calls.setMembers).toBe(reads);

    // A answers and is listed; B hears of it and looks at once, not a lease later.
    const storeA = await open();
    const journalA = journalOf(storeA, { updateIntervalMs: 20, leaseMs: 300 });
    const a = await startHarness({ store: storeA, simulatorInstance: simulator, bridge: {} });
    const bridgeA = await bridgeWith(a, { journal: journalA });
    void bridgeA.handle(incoming("stop half-way #stall"), surface);
    await untilJournaled(storeB, journalA.runId, true);
    const checked = await until(
      "B's sweep that found A's run",
      () => checks.find((l) => l.msg === "journal runs checked"),
      1_000,
    );
    expect(checked).toMatchObject({ runs: 1, dead: 0 });

    // A dies: B's sweeps, no longer alone, finish its answer within A's lease.
    await presenceOf.get(journalA)?.close();
    await storeA.claim(presenceKey(journalA.runId), journalA.runId, 300);
    await storeA.close();
    await until(
      "A's answer finished",
      () => surface.messages[0]?.endsWith(CUT) || undefined,
      2_000,
    );
    await sweeps.stop();

    await simulator.close();
    await bridgeA.drain(0);
    await a.close();
    await journalB.close();
    await storeB.close();
  });

  it("leaves a live process's answers alone and finishes a dead one's within its lease", async () => {
    const namespace = `${redis?.namespace}-${randomUUID()}`;
    const open = () => openRedisStore({ url: redis?.url ?? "", namespace });
    const simulator = await startSimulator({ chunkDelayMs: 2 });
    const storeA = await open();
    const storeB = await open();
    const journalA = journalOf(storeA, { updateIntervalMs: 20, leaseMs: 300 });
    const a = await startHarness({ store: storeA, simulatorInstance: simulator, bridge: {} });
    const bridgeA = await bridgeWith(a, { journal: journalA });
    const surface = new PersistingSurface();
    void bridgeA.handle(incoming("stop half-way #stall"), surface);
    await untilJournaled(storeB, journalA.runId, true);

    const reading = recordingReads(storeB);
    const { log, lines: checks } = capturingLog();
    const journalB = journalOf(reading.store, { leaseMs: 300, sweepIntervalMs: 50, log });
    // A is alive (its lease is renewed): B does not touch its answer, though its sweep looked
    // at A's run (once B has reached the store for a lease and a renewal).
    expect(await journalB.recover([channelOver(surface)])).toBe(0);
    const sweeps = journalB.recovery([channelOver(surface)]);
    sweeps.start();
    const checked = await until("a sweep that checked the runs", () =>
      checks.find((l) => l.msg === "journal runs checked"),
    );
    expect(checked).toMatchObject({ runs: 1, dead: 0 });
    expect(surface.messages[0]).not.toContain("⚠️");

    // A dies: its connection to Redis is gone, its lease lapses, B's sweep finishes the answer.
    await presenceOf.get(journalA)?.close();
    await storeA.claim(presenceKey(journalA.runId), journalA.runId, 300);
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
