import { storeFailureLevel } from "../errors.ts";
import type { Logger } from "../log.ts";
import { Renewal } from "./lease.ts";
import type { Coordination } from "./port.ts";
import type { ProcessPresence } from "./process-presence.ts";
import { type StreamAdd, type StreamEntry, streamAddedChannel } from "./work-stream.ts";

export interface SharedQueueOptions {
  store: Coordination;
  /** The queue's key: every process that shares the work uses the same one. */
  key: string;
  /** This process's name among the consumers: unique per process. */
  consumer: string;
  /** What this process can take on: its answers' room (MAX_ACTIVE_ANSWERS). */
  room: QueueRoom;
  /** MAX_QUEUED_QUESTIONS: entries waiting to be taken, for the whole queue. */
  maxQueued: number;
  /** TAKEOVER_MS: an entry whose holder renewed nothing for this long is taken over. */
  takeoverMs: number;
  log: Logger;
  /** The number of entries waiting in the deployment's queue, whenever it is learnt. */
  onDepth?: (waiting: number) => void;
  /**
   * This process's presence: its loss (the store was away, or lost its data) ends a quiet
   * queue's rest, so that the next round looks (and makes a stream gone again).
   */
  presence?: Pick<ProcessPresence, "onLost">;
}

/**
 * What a process can take on, as its shared queue asks it (src/bridge/room.ts implements it;
 * the queue depends on it, never the other way).
 */
export interface QueueRoom {
  /** Slots free now. */
  readonly free: number;
  /** A slot, if one is free now: the entry taken with it holds it until its handler frees it. */
  take(): QueueSlot | undefined;
  /** Calls `listener` whenever a slot frees: the queue then looks for entries at once. */
  onFree(listener: () => void): void;
}

/** A slot of the room, as the queue hands it to a job. */
export interface QueueSlot {
  free(): void;
}

/** An entry this process took, from the moment it was taken until its handler ends. */
export interface QueueJob {
  /** The entry's id in the queue. */
  readonly id: string;
  readonly value: unknown;
  /** The room it was taken with: the handler frees it when the work ends. */
  readonly slot: QueueSlot;
  /**
   * The work begins for good: the entry leaves the queue, so no other process will take it
   * over. "taken over" when another process took it over meanwhile (this one stalled past
   * TAKEOVER_MS): the entry is theirs, and this process must drop it; "stopped" once the
   * queue stopped: the entry stays for another process.
   */
  begin(): Promise<"begun" | "taken over" | "stopped">;
}

/**
 * The store key of the deployment's one answer queue (a Redis stream under the store's
 * namespace), which an autoscaler watches too: deploy/kubernetes/components/keda.
 */
export const ANSWER_QUEUE_KEY = "queue:answers";

/** Entries taken in one go at most: a process with room for thousands asks a few at a time. */
const TAKE_AT_ONCE = 16;
/** Rounds (a third of TAKEOVER_MS each) per look for entries of a process that died. */
const TAKEOVER_ROUNDS = 3;
/**
 * Looks left out in a row, at most, while the queue is quiet (see #round): one in this many
 * still goes, for an add this process did not hear (its subscription was down meanwhile).
 */
const QUIET_LOOKS = 6;

/** Where the queue says that entries were taken, so the places shown can move up. */
export function queueMovedTopic(key: string): string {
  return `${key}:moved`;
}

/**
 * Work shared by every process on one store queue (work-stream.ts): each process adds what
 * it cannot start at once, and takes the next entries only while it has room, each with a
 * slot of its room, so work goes by capacity, whichever process received it. A taken entry is
 * held by renewals every third of TAKEOVER_MS until the job begins it; an entry whose holder
 * died is taken over by another process after TAKEOVER_MS. Once begun, the entry is gone from
 * the queue: what happens to work cut by a kill after that is the job's own affair (the answer
 * journal finishes an answer cut mid-stream), so it is never done twice.
 *
 * A process looks for entries when it is told of one (an add anywhere, announced through the
 * store; a slot freed here), never on a timer of its own while nothing is known to wait. The
 * rounds, on the presence's beat, renew the holds, learn how many wait, and look for a dead
 * holder's entries and any whose announcement was lost. The same on both stores.
 */
export class SharedQueue {
  readonly #options: SharedQueueOptions;
  /** Taken entries whose job has not begun them: renewed until it does. */
  readonly #held = new Set<string>();
  #active = 0;
  #handler: ((job: QueueJob) => Promise<void>) | undefined;
  #stopped = false;
  #wakeUp: (() => void) | undefined;
  #woken = false;
  #loop: Promise<void> | undefined;
  #rounds: Renewal | undefined;
  /** A round asked for a look at entries held by a process that may be dead. */
  #takeOverDue = true;
  /** Rounds since the last look: one in TAKEOVER_ROUNDS looks (see #round). */
  #roundsSinceLook = 0;
  /**
   * Entries may wait: set by an add (here, or announced); cleared by a take (a round's
   * take-over takes waiting entries too) that found fewer than it asked for while no add was
   * announced.
   */
  #mayWait = true;
  /** Adds announced so far: a take tells by it whether one came while it ran. */
  #announced = 0;
  /** `#announced` when a look last found the stream quiet (no entry waiting or held). */
  #quietAt: number | undefined;
  /** Looks left out since, while quiet. */
  #quietLooks = 0;
  #unwatch: (() => void) | undefined;
  /** Entries waiting to be taken, as last learnt (an add, a round). */
  #depth = 0;
  readonly #jobs = new Set<Promise<void>>();
  /** Questions refused since the queue last took one. */
  #refused = 0;

  constructor(options: SharedQueueOptions) {
    this.#options = options;
    options.room.onFree(() => this.#wake());
    options.presence?.onLost(() => {
      this.#quietAt = undefined;
    });
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
    const { store, key, maxQueued, consumer } = this.#options;
    const added = await store.streamAdd(key, value, maxQueued, consumer);
    if (added) this.#setDepth(added.place);
    this.#added();
    this.#refusals(added === undefined);
    return added;
  }

  /** One line when the queue starts refusing, one when it takes again: not one per question. */
  #refusals(refused: boolean): void {
    const { log } = this.#options;
    if (refused) {
      if (++this.#refused === 1) {
        log.warn(
          "the answer queue is full (MAX_QUEUED_QUESTIONS): new questions are told the bot is busy until it has room",
        );
      }
    } else if (this.#refused > 0) {
      log.info(
        { refused: this.#refused },
        "the answer queue takes questions again: `refused` were told the bot was busy meanwhile",
      );
      this.#refused = 0;
    }
  }

  /** Starts taking entries while there is room; each goes to `handler`. */
  async serve(handler: (job: QueueJob) => Promise<void>): Promise<void> {
    if (this.#handler) throw new Error("the queue is served once");
    this.#handler = handler;
    const { store, key } = this.#options;
    // An add anywhere wakes this process at once; the rounds cover a missed announcement.
    this.#unwatch = await store
      .subscribe(streamAddedChannel(key), () => this.#added())
      .catch((error: unknown) => {
        this.#options.log[storeFailureLevel(error)](
          { err: error },
          "cannot hear of questions added to the shared queue: its rounds take them",
        );
        return undefined;
      });
    this.#rounds = new Renewal(() => this.#round(), this.#options.takeoverMs / 3, {
      shared: true,
    });
    this.#loop = this.#run();
  }

  /**
   * Takes nothing more. Entries taken and not begun stay held until their handler ends (their
   * begin() says "stopped"), then lapse and are taken over by another process. Resolves with
   * the entries this process added that nobody could take once it is gone (on the embedded
   * store: every one still waiting), taken out of the queue.
   */
  async stop(): Promise<StreamEntry[]> {
    this.#stopped = true;
    this.#unwatch?.();
    this.#wake();
    await this.#loop;
    await Promise.allSettled([...this.#jobs]);
    await this.#rounds?.stop();
    const { store, key, consumer } = this.#options;
    return store.streamAbandon(key, consumer).catch(() => []);
  }

  async #run(): Promise<void> {
    const { store, key, consumer, takeoverMs, room } = this.#options;
    while (!this.#stopped) {
      let taken = 0;
      if (room.free > 0 && (this.#mayWait || this.#takeOverDue)) {
        // The room first: what is taken has its slots, whatever arrives here meanwhile.
        const slots: QueueSlot[] = [];
        for (let want = Math.min(room.free, TAKE_AT_ONCE); slots.length < want; ) {
          const slot = room.take();
          if (!slot) break;
          slots.push(slot);
        }
        try {
          const announced = this.#announced;
          // A dead holder's entries cost a scan: once a round, together with the waiting ones.
          const takeOver = this.#takeOverDue;
          this.#takeOverDue = false;
          let entries: StreamEntry[];
          if (takeOver) {
            const over = await store.streamTakeOver(key, consumer, takeoverMs, slots.length);
            entries = over.entries;
            this.#quietAt = over.quiet ? announced : undefined;
          } else {
            entries = await store.streamTake(key, consumer, slots.length);
          }
          if (entries.length < slots.length && announced === this.#announced) this.#mayWait = false;
          // What waits now, as far as this take tells: none when it found fewer than it asked.
          if (entries.length > 0 || this.#depth > 0) {
            this.#setDepth(
              entries.length < slots.length ? 0 : Math.max(0, this.#depth - entries.length),
            );
          }
          entries.forEach((entry, i) => {
            const slot = slots[i];
            if (slot) this.#start(entry.id, entry.value, slot);
          });
          taken = entries.length;
          if (taken > 0) void store.publish(queueMovedTopic(key), "").catch(() => undefined);
        } catch (error) {
          this.#options.log[storeFailureLevel(error)](
            { err: error },
            "could not take questions from the shared queue",
          );
        } finally {
          for (const slot of slots.slice(taken)) slot.free();
        }
      }
      if (taken === 0) await this.#idle();
    }
  }

  #start(id: string, value: unknown, slot: QueueSlot): void {
    const handler = this.#handler;
    if (!handler) {
      slot.free();
      return;
    }
    const { store, key, consumer } = this.#options;
    this.#active += 1;
    this.#held.add(id);
    let begun = false;
    const job: QueueJob = {
      id,
      value,
      slot,
      begin: async () => {
        if (this.#stopped) return "stopped";
        begun = true;
        this.#held.delete(id);
        return (await store.streamFinish(key, consumer, id)) ? "begun" : "taken over";
      },
    };
    const running = (async () => {
      try {
        await handler(job);
      } catch (error) {
        this.#options.log.error({ err: error }, "a job of the shared queue failed");
      } finally {
        slot.free();
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
      if (this.#depth > 0 || held.length > 0 || this.#options.room.free <= 0) {
        this.#setDepth(await store.streamWaiting(key));
      }
    } catch (error) {
      log[storeFailureLevel(error)]({ err: error }, "could not renew questions held in the queue");
    }
    // An entry is taken over only once idle for TAKEOVER_MS: a look once a lease (not every
    // round, which renews the holds) finds it within two, at a third of the store's work. An
    // announcement missed meanwhile (adds are pushed, subscribe above) waits as long.
    this.#roundsSinceLook = (this.#roundsSinceLook + 1) % TAKEOVER_ROUNDS;
    if (this.#roundsSinceLook !== 0) return;
    // Quiet at the last look and no add heard since: every add is announced (with the add, in
    // one step) and an entry is held only once taken after one, so nothing waits or is held
    // but what an add unheard put there, while this process's subscription was down. For that,
    // one look in QUIET_LOOKS still goes.
    const quiet = this.#unwatch !== undefined && this.#quietAt === this.#announced;
    if (quiet && ++this.#quietLooks < QUIET_LOOKS) return;
    this.#quietLooks = 0;
    this.#takeOverDue = true;
    this.#wake();
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
    this.#options.onDepth?.(depth);
  }

  /** Looks for entries now: one was added, a job ended, room freed, or a round asks. */
  #wake(): void {
    if (this.#wakeUp) this.#wakeUp();
    else this.#woken = true;
  }
}
