import { setTimeout as sleep } from "node:timers/promises";
import { Renewal } from "../coordination/lease.ts";
import type { Coordination } from "../coordination/port.ts";
import { ProcessPresence } from "../coordination/process-presence.ts";
import { storeFailureLevel } from "../errors.ts";
import type { CatalogLanguage } from "../i18n/languages.ts";
import type { Logger } from "../log.ts";
import type { KeyValueStore } from "../store/types.ts";
import {
  entryKey,
  indexKey,
  type JournalEntry,
  RUNS_KEY,
  RUNS_LOCK_KEY,
  readEntry,
  readIds,
  recoveringKey,
} from "./entry.ts";
import { finishInterrupted, type RecoveryChannel } from "./finish-interrupted.ts";
import { JournaledAnswer } from "./journaled-answer.ts";

export interface AnswerJournalOptions {
  store: KeyValueStore & Coordination;
  log: Logger;
  /**
   * This process (process-presence.ts): its id is the run's, its lease the run's sign of
   * life. Default: a presence of the journal's own, with `leaseMs`, closed by close().
   */
  presence?: ProcessPresence;
  /** How often the records of answers whose text only grew are brought up to date, together. */
  updateIntervalMs?: number;
  /** The lease of the journal's own presence, when it is given none (TAKEOVER_MS). */
  leaseMs?: number;
  /** Redis: how often to look for processes that died (default a third of the presence's lease). */
  sweepIntervalMs?: number;
  /** How long a record outlives a process that never came back to it. */
  ttlMs?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
// A few seconds of text may be missing after a kill: the recovery note says it was cut.
const UPDATE_INTERVAL_MS = 3_000;
const LOCK_MS = 5_000;
// Long enough for a few hundred answers to be finished under the platforms' rate limits.
const RECOVERY_CLAIM_MS = 5 * 60_000;
const RECOVERY_CONCURRENCY = 8;

/**
 * The journal of answers in flight, so that an answer left mid-stream by a kill is finished
 * by the next process: its message shows the text it had and a note that it was interrupted.
 *
 * Each answer whose surface can persist its refs keeps one record (JournaledAnswer, fed by the
 * reply engine's message events) from its first message until it is over. The process lists its answers in its own index key and,
 * with its first record, lists itself in `journal:runs`, so a later process finds every
 * record without listing keys. A run is a process: its id is the process's id, and on Redis,
 * where processes run side by side, only runs whose process's presence has lapsed are
 * finished. The embedded store belongs to one process at a time, so every other run found
 * there is a dead one.
 *
 * Cost per answer: one write when its first message is posted, one when a message is added
 * or its ref changes, and one delete at the end. While texts grow, one write every
 * `updateIntervalMs` brings every answer's record up to date together. The run's index is
 * written only when more answers than ever before are in flight.
 */
export class AnswerJournal {
  readonly runId: string;
  readonly #store: KeyValueStore & Coordination;
  readonly #log: Logger;
  readonly #updateIntervalMs: number;
  readonly #sweepIntervalMs: number;
  readonly #ttlMs: number;
  /** Whether other live processes may share the store (Redis). */
  readonly #shared: boolean;
  /**
   * Each answer in flight has a slot, and its record the id `<run>:<slot>`; a slot is used
   * again once its answer's record is gone, so the run's index (every slot's id) only grows
   * with the most answers this process ever had at once, and is rarely written.
   */
  #slots = 0;
  readonly #freeSlots: number[] = [];
  /** Answers whose text grew since their record was written: the next round writes them. */
  readonly #due = new Set<JournaledAnswer>();
  /** The next round's timer, while some answer is due. */
  #round: NodeJS.Timeout | undefined;
  /** Answers with a record in the store. */
  readonly #active = new Set<string>();
  /**
   * Records of answers that ended while the store was away, by id, with their slot: removed
   * once it answers again, before any other process could take this one for dead.
   */
  readonly #leftBehind = new Map<string, number>();
  /**
   * Since when (performance.now()) this process's sweeps have found the store answering,
   * without a failure since; undefined before the first, and after a failure.
   */
  #reachableSince: number | undefined;
  /** The channels recovery() was given: those a stopped answer of another process ends on. */
  #channels: readonly RecoveryChannel[] = [];
  /** How many slots the index in the store lists (as last written). */
  #indexed = 0;
  #indexWrite: Promise<void> | undefined;
  #registration: Promise<void> | undefined;
  /** This process: on Redis, a run whose process's presence lapsed counts as dead. */
  readonly #presence: ProcessPresence;
  /** The presence is the journal's own (none was given): close() closes it. */
  readonly #ownPresence: boolean;
  /** Stops hearing of the presence's lapses. */
  #unlisten: (() => void) | undefined;
  #closed = false;

  constructor(options: AnswerJournalOptions) {
    this.#presence =
      options.presence ??
      new ProcessPresence({ store: options.store, log: options.log, leaseMs: options.leaseMs });
    this.#ownPresence = options.presence === undefined;
    this.runId = this.#presence.id;
    this.#store = options.store;
    this.#log = options.log.child({ component: "journal" });
    this.#updateIntervalMs = options.updateIntervalMs ?? UPDATE_INTERVAL_MS;
    // The presence's renewals' length: both go on one timer (Renewal, shared).
    this.#sweepIntervalMs = options.sweepIntervalMs ?? this.#presence.leaseMs / 3;
    this.#ttlMs = options.ttlMs ?? DAY_MS;
    this.#shared = options.store.sharedAcrossProcesses;
  }

  /**
   * Starts the record of one answer in `channel` (on a surface that can persist its refs):
   * the answer's writer tells it of every message, and the answer closes it when it is over.
   */
  track(channel: string, language: CatalogLanguage): JournaledAnswer | undefined {
    if (this.#closed) return undefined;
    const slot = this.#freeSlots.pop() ?? this.#slots++;
    const id = `${this.runId}:${slot}`;
    return new JournaledAnswer(id, channel, language, {
      log: this.#log,
      due: (answer) => {
        this.#due.add(answer);
        this.#round ??= setTimeout(() => this.#writeDue(), this.#updateIntervalMs);
      },
      save: async (entry) => {
        this.#active.add(id);
        await Promise.all([
          this.#store.set(entryKey(id), entry, this.#ttlMs),
          this.#ensureIndexed(slot),
        ]);
      },
      remove: async () => {
        this.#active.delete(id);
        this.#leftBehind.set(id, slot);
        await this.#removeLeftBehind().catch((error: unknown) =>
          this.#log[storeFailureLevel(error)](
            { err: error },
            "a finished answer stays in the journal until the store answers again",
          ),
        );
      },
      closed: () => this.#freeSlots.push(slot),
    });
  }

  /**
   * One round: the records of every answer whose text grew, in one store call, however many
   * answers stream at once (a write per answer would cost a round trip each, every interval).
   */
  #writeDue(): void {
    this.#round = undefined;
    const batch: { answer: JournaledAnswer; entry: JournalEntry }[] = [];
    for (const answer of this.#due) {
      const entry = answer.takeEntry();
      if (entry) batch.push({ answer, entry });
    }
    this.#due.clear();
    if (batch.length === 0) return;
    const write = this.#store.setMany(
      batch.map(({ answer, entry }) => ({
        key: entryKey(answer.id),
        value: entry,
        ttlMs: this.#ttlMs,
      })),
    );
    for (const { answer } of batch) answer.writing(write);
  }

  /**
   * Finishes the answers of every dead run once: each message left mid-stream gets the text
   * last journaled and the interrupted note. Resolves with the number of answers finished.
   */
  async recover(channels: readonly RecoveryChannel[]): Promise<number> {
    let runs: string[];
    try {
      await this.#removeLeftBehind();
      runs = readIds(await this.#store.get(RUNS_KEY)).filter((run) => run !== this.runId);
    } catch (error) {
      this.#reachableSince = undefined;
      throw error;
    }
    this.#reachableSince ??= performance.now();
    if (runs.length === 0) return 0;
    if (this.#shared) {
      // A presence lapses while the store is away whether its process lives or not; a live
      // one is taken again within a third of its lease once the store is back. So a lapsed
      // presence means a dead process only once this one has reached the store for a whole
      // lease and a renewal.
      const { leaseMs } = this.#presence;
      if (performance.now() - this.#reachableSince < leaseMs + leaseMs / 3) return 0;
    }
    const alive = await this.#presence.alive(runs);
    const dead = runs.filter((_, i) => !alive[i]);
    let finished = 0;
    for (const run of dead) finished += await this.#recoverRun(run, channels);
    return finished;
  }

  /**
   * A background job that recovers at once and then, on Redis, every few seconds, so a
   * process that dies while others run has its answers finished by them.
   */
  recovery(channels: readonly RecoveryChannel[]): { start(): void; stop(): Promise<void> } {
    this.#channels = channels;
    let rounds: Renewal | undefined;
    let first: Promise<void> | undefined;
    let stopped = false;
    const sweep = (log: "always" | "when some") =>
      this.recover(channels).then(
        (answers) => {
          if (log === "always" || answers > 0) {
            this.#log.info({ answers }, "interrupted answers finished");
          }
        },
        (error: unknown) =>
          this.#log[storeFailureLevel(error)](
            { err: error },
            "could not finish interrupted answers; will retry",
          ),
      );
    return {
      start: () => {
        first = sweep("always").finally(() => {
          if (!stopped && this.#shared) {
            rounds = new Renewal(() => sweep("when some"), this.#sweepIntervalMs, {
              shared: true,
            });
          }
        });
      },
      stop: async () => {
        stopped = true;
        await first;
        await rounds?.stop();
      },
    };
  }

  /**
   * Ends the answer recorded as `id` (JournaledAnswer.id) of another process that did not take
   * a person's stop (it was killed): its messages show the text last journaled and the stopped
   * note, and its record goes. False when there is no such record (nothing was on screen yet,
   * or its process ended it meanwhile).
   */
  async finishStopped(id: string, by: string | undefined): Promise<boolean> {
    // Before the channels run (recovery() not started yet) the record is left for recovery.
    if (this.#channels.length === 0) return false;
    const entry = readEntry(await this.#store.get(entryKey(id)));
    if (!entry) return false;
    await finishInterrupted(entry, this.#channels, this.#log, { kind: "stopped", by });
    await this.#store.delete(entryKey(id)).catch(() => false);
    return true;
  }

  /**
   * Leaves the journal after the answers are over: the run's index and its place in
   * `journal:runs` go. Records still open stay for the next process to finish.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#round);
    this.#unlisten?.();
    try {
      await this.#leave();
    } finally {
      // Its own presence: what is left in the journal is a dead run's for the next process.
      if (this.#ownPresence) await this.#presence.close();
    }
  }

  async #leave(): Promise<void> {
    // A run that never journaled an answer never listed itself.
    if (!this.#registration) return;
    try {
      await this.#registration;
      await this.#indexWrite?.catch(() => undefined);
      if (this.#active.size === 0) {
        await this.#store.delete(indexKey(this.runId));
        await this.#changeRuns((runs) => runs.filter((run) => run !== this.runId));
      } else {
        this.#log.warn(
          { answers: this.#active.size },
          "answers left in the journal for next start",
        );
      }
    } catch (error) {
      this.#log.warn({ err: error }, "could not leave the answer journal");
    }
  }

  /** Removes the records of answers that ended while the store was away, and frees their slots. */
  async #removeLeftBehind(): Promise<void> {
    for (const [id, slot] of [...this.#leftBehind]) {
      // Taken out first: a sweep and an answer's end may run this at the same time.
      if (!this.#leftBehind.delete(id)) continue;
      try {
        // The index keeps the id: a missing record is skipped.
        await this.#store.delete(entryKey(id));
      } catch (error) {
        this.#leftBehind.set(id, slot);
        throw error;
      }
      this.#freeSlots.push(slot);
    }
  }

  /** Joins the presence (Redis) and lists the run; once, or again after a failure. */
  #registered(): Promise<void> {
    this.#registration ??= this.#register().catch((error: unknown) => {
      this.#registration = undefined;
      throw error;
    });
    return this.#registration;
  }

  async #register(): Promise<void> {
    // The presence before the listing: a listed run without one counts as dead.
    await this.#presence.join();
    this.#unlisten ??= this.#presence.onLost(async () => {
      // The presence lapsed (the store was away): another process may have taken this run
      // for dead and removed it. The presence is back: list the run and its answers again.
      if (this.#closed) return;
      this.#log.info("the presence is back: listing this run and its answers again");
      this.#registration = undefined;
      this.#indexed = 0;
      await this.#registered();
    });
    await this.#changeRuns((runs) => (runs.includes(this.runId) ? runs : [...runs, this.runId]));
  }

  /** Resolves once the index in the store lists `slot`. Answers starting together share a write. */
  async #ensureIndexed(slot: number): Promise<void> {
    await this.#registered();
    while (this.#indexed <= slot) {
      if (!this.#indexWrite) {
        const slots = this.#slots;
        const ids = Array.from({ length: slots }, (_, i) => `${this.runId}:${i}`);
        const write = (async () => {
          try {
            await this.#store.set(indexKey(this.runId), ids, this.#ttlMs);
            this.#indexed = Math.max(this.#indexed, slots);
          } finally {
            this.#indexWrite = undefined;
          }
        })();
        this.#indexWrite = write;
      }
      await this.#indexWrite;
    }
  }

  /** Changes `journal:runs` under a short lock: processes starting together all stay listed. */
  async #changeRuns(change: (runs: string[]) => string[]): Promise<void> {
    const deadline = performance.now() + LOCK_MS + 1_000;
    while (!(await this.#store.claim(RUNS_LOCK_KEY, this.runId, LOCK_MS))) {
      if (performance.now() > deadline) throw new Error("journal:runs stayed locked");
      await sleep(10 + Math.random() * 40);
    }
    try {
      const runs = readIds(await this.#store.get(RUNS_KEY));
      await this.#store.set(RUNS_KEY, change(runs));
    } finally {
      await this.#store.release(RUNS_LOCK_KEY, this.runId);
    }
  }

  async #recoverRun(run: string, channels: readonly RecoveryChannel[]): Promise<number> {
    const claim = recoveringKey(run);
    // Another live process may be finishing this run right now.
    if (!(await this.#store.claim(claim, this.runId, RECOVERY_CLAIM_MS))) return 0;
    try {
      const ids = readIds(await this.#store.get(indexKey(run)));
      const values = ids.length > 0 ? await this.#store.getMany(ids.map(entryKey)) : [];
      const found: { id: string; entry: JournalEntry }[] = [];
      values.forEach((value, i) => {
        const entry = readEntry(value);
        const id = ids[i];
        if (entry && id !== undefined) found.push({ id, entry });
      });
      let next = 0;
      const worker = async () => {
        for (let item = found[next++]; item; item = found[next++]) {
          await finishInterrupted(item.entry, channels, this.#log);
          // Left behind, it expires; the run's index goes below all the same.
          await this.#store.delete(entryKey(item.id)).catch(() => false);
        }
      };
      await Promise.all(Array.from({ length: RECOVERY_CONCURRENCY }, worker));
      await this.#store.delete(indexKey(run));
      await this.#changeRuns((runs) => runs.filter((r) => r !== run));
      return found.length;
    } finally {
      await this.#store.release(claim, this.runId).catch(() => undefined);
    }
  }
}
