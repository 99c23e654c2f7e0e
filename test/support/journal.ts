import { setTimeout as sleep } from "node:timers/promises";
import {
  entryKey,
  indexKey,
  type JournalEntry,
  RUNS_KEY,
  readIds,
} from "../../src/journal/entry.ts";
import type { Store } from "../../src/store/types.ts";

/** The records a run keeps in the journal now (its answers in flight). */
export async function journalEntries(store: Store, runId: string): Promise<JournalEntry[]> {
  const ids = readIds(await store.get(indexKey(runId)));
  const values = await store.getMany<JournalEntry>(ids.map(entryKey));
  return values.filter((value): value is JournalEntry => value !== undefined);
}

/**
 * Waits until `count` answers of the run are journaled with text and their records stayed
 * the same for `quietMs`: longer than the slowest edit interval of the answers, or an edit
 * still to come (text the backend sent before it went silent) would be missed. Returns them.
 */
export async function settledJournal(
  store: Store,
  runId: string,
  options: { count: number; quietMs: number },
): Promise<JournalEntry[]> {
  const deadline = performance.now() + 10_000;
  let last = "";
  let since = performance.now();
  for (;;) {
    const entries = await journalEntries(store, runId);
    const now = JSON.stringify(entries);
    if (now !== last) {
      last = now;
      since = performance.now();
    }
    const withText = entries.filter((e) => e.messages.some((m) => m.markdown !== ""));
    if (withText.length === options.count && performance.now() - since >= options.quietMs) {
      return entries;
    }
    if (performance.now() > deadline) throw new Error(`journal never settled: ${now}`);
    await sleep(25);
  }
}

/** The runs listed in the journal. */
export async function journalRuns(store: Store): Promise<string[]> {
  return readIds(await store.get(RUNS_KEY));
}

/**
 * The store as a recovering process uses it, keeping every journal record it reads: what
 * the recovery finished answers from, exactly.
 */
export function recordingReads(store: Store): {
  store: Store;
  read: JournalEntry[];
} {
  const read: JournalEntry[] = [];
  const getMany = async <T>(keys: readonly string[]): Promise<(T | undefined)[]> => {
    const values = await store.getMany<T>(keys);
    keys.forEach((key, i) => {
      if (key.startsWith(entryKey(""))) read.push(values[i] as JournalEntry);
    });
    return values;
  };
  const wrapped: Store = {
    sharedAcrossProcesses: store.sharedAcrossProcesses,
    get: (key) => store.get(key),
    getMany,
    set: (key, value, ttlMs) => store.set(key, value, ttlMs),
    setMany: (entries) => store.setMany(entries),
    delete: (key) => store.delete(key),
    claim: (key, owner, ttlMs) => store.claim(key, owner, ttlMs),
    renew: (key, owner, ttlMs) => store.renew(key, owner, ttlMs),
    release: (key, owner) => store.release(key, owner),
    addToSet: (key, member, ttlMs) => store.addToSet(key, member, ttlMs),
    removeFromSet: (key, member) => store.removeFromSet(key, member),
    setMembers: (key) => store.setMembers(key),
    putInMap: (key, field, value, ttlMs) => store.putInMap(key, field, value, ttlMs),
    mapEntries: (key) => store.mapEntries(key),
    takeTicket: (key, owner, hold) => store.takeTicket(key, owner, hold),
    checkTicket: (key, ticket, owner, hold) => store.checkTicket(key, ticket, owner, hold),
    giveBackTicket: (key, ticket, owner) => store.giveBackTicket(key, ticket, owner),
    drawToken: (key, bucket, options) => store.drawToken(key, bucket, options),
    drawWindow: (key, window, options) => store.drawWindow(key, window, options),
    streamAdd: (key, value, maxWaiting) => store.streamAdd(key, value, maxWaiting),
    streamTake: (key, consumer, count) => store.streamTake(key, consumer, count),
    streamTakeOver: (key, consumer, minIdleMs, count) =>
      store.streamTakeOver(key, consumer, minIdleMs, count),
    streamHold: (key, consumer, ids) => store.streamHold(key, consumer, ids),
    streamFinish: (key, consumer, id) => store.streamFinish(key, consumer, id),
    streamWaiting: (key) => store.streamWaiting(key),
    streamPlaces: (key) => store.streamPlaces(key),
    streamWatch: (key, onAdd) => store.streamWatch(key, onAdd),
    ping: () => store.ping(),
    close: () => store.close(),
  };
  return { store: wrapped, read };
}
