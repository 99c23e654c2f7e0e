import { NotStartedError, storeFailureLevel } from "../errors.ts";
import type { Logger } from "../log.ts";
import { Renewal } from "./lease.ts";
import type { Coordination } from "./port.ts";
import type { StreamAdd } from "./work-stream.ts";

export interface SharedQueueOptions {
  store: Coordination;
  /** The queue's key: every process that shares the work uses the same one. */
  key: string;
  /** This process's name among the consumers: unique per process. */
  consumer: string;
  /** What this process can take on: its own answer queue (MAX_ACTIVE_ANSWERS). */
  capacity: QueueCapacity;
  /** MAX_QUEUED_QUESTIONS: entries waiting to be taken, for the whole queue. */
  maxQueued: number;
  /** TAKEOVER_MS: an entry whose holder renewed nothing for this long is taken over. */
  takeoverMs: number;
  log: Logger;
}

/**
 * What a process can take on, as its shared queue asks it. The answer queue of the process
 * (src/bridge/answer-queue.ts) is one; the shared queue depends on it, never the other way.
 */
export interface QueueCapacity {
  /** How many more entries this process can take now (MAX_ACTIVE_ANSWERS less what it runs and has lined up). */
  room(): number;
  /** Calls `listener` whenever room frees here: the queue then looks for entries at once. */
  onRoom(listener: () => void): void;
  /** The number of entries waiting in the deployment's queue, whenever it is learnt. */
  waitingElsewhere?(waiting: number): void;
}

/** An entry this process took, from the moment it was taken until its handler ends. */
export interface QueueJob {
  /** The entry's id in the queue. */
  readonly id: string;
  readonly value: unknown;
  /**
   * The work begins for good: the entry leaves the queue, so no other process will take it
   * over. Resolves false when another process took it over meanwhile (this one stalled past
   * TAKEOVER_MS): the entry is theirs, and this process must drop it. Rejects with
   * NotStartedError once the queue stopped: the entry stays for another process.
   */
  begin(): Promise<boolean>;
}

/**
 * The store key of the deployment's one answer queue (a Redis stream under the store's
 * namespace), which an autoscaler watches too: deploy/kubernetes/components/keda.
 */
export const ANSWER_QUEUE_KEY = "queue:answers";

/**
 * Work shared by every process on one store queue (work-stream.ts): each process adds what
 * it cannot start at once, and takes the next entries only while it has room (`room()`),
 * so work goes by capacity, whichever process received it. A taken entry is held by
 * renewals every third of TAKEOVER_MS until the job begins it; an entry whose holder died
 * is taken over by another process after TAKEOVER_MS. Once begun, the entry is gone from the
 * queue: what happens to work cut by a kill after that is the job's own affair (the answer
 * journal finishes an answer cut mid-stream), so it is never done twice.
 *
 * A process looks for entries when it is told of one (an add anywhere: streamWatch; room
 * freed here: QueueCapacity.onRoom), never on a timer of its own while nothing is known to wait. Only the
 * rounds (every third of TAKEOVER_MS) run on their own, and only while there is something to
 * keep or learn: entries held, entries waiting, or, where other processes share the store,
 * a dead holder's entries to look for (and an announcement lost meanwhile).
 *
 * On the embedded store the queue is in memory and this process is its only consumer: the
 * same code path, one process, so no holder can die while it lives and an idle queue costs
 * nothing.
 */
export class SharedQueue {
  readonly #options: SharedQueueOptions;
  /** Other processes share the store: one may die holding entries, or add unseen. */
  readonly #shared: boolean;
  /** Taken entries whose job has not begun them: renewed until it does. */
  readonly #held = new Set<string>();
  #active = 0;
  #handler: ((job: QueueJob) => Promise<void>) | undefined;
  #stopped = false;
  #wakeUp: (() => void) | undefined;
  #woken = false;
  #loop: Promise<void> | undefined;
  #rounds: Renewal | undefined;
  /** Stopped, and every job ended: nothing is held any more. */
  #roundsOver = false;
  /** A round asked for a look at entries held by a process that may be dead. */
  #takeOverDue: boolean;
  /**
   * Entries may wait: set by an add (here, or announced); cleared by a take (a round's
   * take-over takes waiting entries too) that found fewer than it asked for while no add was
   * announced.
   */
  #mayWait = true;
  /** Adds announced so far: a take tells by it whether one came while it ran. */
  #announced = 0;
  #unwatch: (() => void) | undefined;
  /** Entries waiting to be taken, as last learnt (an add, a round). */
  #depth = 0;
  readonly #jobs = new Set<Promise<void>>();

  constructor(options: SharedQueueOptions) {
    this.#options = options;
    this.#shared = options.store.sharedAcrossProcesses;
    this.#takeOverDue = this.#shared;
    options.capacity.onRoom(() => this.#wake());
  }

  /** The queue's key in the store. */
  get key(): string {
    return this.#options.key;
  }

  /** Jobs running in this process (taken, handler not ended). */
  get active(): number {
    return this.#active;
  }

  /** Adds an entry at the back of the queue; undefined when `maxQueued` already wait. */
  async push(value: unknown): Promise<StreamAdd | undefined> {
    const { store, key, maxQueued } = this.#options;
    const added = await store.streamAdd(key, value, maxQueued);
    if (added) this.#setDepth(added.place);
    this.#added();
    return added;
  }

  /** Starts taking entries while there is room; each goes to `handler`. */
  serve(handler: (job: QueueJob) => Promise<void>): void {
    if (this.#handler) throw new Error("the queue is served once");
    this.#handler = handler;
    // An add anywhere wakes this process at once; the rounds cover a missed announcement.
    this.#unwatch = this.#options.store.streamWatch(this.#options.key, () => this.#added());
    this.#keepRounds();
    this.#loop = this.#run();
  }

  /**
   * Takes nothing more. Entries taken and not begun stay held until their handler ends (their
   * begin() rejects), then lapse and are taken over by another process.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unwatch?.();
    this.#wake();
    await this.#loop;
    await Promise.allSettled([...this.#jobs]);
    this.#roundsOver = true;
    await this.#rounds?.stop();
  }

  async #run(): Promise<void> {
    const { store, key, consumer, takeoverMs } = this.#options;
    while (!this.#stopped) {
      const room = this.#options.capacity.room();
      let taken = 0;
      if (room > 0 && (this.#mayWait || this.#takeOverDue)) {
        try {
          const announced = this.#announced;
          // A dead holder's entries cost a scan: once a round, together with the waiting ones.
          const takeOver = this.#takeOverDue;
          this.#takeOverDue = false;
          const entries = takeOver
            ? await store.streamTakeOver(key, consumer, takeoverMs, room)
            : await store.streamTake(key, consumer, room);
          if (entries.length < room && announced === this.#announced) this.#mayWait = false;
          for (const entry of entries) this.#start(entry.id, entry.value);
          taken = entries.length;
        } catch (error) {
          this.#options.log[storeFailureLevel(error)](
            { err: error },
            "could not take questions from the shared queue",
          );
        }
      }
      if (taken === 0) await this.#idle();
    }
  }

  #start(id: string, value: unknown): void {
    const handler = this.#handler;
    if (!handler) return;
    const { store, key, consumer } = this.#options;
    this.#active += 1;
    this.#held.add(id);
    this.#keepRounds();
    let begun = false;
    const job: QueueJob = {
      id,
      value,
      begin: async () => {
        if (this.#stopped) throw new NotStartedError();
        begun = true;
        this.#held.delete(id);
        return store.streamFinish(key, consumer, id);
      },
    };
    const running = (async () => {
      try {
        await handler(job);
      } catch (error) {
        this.#options.log.error({ err: error }, "a job of the shared queue failed");
      } finally {
        this.#held.delete(id);
        // A job that ended without beginning (a refusal, a duplicate) is done all the same;
        // one left at a stop stays for another process.
        if (!begun && !this.#stopped) {
          await store.streamFinish(key, consumer, id).catch(() => undefined);
        }
        this.#active -= 1;
        this.#wake();
      }
    })();
    this.#jobs.add(running);
    void running.finally(() => this.#jobs.delete(running));
  }

  /** Runs the rounds, every third of TAKEOVER_MS, while they have something to do. */
  #keepRounds(): void {
    if (this.#rounds || this.#roundsOver || !this.#roundsNeeded()) return;
    this.#rounds = new Renewal(() => this.#round(), this.#options.takeoverMs / 3, {
      shared: true,
    });
  }

  #roundsNeeded(): boolean {
    return this.#shared || this.#held.size > 0 || this.#depth > 0;
  }

  /**
   * Renews the holds of entries taken and not begun, learns how many entries wait (while some
   * do, or this process has no room to take them), and, on a shared store, has the loop look
   * for a dead holder's entries and for any whose announcement was lost.
   */
  async #round(): Promise<void> {
    const { store, key, consumer, log } = this.#options;
    try {
      const held = [...this.#held];
      if (held.length > 0) {
        const kept = new Set(await store.streamHold(key, consumer, held));
        const lost = held.filter((id) => !kept.has(id) && this.#held.has(id));
        if (lost.length > 0) {
          log.warn(
            { questions: lost.length },
            "questions this process held were taken over by another (this one stalled past TAKEOVER_MS): they are answered there",
          );
        }
      }
      if (this.#depth > 0 || held.length > 0 || this.#options.capacity.room() <= 0) {
        this.#setDepth(await store.streamWaiting(key));
      }
    } catch (error) {
      log[storeFailureLevel(error)]({ err: error }, "could not renew questions held in the queue");
    }
    if (this.#shared) {
      this.#takeOverDue = true;
      this.#wake();
    } else if (!this.#roundsNeeded()) {
      void this.#rounds?.stop();
      this.#rounds = undefined;
    }
  }

  /** Waits for a poke: an entry added, a job ended, room freed, a round. */
  async #idle(): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return;
    }
    await new Promise<void>((resolve) => {
      this.#wakeUp = resolve;
    });
    this.#wakeUp = undefined;
    this.#woken = false;
  }

  /** An entry was added (here, or announced from anywhere): it may be taken now. */
  #added(): void {
    this.#announced += 1;
    this.#mayWait = true;
    this.#wake();
  }

  #setDepth(depth: number): void {
    this.#depth = depth;
    this.#options.capacity.waitingElsewhere?.(depth);
    this.#keepRounds();
  }

  /** Looks for entries now: one was added, a job ended, room freed, or a round asks. */
  #wake(): void {
    if (this.#wakeUp) this.#wakeUp();
    else this.#woken = true;
  }
}
