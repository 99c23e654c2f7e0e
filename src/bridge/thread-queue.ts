import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { KeyValueStore } from "../store/types.ts";

export interface ThreadQueueOptions {
  store: KeyValueStore;
  /** How long a lock holds without renewal: a dead owner's lock frees itself after this. */
  leaseMs?: number | undefined;
  /** How often a waiting process looks whether another process's lock is free. */
  pollMs?: number | undefined;
}

/** One question's place in its thread's line. */
export interface Turn {
  /** Questions of this process ahead of this one when it entered the line. */
  readonly ahead: number;
  /**
   * Runs `task` once every question ahead is done and no other process answers in the
   * thread. `onWaitingElsewhere` is called once if another process holds the thread.
   */
  run<T>(task: () => Promise<T>, onWaitingElsewhere?: () => Promise<void>): Promise<T>;
  /** Gives the place up without running (a duplicate, a command, a refused question). */
  leave(): void;
  /**
   * Resolves once the question ahead has put its first message on screen (or left), so a
   * "queued" notice never shows above the answer it waits for.
   */
  readonly previousShown: Promise<void>;
  /** This question's first message is on screen: the one behind may show its own. */
  shown(): void;
}

interface Line {
  tail: Promise<void>;
  shownTail: Promise<void>;
  length: number;
}

/**
 * Runs the questions of one thread one at a time, in the order they arrived, and different
 * threads in parallel. A place in line is taken synchronously on arrival, so the order is
 * the order of delivery, whatever each question awaits before it runs. Across processes
 * that share a store, a lock with a lease (renewed while the answer streams) keeps one
 * answer per thread at a time; a process that dies holds it only until the lease runs out.
 */
export class ThreadQueue {
  readonly #store: KeyValueStore;
  readonly #leaseMs: number;
  readonly #pollMs: number;
  readonly #owner = randomUUID();
  readonly #lines = new Map<string, Line>();

  constructor(options: ThreadQueueOptions) {
    this.#store = options.store;
    this.#leaseMs = options.leaseMs ?? 30_000;
    this.#pollMs = options.pollMs ?? 200;
  }

  enter(threadKey: string): Turn {
    const line = this.#lines.get(threadKey) ?? {
      tail: Promise.resolve(),
      shownTail: Promise.resolve(),
      length: 0,
    };
    this.#lines.set(threadKey, line);
    const ahead = line.length++;
    const previous = line.tail;
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    // The next in line waits for this one and for everything before it.
    line.tail = previous.then(() => finished);
    const previousShown = line.shownTail;
    let shown!: () => void;
    line.shownTail = new Promise<void>((resolve) => {
      shown = resolve;
    });
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      finish();
      shown();
      if (--line.length === 0 && this.#lines.get(threadKey) === line) this.#lines.delete(threadKey);
    };
    return {
      ahead,
      leave,
      previousShown,
      shown,
      run: async (task, onWaitingElsewhere) => {
        try {
          await previous;
          return await this.#withLock(threadKey, task, onWaitingElsewhere);
        } finally {
          leave();
        }
      },
    };
  }

  async #withLock<T>(
    threadKey: string,
    task: () => Promise<T>,
    onWaitingElsewhere: (() => Promise<void>) | undefined,
  ): Promise<T> {
    const key = `lock:thread:${threadKey}`;
    let told = false;
    while (!(await this.#store.claim(key, this.#owner, this.#leaseMs))) {
      if (!told) {
        told = true;
        await onWaitingElsewhere?.();
      }
      await sleep(this.#pollMs);
    }
    const renewal = setInterval(() => {
      this.#store.renew(key, this.#owner, this.#leaseMs).catch(() => undefined);
    }, this.#leaseMs / 3);
    try {
      return await task();
    } finally {
      clearInterval(renewal);
      await this.#store.release(key, this.#owner).catch(() => undefined);
    }
  }
}
