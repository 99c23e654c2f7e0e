import type { QueueCapacity } from "../coordination/shared-queue.ts";
import { NotStartedError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics.ts";

/** A question's place, from the moment it is accepted to the end of its answer. */
export interface QueuePlace {
  /**
   * Resolves when the process has room for this answer (at once when tryStart began it).
   * When it must wait first, `onWait` is called at once with its number in line (1: next).
   * Rejects with NotStartedError once the queue is closed.
   */
  start(onWait?: (place: number) => void): Promise<void>;
  /** Starts only when the process has room at once (none in line); false leaves it waiting. */
  tryStart(): boolean;
  /** The answer ended, or the question goes no further: its room or its place is free. */
  leave(): void;
}

/**
 * How much answering a process takes on: at most `maxActive` answers at once, the others
 * waiting in one line in the order their turn came, at most `maxQueued` of them; past that a
 * new question is refused, so the person can be told the bot is busy instead of waiting for
 * good. Commands never enter it: they cost no answer.
 *
 * With the deployment's shared queue (src/coordination/shared-queue.ts), a question this
 * process has no room for goes there instead, and this queue takes questions from it while
 * it has room (room()), whichever process received them.
 */
export interface AnswerQueue {
  /**
   * A place for a new question; undefined when the queue is full (the bot is busy).
   */
  enter(options?: EnterOptions): QueuePlace | undefined;
  /** How many more questions would start at once now (none waiting, room under the cap). */
  room(): number;
  /** Answers running now. */
  readonly active: number;
  /** Questions accepted whose answer has not begun. */
  readonly waiting: number;
  /**
   * The process is stopping: every question not yet started is refused, those waiting now
   * at once and those whose turn comes later then (their `start` rejects with NotStartedError).
   */
  close(): void;
}

export interface EnterOptions {
  /** Taken from the shared queue, which bounds it and counts its wait: never refused here. */
  taken?: boolean;
  /** Never refused here: it waits only for its thread, then goes to the shared queue if it must wait. */
  unbounded?: boolean;
}

export interface LocalAnswerQueueOptions {
  /** MAX_ACTIVE_ANSWERS */
  maxActive: number;
  /** MAX_QUEUED_QUESTIONS */
  maxQueued: number;
  log: Logger;
  metrics?: Metrics | undefined;
}

interface Waiter {
  go(): void;
  refuse(): void;
}

/**
 * The queue of one process, in memory: the embedded store's deployment has one process, and
 * a question waits here only seconds, so a restart loses nothing a person was not told of
 * (close() tells them).
 */
export class LocalAnswerQueue implements AnswerQueue, QueueCapacity {
  readonly #options: LocalAnswerQueueOptions;
  readonly #line: Waiter[] = [];
  readonly #onRoom: (() => void)[] = [];
  #active = 0;
  #waiting = 0;
  /** Questions waiting in the shared queue, counted in the queued-questions gauge too. */
  #waitingElsewhere = 0;
  #closed = false;
  /** Questions refused since the queue was last empty: one log line opens and one ends a burst. */
  #refused = 0;

  constructor(options: LocalAnswerQueueOptions) {
    this.#options = options;
  }

  get active(): number {
    return this.#active;
  }

  get waiting(): number {
    return this.#waiting;
  }

  room(): number {
    return Math.max(0, this.#options.maxActive - this.#active - this.#waiting);
  }

  onRoom(listener: () => void): void {
    this.#onRoom.push(listener);
  }

  waitingElsewhere(waiting: number): void {
    this.#waitingElsewhere = waiting;
    this.#setWaiting(this.#waiting);
  }

  enter(options: EnterOptions = {}): QueuePlace | undefined {
    const { maxActive, maxQueued } = this.#options;
    // Questions waiting for their thread count too: each of them will need room.
    const wouldWait = this.#active + this.#waiting >= maxActive;
    if (wouldWait && this.#waiting >= maxQueued && !options.taken && !options.unbounded) {
      this.#refuse();
      return undefined;
    }
    this.#setWaiting(this.#waiting + 1);
    const enteredAt = performance.now();
    let state: "waiting" | "in line" | "active" | "left" = "waiting";
    let waiter: Waiter | undefined;
    const begin = () => {
      state = "active";
      this.#active += 1;
      this.#setWaiting(this.#waiting - 1);
      // A question from the shared queue waited there: the bridge counts its whole wait.
      if (!options.taken) {
        this.#options.metrics?.queueWait.observe((performance.now() - enteredAt) / 1000);
      }
    };
    const drop = () => {
      state = "left";
      this.#setWaiting(this.#waiting - 1);
    };
    const startNow = () => {
      if (state !== "waiting" || this.#closed) return false;
      if (this.#active >= maxActive || this.#line.length > 0) return false;
      begin();
      return true;
    };
    return {
      tryStart: startNow,
      start: (onWait) => {
        // Begun already by tryStart: the room is this question's.
        if (state === "active") return Promise.resolve();
        if (state !== "waiting") return Promise.reject(new Error("a place is started once"));
        if (this.#closed) {
          drop();
          return Promise.reject(new NotStartedError());
        }
        if (startNow()) return Promise.resolve();
        state = "in line";
        return new Promise<void>((resolve, reject) => {
          waiter = {
            go: () => {
              begin();
              resolve();
            },
            refuse: () => {
              drop();
              reject(new NotStartedError());
            },
          };
          this.#line.push(waiter);
          onWait?.(this.#line.length);
        });
      },
      leave: () => {
        if (state === "active") {
          state = "left";
          this.#active -= 1;
          this.#serveNext();
        } else if (state === "in line" && waiter) {
          this.#line.splice(this.#line.indexOf(waiter), 1);
          drop();
        } else if (state === "waiting") {
          drop();
        } else {
          return;
        }
        // Room freed: whoever takes work by this process's room looks again.
        for (const listener of this.#onRoom) listener();
      },
    };
  }

  close(): void {
    this.#closed = true;
    for (const waiter of this.#line.splice(0)) waiter.refuse();
  }

  #serveNext(): void {
    while (this.#active < this.#options.maxActive) {
      const next = this.#line.shift();
      if (!next) return;
      next.go();
    }
  }

  #setWaiting(waiting: number): void {
    this.#waiting = waiting;
    this.#options.metrics?.queuedQuestions.set(waiting + this.#waitingElsewhere);
    if (waiting === 0 && this.#refused > 0) {
      this.#options.log.info(
        { refused: this.#refused },
        "the answer queue is empty again: `refused` questions were told the bot was busy meanwhile",
      );
      this.#refused = 0;
    }
  }

  #refuse(): void {
    this.#refused += 1;
    if (this.#refused > 1) return;
    this.#options.log.warn(
      { active: this.#active, waiting: this.#waiting },
      "the answer queue is full (MAX_QUEUED_QUESTIONS): new questions are told the bot is busy until it empties",
    );
  }
}
