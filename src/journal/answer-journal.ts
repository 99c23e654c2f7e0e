import { Renewal } from "../coordination/lease.ts";
import type { Coordination } from "../coordination/port.ts";
import type { ProcessPresence } from "../coordination/process-presence.ts";
import { storeFailureLevel } from "../errors.ts";
import type { CatalogLanguage } from "../i18n/languages.ts";
import type { Logger } from "../log.ts";
import type { KeyValueStore } from "../store/types.ts";
import {
  type JournalEntry,
  RUN_LISTED_TOPIC,
  RUNS_KEY,
  readEntry,
  recoveringKey,
  runKey,
} from "./entry.ts";
import { finishInterrupted, type RecoveryChannel } from "./finish-interrupted.ts";
import { JournaledAnswer } from "./journaled-answer.ts";

export interface AnswerJournalOptions {
  store: KeyValueStore & Coordination;
  log: Logger;
  /** This process: its id is the run's; a run is dead once its process is (ProcessPresence.alive). */
  presence: ProcessPresence;
  /**
   * How often the records of answers whose text only grew are brought up to date, together:
   * the platforms' fastest edit pace, so a record is never more than one edit behind.
   */
  updateIntervalMs: number;
  /** How often to look for processes that died (default a third of the presence's lease). */
  sweepIntervalMs?: number;
}

/**
 * A process alone that hears of every run listed reads the set this many leases apart, for a
 * listing it did not hear of (its subscription was down meanwhile): the answers of a run that
 * appeared and died unheard are finished that much later, never lost.
 */
const ALONE_RECHECK_LEASES = 6;

// Long enough for a few hundred answers to be finished under the platforms' rate limits.
const RECOVERY_CLAIM_MS = 5 * 60_000;
const RECOVERY_CONCURRENCY = 8;

/** Where a stop looks for an answer a killed process left (AnswerStops' takeOver). */
export type StoppedAnswer = { threadKey: string } | { answerId: string; channelKey: string };

/**
 * The journal of answers in flight, so that an answer left mid-stream by a kill is finished
 * by the next process: its message shows the text it had and a note that it was interrupted.
 *
 * Each answer whose surface can persist its refs keeps one record (JournaledAnswer, fed by the
 * reply engine's message events) from its first message until it is over, as one field of its
 * run's map (`journal:run:<run>`); the run is listed in the set `journal:runs` with its first
 * record, so a later process finds every record without listing keys. A run is a process: its
 * id is the process's, and only runs whose process is dead (ProcessPresence.alive: its presence
 * lapsed and nothing of it is connected) are finished, on both stores.
 *
 * Cost per answer: one write when its first message is posted, one when a message is added or
 * its ref changes, and one when it ends. While texts grow, one write per round brings every
 * answer's record up to date together, at the pace of the edits.
 */
export class AnswerJournal {
  readonly runId: string;
  readonly #store: KeyValueStore & Coordination;
  readonly #log: Logger;
  readonly #updateIntervalMs: number;
  readonly #sweepIntervalMs: number;
  /**
   * Each answer in flight has a slot, its record's field in the run's map; a slot is used
   * again once its answer's record is gone.
   */
  #slots = 0;
  readonly #freeSlots: number[] = [];
  /** Answers whose text grew since their record was written: the next round writes them. */
  readonly #due = new Set<JournaledAnswer>();
  /** The next round's timer, while some answer is due. */
  #round: NodeJS.Timeout | undefined;
  /** Answers with a record in the store. */
  readonly #active = new Set<string>();
  /** Records of answers that ended while the store was away: removed once it answers again. */
  readonly #leftBehind = new Set<number>();
  /**
   * Since when (performance.now()) this process has reached the store without a failure:
   * from its start, and again from the first success after one.
   */
  #reachableSince: number | undefined = Number.NEGATIVE_INFINITY;
  /** The channels recovery() was given: those a stopped answer of another process ends on. */
  #channels: readonly RecoveryChannel[] = [];
  #registration: Promise<void> | undefined;
  /** When (performance.now()) a sweep last read the runs and found none but this one's. */
  #aloneSince: number | undefined;
  /** Whether the runs listed are heard of (RUN_LISTED_TOPIC), while recovery() runs. */
  #hearing = false;
  readonly #presence: ProcessPresence;
  #unlisten: (() => void) | undefined;
  #closed = false;

  constructor(options: AnswerJournalOptions) {
    this.#presence = options.presence;
    this.runId = options.presence.id;
    this.#store = options.store;
    this.#log = options.log.child({ component: "journal" });
    this.#updateIntervalMs = options.updateIntervalMs;
    // The presence's renewals' length: both go on one timer (Renewal, shared).
    this.#sweepIntervalMs = options.sweepIntervalMs ?? this.#presence.leaseMs / 3;
  }

  /**
   * Starts the record of one answer in `channel` (on a surface that can persist its refs), to
   * the question asked in `threadKey`: the answer's writer tells it of every message, and the
   * answer closes it when it is over.
   */
  track(
    channel: string,
    language: CatalogLanguage,
    threadKey: string,
  ): JournaledAnswer | undefined {
    if (this.#closed) return undefined;
    const slot = this.#freeSlots.pop() ?? this.#slots++;
    const field = String(slot);
    return new JournaledAnswer(channel, language, threadKey, {
      log: this.#log,
      due: (answer) => {
        this.#due.add(answer);
        this.#round ??= setTimeout(() => this.#writeDue(), this.#updateIntervalMs);
      },
      save: async (entry) => {
        this.#active.add(field);
        await this.#registered();
        await this.#store.updateMap(runKey(this.runId), { [field]: entry }, []);
      },
      remove: async () => {
        this.#active.delete(field);
        this.#leftBehind.add(slot);
        await this.#removeLeftBehind().catch((error: unknown) =>
          this.#log[storeFailureLevel(error)](
            { err: error },
            "a finished answer stays in the journal until the store answers again",
          ),
        );
      },
      closed: () => this.#freeSlots.push(slot),
      field,
    });
  }

  /**
   * One round: the records of every answer whose text grew, in one store call, however many
   * answers stream at once (a write per answer would cost a round trip each, every interval).
   */
  #writeDue(): void {
    this.#round = undefined;
    const put: Record<string, JournalEntry> = {};
    const batch: JournaledAnswer[] = [];
    for (const answer of this.#due) {
      const entry = answer.takeEntry();
      if (!entry) continue;
      put[answer.field] = entry;
      batch.push(answer);
    }
    this.#due.clear();
    if (batch.length === 0) return;
    const write = this.#store.updateMap(runKey(this.runId), put, []);
    for (const answer of batch) answer.writing(write);
  }

  /**
   * Finishes the answers of every dead run once: each message left mid-stream gets the text
   * last journaled and the interrupted note. Resolves with the number of answers finished.
   */
  async recover(channels: readonly RecoveryChannel[]): Promise<number> {
    const { leaseMs } = this.#presence;
    let runs: string[];
    try {
      await this.#removeLeftBehind();
      // A run that appears says so (RUN_LISTED_TOPIC), and hearing it ends being alone: so a
      // process alone reads the set only now and then, for a listing it did not hear of.
      // Deaf (no subscription), it reads once a lease: a run that appears is found within
      // one, before it could be dead (its presence holds that long after a kill).
      const recheckMs = this.#hearing ? ALONE_RECHECK_LEASES * leaseMs : leaseMs;
      if (this.#aloneSince !== undefined && performance.now() - this.#aloneSince < recheckMs) {
        return 0;
      }
      runs = (await this.#store.setMembers(RUNS_KEY)).filter((run) => run !== this.runId);
    } catch (error) {
      this.#reachableSince = undefined;
      throw error;
    }
    this.#reachableSince ??= performance.now();
    this.#aloneSince = runs.length === 0 ? performance.now() : undefined;
    if (runs.length === 0) return 0;
    // A presence lapses while the store is away whether its process lives or not; a live one
    // is taken again within a third of its lease once the store is back. So after a failure,
    // a lapsed presence means a dead process only once this one has reached the store again
    // for a whole lease and a renewal.
    if (performance.now() - this.#reachableSince < leaseMs + leaseMs / 3) return 0;
    const alive = await this.#presence.alive(runs);
    const dead = runs.filter((_, i) => !alive[i]);
    let finished = 0;
    for (const run of dead) finished += await this.#recoverRun(run, channels);
    // Which runs a sweep took for live ones (a process cut off from the store is one), said
    // once the dead ones' answers are finished: a test waits for a sweep's end with this line,
    // not for time to pass. Debug level, and only from sweeps that found other runs.
    this.#log.debug({ runs: runs.length, dead: dead.length, finished }, "journal runs checked");
    return finished;
  }

  /** A background job that recovers at once and then every few seconds (another may die). */
  recovery(channels: readonly RecoveryChannel[]): { start(): void; stop(): Promise<void> } {
    this.#channels = channels;
    let rounds: Renewal | undefined;
    let first: Promise<void> | undefined;
    let unhear: Promise<(() => void) | undefined> | undefined;
    let unlost: (() => void) | undefined;
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
        unhear = this.#hearListings();
        // Back from a store outage, a listing may have gone unheard: the next sweep reads.
        unlost = this.#presence.onLost(() => {
          this.#aloneSince = undefined;
        });
        first = sweep("always").finally(() => {
          if (stopped) return;
          rounds = new Renewal(() => sweep("when some"), this.#sweepIntervalMs, { shared: true });
        });
      },
      stop: async () => {
        stopped = true;
        await first;
        await rounds?.stop();
        (await unhear)?.();
        unlost?.();
        this.#hearing = false;
      },
    };
  }

  /**
   * Ends the answer `target` names of a process that did not take a person's stop (it was
   * killed a moment ago): its messages show the text last journaled and the stopped note, and
   * its record goes. `answered` are the processes that answered the stop (alive, and not
   * streaming it): their records are never touched. False when there is no such record.
   */
  async finishStopped(
    target: StoppedAnswer,
    by: { name: string | undefined; tookOver?: boolean | undefined },
    answered: ReadonlySet<string>,
  ): Promise<boolean> {
    // Before the channels run (recovery() not started yet) the record is left for recovery.
    if (this.#channels.length === 0) return false;
    const runs = (await this.#store.setMembers(RUNS_KEY)).filter(
      (run) => run !== this.runId && !answered.has(run),
    );
    for (const run of runs) {
      const records = await this.#store.mapEntries(runKey(run));
      for (const [field, value] of Object.entries(records)) {
        const entry = readEntry(value);
        if (!entry || !matches(entry, target)) continue;
        const reason = { kind: "stopped", by: by.name, tookOver: by.tookOver === true } as const;
        await finishInterrupted(entry, this.#channels, this.#log, reason);
        await this.#store.updateMap(runKey(run), {}, [field]).catch(() => undefined);
        return true;
      }
    }
    return false;
  }

  /**
   * Leaves the journal after the answers are over: the run leaves `journal:runs`. Records still
   * open stay for the next process to finish.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#round);
    this.#unlisten?.();
    // A run that never journaled an answer never listed itself.
    if (!this.#registration) return;
    try {
      await this.#registration;
      await this.#removeLeftBehind();
      if (this.#active.size === 0) {
        await this.#store.removeFromSet(RUNS_KEY, this.runId);
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
    if (this.#leftBehind.size === 0) return;
    const slots = [...this.#leftBehind];
    this.#leftBehind.clear();
    try {
      await this.#store.updateMap(runKey(this.runId), {}, slots.map(String));
    } catch (error) {
      for (const slot of slots) this.#leftBehind.add(slot);
      throw error;
    }
    this.#freeSlots.push(...slots);
  }

  /** Lists the run; once, or again after a failure, or after its presence lapsed. */
  #registered(): Promise<void> {
    this.#registration ??= this.#register().catch((error: unknown) => {
      this.#registration = undefined;
      throw error;
    });
    return this.#registration;
  }

  /** Hears of the runs listed by other processes: the next sweep reads the set. */
  async #hearListings(): Promise<(() => void) | undefined> {
    try {
      const unsubscribe = await this.#store.subscribe(RUN_LISTED_TOPIC, (run) => {
        if (run !== this.runId) this.#aloneSince = undefined;
      });
      this.#hearing = true;
      // A run listed before this moment was not heard: the next sweep reads once more.
      this.#aloneSince = undefined;
      return unsubscribe;
    } catch (error) {
      this.#log[storeFailureLevel(error)](
        { err: error },
        "cannot hear of other processes' answers in the journal: it is read once a lease",
      );
      return undefined;
    }
  }

  async #register(): Promise<void> {
    this.#unlisten ??= this.#presence.onLost(async () => {
      // The presence lapsed (the store was away): another process may have taken this run
      // for dead and removed it. List the run again.
      if (this.#closed) return;
      this.#log.info("the presence is back: listing this run again");
      this.#registration = undefined;
      await this.#registered();
    });
    await this.#store.addToSet(RUNS_KEY, this.runId);
    // A hint to the processes alone, which read the set then (a lost one: later). Not waited
    // for: the answer's first record follows at once.
    void this.#store.publish(RUN_LISTED_TOPIC, this.runId).catch(() => undefined);
  }

  async #recoverRun(run: string, channels: readonly RecoveryChannel[]): Promise<number> {
    const claim = recoveringKey(run);
    // Another live process may be finishing this run right now.
    if (!(await this.#store.claim(claim, this.runId, RECOVERY_CLAIM_MS))) return 0;
    try {
      const found: JournalEntry[] = [];
      for (const value of Object.values(await this.#store.mapEntries(runKey(run)))) {
        const entry = readEntry(value);
        if (entry) found.push(entry);
      }
      let next = 0;
      const worker = async () => {
        for (let entry = found[next++]; entry; entry = found[next++]) {
          await finishInterrupted(entry, channels, this.#log);
        }
      };
      await Promise.all(Array.from({ length: RECOVERY_CONCURRENCY }, worker));
      await this.#store.delete(runKey(run));
      await this.#store.removeFromSet(RUNS_KEY, run);
      return found.length;
    } finally {
      await this.#store.release(claim, this.runId).catch(() => undefined);
    }
  }
}

function matches(entry: JournalEntry, target: StoppedAnswer): boolean {
  return "threadKey" in target
    ? entry.thread === target.threadKey
    : entry.answer === target.answerId && entry.channelKey === target.channelKey;
}
