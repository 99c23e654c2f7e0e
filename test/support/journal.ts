import { setTimeout as sleep } from "node:timers/promises";
import { ProcessPresence } from "../../src/coordination/process-presence.ts";
import { AnswerJournal } from "../../src/journal/answer-journal.ts";
import { type JournalEntry, RUNS_KEY, readEntry, runKey } from "../../src/journal/entry.ts";
import { createLogger } from "../../src/log.ts";
import { interceptStore } from "../../src/store/instrumented-store.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { Store } from "../../src/store/types.ts";

/** The records a run keeps in the journal now (its answers in flight), by their place. */
export async function journalEntries(store: Store, runId: string): Promise<JournalEntry[]> {
  const records = await store.mapEntries(runKey(runId));
  return Object.keys(records)
    .sort((a, b) => Number(a) - Number(b))
    .map((field) => readEntry(records[field]))
    .filter((entry): entry is JournalEntry => entry !== undefined);
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
  return store.setMembers(RUNS_KEY);
}

/**
 * Every record left in the journal on the Redis at `storeUrl`, of every run: the answers a
 * process would finish as interrupted once their process is dead. Opens a store of its own.
 */
export async function journalLeft(storeUrl: string): Promise<JournalEntry[]> {
  const store = await openStore({ storeUrl, dataDir: "" });
  try {
    const runs = await journalRuns(store);
    return (await Promise.all(runs.map((run) => journalEntries(store, run)))).flat();
  } finally {
    await store.close();
  }
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
  const wrapped = interceptStore(store, async (operation, run) => {
    const value = await run();
    if (operation === "mapEntries") {
      for (const record of Object.values(value as Record<string, unknown>)) {
        const entry = readEntry(record);
        if (entry) read.push(entry);
      }
    }
    return value;
  });
  return { store: wrapped, read };
}

/**
 * A journal as a process keeps one, on a presence of its own (a process of its own: the
 * journal of a later start, or of another process).
 */
export function testJournal(
  store: Store,
  options: { updateIntervalMs?: number; leaseMs?: number } = {},
): AnswerJournal {
  const log = createLogger({ level: "silent", secrets: [] });
  const presence = new ProcessPresence({ store, log, leaseMs: options.leaseMs });
  return new AnswerJournal({
    store,
    log,
    presence,
    updateIntervalMs: options.updateIntervalMs ?? 1_000,
  });
}
