import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../log.ts";
import type { KeyValueStore } from "../store/types.ts";

export interface ThreadQueueOptions {
  store: KeyValueStore;
  log: Logger;
  /** How long a lock holds without renewal: a dead owner's lock frees itself after this. */
  leaseMs?: number | undefined;
  /** How often a waiting process looks whether another process's lock is free. */
  pollMs?: number | undefined;
  /** Stops waiting for another process's lock (the process is shutting down). */
  signal?: AbortSignal | undefined;
}

/** One message's place in its thread's line. */
export interface Turn {
  /** Messages of this process still waiting ahead of this one, now. */
  waitingAhead(): number;
  /**
   * Runs `task` once every message ahead is done and no other process answers in the
   * thread. `onWaitingElsewhere` is called once if another process holds the thread.
   */
  run<T>(task: () => Promise<T>, onWaitingElsewhere?: () => Promise<void>): Promise<T>;
  /** Gives the place up without running (a duplicate, a command, a refused question). */
  leave(): void;
  /**
   * Resolves once the message ahead has put its first message on screen (or left), so a
   * "queued" notice never shows above the answer it waits for.
   */
  readonly previousShown: Promise<void>;
  /** This message's first message is on screen: the one behind may show its own. */
  shown(): void;
}

interface Place {
  left: boolean;
}

interface Line {
  tail: Promise<void>;
  shownTail: Promise<void>;
  places: Place[];
}

/**
 * Runs the messages of one thread one at a time, in the order they arrived, and different
 * threads in parallel. A place in line is taken synchronously on arrival, so the order is
 * the order of delivery, whatever each message awaits before it runs. Across processes
 * sharing Redis, a lock with a lease (renewed while the answer streams) keeps one answer
 * per thread at a time; a process that dies holds it only until the lease runs out. The
 * embedded store belongs to one process, so there the line alone is enough (and a lock left
 * on disk by a killed process cannot hold a thread up after a restart).
 */
export class ThreadQueue {
  readonly #options: ThreadQueueOptions;
  readonly #leaseMs: number;
  readonly #pollMs: number;
  readonly #owner = randomUUID();
  readonly #lines = new Map<string, Line>();

  constructor(options: ThreadQueueOptions) {
    this.#options = options;
    // Short, renewed every third of it: a dead process holds a thread for seconds, not minutes.
    this.#leaseMs = options.leaseMs ?? 10_000;
    this.#pollMs = options.pollMs ?? 200;
  }

  enter(threadKey: string): Turn {
    const line = this.#lines.get(threadKey) ?? {
      tail: Promise.resolve(),
      shownTail: Promise.resolve(),
      places: [],
    };
    this.#lines.set(threadKey, line);
    const place: Place = { left: false };
    line.places.push(place);
    const previous = line.tail;
    const finished = deferred();
    // The next in line waits for this one and for everything before it.
    line.tail = previous.then(() => finished.promise);
    const previousShown = line.shownTail;
    const shown = deferred();
    line.shownTail = shown.promise;
    const leave = () => {
      if (place.left) return;
      place.left = true;
      finished.resolve();
      shown.resolve();
      line.places.splice(line.places.indexOf(place), 1);
      if (line.places.length === 0 && this.#lines.get(threadKey) === line) {
        this.#lines.delete(threadKey);
      }
    };
    return {
      waitingAhead: () => line.places.indexOf(place),
      leave,
      previousShown,
      shown: () => shown.resolve(),
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
    const { store, log, signal } = this.#options;
    if (store.kind === "embedded") return task();
    const key = `lock:thread:${threadKey}`;
    let told = false;
    while (!(await store.claim(key, this.#owner, this.#leaseMs))) {
      if (!told) {
        told = true;
        await onWaitingElsewhere?.();
      }
      await sleep(this.#pollMs, undefined, { signal });
    }
    const renewal = setInterval(() => {
      store.renew(key, this.#owner, this.#leaseMs).then(
        (held) => {
          if (!held) log.warn("lost a thread lock: another process may answer in this thread");
        },
        (error: unknown) => log.warn({ err: error }, "could not renew a thread lock"),
      );
    }, this.#leaseMs / 3);
    try {
      return await task();
    } finally {
      clearInterval(renewal);
      await store.release(key, this.#owner).catch(() => undefined);
    }
  }
}

/** Promise.withResolvers, which Node 20 lacks. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
