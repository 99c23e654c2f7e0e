import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { DEFAULTS } from "../config.ts";
import { Renewal } from "../coordination/lease.ts";
import type { Coordination } from "../coordination/port.ts";
import { storeFailureLevel } from "../errors.ts";
import type { Logger } from "../log.ts";

export interface ThreadQueueOptions {
  store: Coordination;
  log: Logger;
  /** How long a place in line holds without renewal: a dead process's frees itself after this. */
  leaseMs?: number | undefined;
  /** How often a message whose turn depends on another process looks again. */
  pollMs?: number | undefined;
  /** Stops waiting for another process (the process is shutting down). */
  signal?: AbortSignal | undefined;
}

/** One message's place in its thread's line. */
export interface Turn {
  /** Messages of this process still waiting ahead of this one, now. */
  waitingAhead(): number;
  /**
   * Runs `task` once every message that arrived before it is done, in this process and in
   * every other sharing the store. `onWaitingElsewhere` is called once if it waits for another
   * process.
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
  /**
   * The message goes to the shared queue, to be answered by whichever process takes it: its
   * place here is given up, and its ticket kept in the store for `leaseMs` (how long a
   * question may wait there) for the taker to adopt (ThreadQueue.adopt). Undefined when the
   * ticket could not be had: the taker then runs without waiting for the thread.
   */
  handOff(leaseMs: number): Promise<HandedTicket | undefined>;
}

/** A ticket in a thread's line, as a message handed to another process carries it. */
export interface HandedTicket {
  number: number;
  owner: string;
}

interface Place {
  left: boolean;
}

interface Line {
  tail: Promise<void>;
  shownTail: Promise<void>;
  /**
   * The last ticket asked for here. The next is asked for only once it is answered, so this
   * process's tickets are numbered in its own arrival order: a late answer (a script reloaded
   * after NOSCRIPT) must not give a later message the earlier number, or each would wait for
   * the other for good.
   */
  ticketTail: Promise<unknown>;
  places: Place[];
}

/**
 * Runs the messages of one thread one at a time, in the order they arrived, and different
 * threads in parallel. A place in line is taken synchronously on arrival, so the order is
 * the order of delivery, whatever each message awaits before it runs.
 *
 * Across processes, each message also takes a ticket in its thread's line in the store on
 * arrival (store.takeTicket: ticket-line.ts says why a plain lock is not enough), and runs
 * when every ticket taken before it is done. A process that dies holds its thread only until
 * its tickets' leases run out. The embedded store keeps its lines in memory, on the same
 * code path: one process, whose restart leaves no ticket behind.
 */
export class ThreadQueue {
  readonly #options: ThreadQueueOptions;
  readonly #leaseMs: number;
  readonly #pollMs: number;
  readonly #owner = randomUUID();
  readonly #lines = new Map<string, Line>();
  #tickets = 0;

  constructor(options: ThreadQueueOptions) {
    this.#options = options;
    // Short, renewed every third of it: a dead process holds a thread for seconds, not minutes.
    this.#leaseMs = options.leaseMs ?? DEFAULTS.takeoverMs;
    this.#pollMs = options.pollMs ?? POLL_MS;
  }

  enter(threadKey: string): Turn {
    const line = this.#lines.get(threadKey) ?? {
      tail: Promise.resolve(),
      shownTail: Promise.resolve(),
      ticketTail: Promise.resolve(),
      places: [],
    };
    this.#lines.set(threadKey, line);
    const place: Place = { left: false };
    line.places.push(place);
    const ticket = new ThreadTicket(this.#options, lineKey(threadKey), {
      owner: `${this.#owner}:${++this.#tickets}`,
      leaseMs: this.#leaseMs,
      after: line.ticketTail,
    });
    line.ticketTail = ticket.taken;
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
      shown.resolve();
      line.places.splice(line.places.indexOf(place), 1);
      if (line.places.length === 0 && this.#lines.get(threadKey) === line) {
        this.#lines.delete(threadKey);
      }
      // The next one here starts once the store has the ticket back: before, it would find
      // this ticket still ahead and wait a poll for nothing.
      void ticket.giveBack().then(finished.resolve);
    };
    const handOff = async (leaseMs: number) => {
      const handed = await ticket.handOff(leaseMs);
      place.left = true;
      shown.resolve();
      line.places.splice(line.places.indexOf(place), 1);
      if (line.places.length === 0 && this.#lines.get(threadKey) === line) {
        this.#lines.delete(threadKey);
      }
      finished.resolve();
      return handed;
    };
    return {
      waitingAhead: () => line.places.indexOf(place),
      leave,
      handOff,
      previousShown,
      shown: () => shown.resolve(),
      run: async (task, onWaitingElsewhere) => {
        try {
          await previous;
          await ticket.turn(this.#pollMs, onWaitingElsewhere);
          return await task();
        } finally {
          leave();
        }
      },
    };
  }
}

/** The turn of a message taken from the shared queue (adoptedTurn). */
export interface AdoptedTurn extends Turn {
  /**
   * The answer began: from now the ticket holds only `leaseMs` unrenewed, so the thread goes
   * on soon after this process dies mid-answer (the journal finishes that answer).
   */
  begun(): void;
  /**
   * The message goes back to the queue unanswered (a stop, a takeover): the ticket is kept for
   * the process that takes it next, and no longer renewed here.
   */
  abandon(): void;
}

/**
 * The turn of a message another process received and handed over with its ticket: the
 * ticket, taken there on arrival, orders it among the thread's messages on every process.
 * It stands outside this process's own lines, whose later tickets may be ahead of it. Until
 * the answer begins, the ticket holds for `waitLeaseMs` unrenewed, so that when this process
 * dies the process that takes the message over still finds it in its place.
 */
export function adoptedTurn(
  options: ThreadQueueOptions,
  threadKey: string,
  handed: HandedTicket | undefined,
  waitLeaseMs: number,
): AdoptedTurn {
  const leaseMs = options.leaseMs ?? DEFAULTS.takeoverMs;
  const ticket =
    handed &&
    new ThreadTicket(options, lineKey(threadKey), {
      owner: handed.owner,
      leaseMs: waitLeaseMs,
      renewMs: leaseMs / 3,
      number: handed.number,
    });
  let left = false;
  const leave = () => {
    if (left) return;
    left = true;
    void ticket?.giveBack();
  };
  return {
    waitingAhead: () => 0,
    leave,
    begun: () => ticket?.setLease(leaseMs),
    abandon: () => {
      if (left) return;
      left = true;
      void ticket?.stopRenewing();
    },
    previousShown: Promise.resolve(),
    shown: () => undefined,
    handOff: () => Promise.reject(new Error("an adopted turn is not handed on")),
    run: async (task, onWaitingElsewhere) => {
      await ticket?.turn(options.pollMs ?? POLL_MS, onWaitingElsewhere);
      return task();
    },
  };
}

/**
 * Gives back a ticket handed over with a queued question that will never run (its asker
 * withdrew it), from whichever process: the thread's next question need not wait for its lease.
 */
export async function giveBackHandedTicket(
  store: Coordination,
  threadKey: string,
  ticket: HandedTicket,
): Promise<void> {
  await store
    .giveBackTicket(lineKey(threadKey), ticket.number, ticket.owner)
    .catch(() => undefined);
}

function lineKey(threadKey: string): string {
  return `line:thread:${threadKey}`;
}

const POLL_MS = 200;

/** One message's ticket in its thread's line in the store, renewed until it is given back. */
class ThreadTicket {
  readonly #options: ThreadQueueOptions;
  readonly #key: string;
  readonly #owner: string;
  #leaseMs: number;
  readonly #number: Promise<number>;
  /** Settles (never rejects) once the store answered the request for this ticket. */
  readonly taken: Promise<unknown>;
  readonly #renewal: Renewal;
  #lapsed = false;
  #returned: Promise<void> | undefined;

  constructor(
    options: ThreadQueueOptions,
    key: string,
    ticket: { owner: string; leaseMs: number; renewMs?: number } & (
      | { after: Promise<unknown> }
      | { number: number }
    ),
  ) {
    this.#options = options;
    this.#key = key;
    this.#owner = ticket.owner;
    this.#leaseMs = ticket.leaseMs;
    this.#number =
      "number" in ticket
        ? Promise.resolve(ticket.number)
        : ticket.after.then(() => options.store.takeTicket(key, this.#owner, this.#leaseMs));
    // A failure to take it surfaces in turn(); a message that never runs has nothing to do.
    this.taken = this.#number.catch(() => undefined);
    // Waiting behind a long answer takes longer than a lease: keep the place meanwhile.
    this.#renewal = new Renewal(() => this.#renew(), ticket.renewMs ?? this.#leaseMs / 3);
  }

  /**
   * Resolves when every ticket taken before this one is done (or lapsed). `onWaitingElsewhere`
   * is called once if a ticket of another process is ahead.
   */
  async turn(pollMs: number, onWaitingElsewhere?: () => Promise<void>): Promise<void> {
    const { store, signal } = this.#options;
    const number = await this.#number;
    let told = false;
    for (;;) {
      const status = await store.checkTicket(this.#key, number, this.#owner, this.#leaseMs);
      if (status === "served") return;
      if (status === "lapsed") {
        this.#lost();
        return;
      }
      if (!told) {
        told = true;
        await onWaitingElsewhere?.();
      }
      await sleep(pollMs, undefined, { signal });
    }
  }

  /** From the next renewal on, the ticket holds `leaseMs` unrenewed. */
  setLease(leaseMs: number): void {
    this.#leaseMs = leaseMs;
  }

  /** No more renewals: the ticket holds until its lease runs out. */
  stopRenewing(): Promise<void> {
    return this.#renewal.stop();
  }

  /**
   * Keeps the ticket for another process: no more renewals here, and its lease set to
   * `leaseMs`. Undefined when it could not be had or lapsed.
   */
  async handOff(leaseMs: number): Promise<HandedTicket | undefined> {
    await this.#renewal.stop();
    try {
      const number = await this.#number;
      const status = await this.#options.store.checkTicket(this.#key, number, this.#owner, leaseMs);
      return status === "lapsed" ? undefined : { number, owner: this.#owner };
    } catch (error) {
      this.#options.log[storeFailureLevel(error)](
        { err: error },
        "could not hand a place in a thread's line over",
      );
      return undefined;
    }
  }

  /** Leaves the line; resolves (never rejects) once the store has the ticket back or failed. */
  giveBack(): Promise<void> {
    void this.#renewal.stop();
    this.#returned ??= this.#number
      .then((number) => this.#options.store.giveBackTicket(this.#key, number, this.#owner))
      // A ticket that could not be given back lapses on its own after its lease.
      .catch(() => undefined);
    return this.#returned;
  }

  async #renew(): Promise<void> {
    try {
      const number = await this.#number;
      const status = await this.#options.store.checkTicket(
        this.#key,
        number,
        this.#owner,
        this.#leaseMs,
      );
      if (status === "lapsed") this.#lost();
    } catch (error) {
      this.#options.log[storeFailureLevel(error)](
        { err: error },
        "could not renew a place in a thread's line",
      );
    }
  }

  /**
   * The lease ran out before a renewal reached the store (it was away, or this process
   * stalled): the thread went on without this message. It runs anyway, never dropped, and
   * may overlap another process's answer in the thread.
   */
  #lost(): void {
    if (this.#lapsed) return;
    this.#lapsed = true;
    void this.#renewal.stop();
    this.#options.log.warn(
      "lost a place in a thread's line: another process may answer in this thread at the same time",
    );
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
