import { setTimeout as sleep } from "node:timers/promises";
import { Renewal } from "../coordination/lease.ts";
import type { Coordination } from "../coordination/port.ts";
import type { ProcessPresence } from "../coordination/process-presence.ts";
import type { TicketHold, TicketStatus } from "../coordination/ticket-line.ts";
import { storeFailureLevel } from "../errors.ts";
import type { Logger } from "../log.ts";

export interface ThreadQueueOptions {
  store: Coordination;
  log: Logger;
  /** This process: its tickets name it, and hold while it lives. */
  presence: ProcessPresence;
  /** How often a message whose turn depends on another process looks again. */
  pollMs?: number | undefined;
  /** Stops waiting for another process (the process is shutting down). */
  signal?: AbortSignal | undefined;
}

/**
 * A question's place in its thread's line, from its arrival until its answer is complete:
 * the questions before it in the thread come first, in this process and in every other
 * sharing the store. Waiting in line shows nothing to the person: they see the answer ahead
 * moving (docs/architecture.md, "Order").
 */
export interface ThreadTurn {
  /**
   * Resolves once every question that arrived before this one in its thread is done.
   * `onWait` is called once, at once, if one is still ahead (here or in another process).
   */
  wait(onWait?: () => void): Promise<void>;
  /** Runs `task` once the turn came, then leaves the line. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Gives the place up: done, or never needed a turn (a duplicate, a refused question). */
  leave(): void;
  /**
   * The question goes to the shared queue, to be answered by whichever process takes it: its
   * place here is given up, and its ticket kept in the store for `leaseMs` (how long a
   * question may wait there), whatever becomes of this process, for the taker to adopt
   * (ThreadQueue.adopt). Undefined when the ticket could not be had: the taker then runs
   * without waiting for the thread.
   */
  handOff(leaseMs: number): Promise<HandedTicket | undefined>;
  /**
   * The answer of a question taken from the shared queue began here: from now its ticket
   * holds while this process lives, so the thread goes on as soon as this process is taken
   * for dead mid-answer (the journal finishes that answer).
   */
  begun(): void;
  /**
   * The question goes back to the shared queue unanswered (a stop, a takeover): the ticket is
   * kept for the process that takes it next, and no longer renewed here.
   */
  abandon(): void;
}

/** A ticket in a thread's line, as a message handed to another process carries it. */
export interface HandedTicket {
  number: number;
  owner: string;
}

interface Line {
  /** Settles once the last question that entered here is done. */
  tail: Promise<void>;
  /**
   * The last ticket asked for here. The next is asked for only once it is answered, so this
   * process's tickets are numbered in its own arrival order: a late answer (a script reloaded
   * after NOSCRIPT) must not give a later message the earlier number, or each would wait for
   * the other for good.
   */
  ticketTail: Promise<unknown>;
  /** Questions in this line that have not left it. */
  size: number;
}

/**
 * Runs the questions of one thread one at a time, in the order they arrived, and different
 * threads in parallel. A place in line is taken synchronously on arrival, so the order is
 * the order of delivery, whatever each question awaits before it runs.
 *
 * Across processes (a store shared by several, Redis), each question also takes a ticket in
 * its thread's line in the store on arrival (store.takeTicket: ticket-line.ts says why a plain
 * lock is not enough), and runs when every ticket taken before it is done. The ticket holds
 * while this process's presence does, with no renewal of its own: a process that dies holds
 * its threads until its presence lapses (TAKEOVER_MS). Only a ticket handed to the shared
 * queue holds for a time instead, so that it outlives its process until another adopts it.
 * A store one process owns (the embedded store) needs no ticket: this process's own line is
 * the thread's whole line, and a question handed to the shared queue keeps its place in it
 * until it is answered.
 */
export class ThreadQueue {
  readonly #options: ThreadQueueOptions;
  readonly #pollMs: number;
  readonly #lines = new Map<string, Line>();
  /** Only this process uses the store: its lines are the threads' lines. */
  readonly #inProcess: boolean;
  /** In process: the questions handed to the shared queue, each freeing its line's next one. */
  readonly #handed = new Map<string, () => void>();
  #tickets = 0;

  constructor(options: ThreadQueueOptions) {
    this.#options = options;
    this.#pollMs = options.pollMs ?? POLL_MS;
    this.#inProcess = !options.store.sharedAcrossProcesses;
  }

  enter(threadKey: string): ThreadTurn {
    const line = this.#lines.get(threadKey) ?? {
      tail: Promise.resolve(),
      ticketTail: Promise.resolve(),
      size: 0,
    };
    this.#lines.set(threadKey, line);
    const aheadHere = line.size > 0;
    line.size += 1;
    const owner = `${this.#options.presence.id}:${++this.#tickets}`;
    const ticket = this.#inProcess
      ? undefined
      : new ThreadTicket(this.#options, lineKey(threadKey), {
          owner,
          hold: { process: this.#options.presence.id },
          after: line.ticketTail,
        });
    if (ticket) line.ticketTail = ticket.taken;
    const previous = line.tail;
    const finished = deferred();
    // The next in line waits for this one and for everything before it.
    line.tail = previous.then(() => finished.promise);
    /** Left the line, or handed to the shared queue (which then frees the line's next). */
    let left = false;
    const leaveLine = () => {
      left = true;
      line.size -= 1;
      if (line.size === 0 && this.#lines.get(threadKey) === line) this.#lines.delete(threadKey);
    };
    const leave = () => {
      if (left) return;
      leaveLine();
      // The next one here starts once the store has the ticket back: before, it would find
      // this ticket still ahead and wait a poll for nothing.
      if (ticket) void ticket.giveBack().then(finished.resolve);
      else finished.resolve();
    };
    const wait = async (onWait?: () => void) => {
      if (aheadHere) onWait?.();
      await previous;
      await ticket?.turn(this.#pollMs, aheadHere ? undefined : onWait);
    };
    return withRun({
      wait,
      leave,
      handOff: async (leaseMs) => {
        if (!ticket) {
          // The line stays, and its next question waits, until this one is answered from
          // the queue (or withdrawn there).
          this.#handed.set(owner, () => {
            leaveLine();
            finished.resolve();
          });
          left = true;
          return { number: 0, owner };
        }
        const handed = await ticket.handOff(leaseMs);
        if (!left) leaveLine();
        finished.resolve();
        return handed;
      },
      // The ticket is this process's own, holding while it lives.
      begun: () => undefined,
      abandon: leave,
    });
  }

  /**
   * The turn of a question taken from the shared queue, received here or by another process,
   * with the ticket it was handed over with. The ticket, taken on arrival, orders it among the
   * thread's questions on every process; it stands outside this process's own lines, whose
   * later tickets may be ahead of it. Until the answer begins, the ticket holds for
   * `waitLeaseMs`, renewed every third of it while it waits here, so that when this process
   * dies the process that takes the question over still finds it in its place; from then on
   * it holds while this process lives.
   */
  adopt(threadKey: string, handed: HandedTicket | undefined, waitLeaseMs: number): ThreadTurn {
    if (this.#inProcess) {
      let left = false;
      return withRun({
        // Handed over at its turn: nothing of its thread is ahead of it.
        wait: () => Promise.resolve(),
        leave: () => {
          if (left) return;
          left = true;
          if (handed) this.#releaseHanded(handed);
        },
        begun: () => undefined,
        // The next taker adopts it: its line waits on.
        abandon: () => {
          left = true;
        },
        handOff: noHandOff,
      });
    }
    const { presence } = this.#options;
    const ticket =
      handed &&
      new ThreadTicket(this.#options, lineKey(threadKey), {
        owner: handed.owner,
        hold: waitLeaseMs,
        renewMs: waitLeaseMs / 3,
        number: handed.number,
      });
    let left = false;
    return withRun({
      wait: async (onWait) => {
        await ticket?.turn(this.#pollMs, onWait);
      },
      leave: () => {
        if (left) return;
        left = true;
        void ticket?.giveBack();
      },
      begun: () => ticket?.bind(presence.id),
      abandon: () => {
        if (left) return;
        left = true;
        void ticket?.stopRenewing();
      },
      handOff: noHandOff,
    });
  }

  /**
   * Gives back a ticket handed over with a queued question that will never run (its asker
   * withdrew it), from whichever process: the thread's next question need not wait for its lease.
   */
  async giveBack(threadKey: string, handed: HandedTicket): Promise<void> {
    if (this.#inProcess) {
      this.#releaseHanded(handed);
      return;
    }
    await this.#options.store
      .giveBackTicket(lineKey(threadKey), handed.number, handed.owner)
      .catch(() => undefined);
  }

  #releaseHanded(handed: HandedTicket): void {
    const release = this.#handed.get(handed.owner);
    this.#handed.delete(handed.owner);
    release?.();
  }
}

function noHandOff(): Promise<never> {
  return Promise.reject(new Error("a question taken from the queue is not handed on"));
}

/** The turn with `run`: wait for it, run the task, leave. */
function withRun(turn: Omit<ThreadTurn, "run">): ThreadTurn {
  return {
    ...turn,
    run: async (task) => {
      try {
        await turn.wait();
        return await task();
      } finally {
        turn.leave();
      }
    },
  };
}

function lineKey(threadKey: string): string {
  return `line:thread:${threadKey}`;
}

const POLL_MS = 200;

/**
 * One message's ticket in its thread's line in the store. It holds while this process lives,
 * or, adopted from the shared queue and not begun yet, for a time renewed here.
 */
class ThreadTicket {
  readonly #options: ThreadQueueOptions;
  readonly #key: string;
  readonly #owner: string;
  /** What each check renews: the ticket's time; undefined while it holds by a presence. */
  #renewing: number | undefined;
  readonly #number: Promise<number>;
  /** Found served when it was taken: its first turn needs no check. */
  #servedAtOnce = false;
  /** Settles (never rejects) once the store answered the request for this ticket. */
  readonly taken: Promise<unknown>;
  readonly #renewal: Renewal | undefined;
  #lapsed = false;
  #returned: Promise<void> | undefined;

  constructor(
    options: ThreadQueueOptions,
    key: string,
    ticket: { owner: string; hold: TicketHold; renewMs?: number } & (
      | { after: Promise<unknown> }
      | { number: number }
    ),
  ) {
    this.#options = options;
    this.#key = key;
    this.#owner = ticket.owner;
    const { hold } = ticket;
    this.#renewing = typeof hold === "number" ? hold : undefined;
    this.#number =
      "number" in ticket
        ? Promise.resolve(ticket.number)
        : ticket.after.then(async () => {
            // Held by this process's presence: it must be in the store first.
            await options.presence.join();
            const taken = await options.store.takeTicket(key, this.#owner, hold);
            this.#servedAtOnce = taken.served;
            return taken.number;
          });
    // A failure to take it surfaces in turn(); a message that never runs has nothing to do.
    this.taken = this.#number.catch(() => undefined);
    // Waiting behind a long answer takes longer than its time: keep the place meanwhile.
    this.#renewal =
      ticket.renewMs === undefined ? undefined : new Renewal(() => this.#renew(), ticket.renewMs);
  }

  /**
   * Resolves when every ticket taken before this one is done (or lapsed). `onWait` is called
   * once if a ticket is ahead.
   */
  async turn(pollMs: number, onWait?: () => void): Promise<void> {
    const { store, signal } = this.#options;
    const number = await this.#number;
    if (this.#servedAtOnce) return;
    let told = false;
    for (;;) {
      const status = await store.checkTicket(this.#key, number, this.#owner, this.#renewing);
      if (status === "served") return;
      if (status === "lapsed") {
        this.#lost();
        return;
      }
      if (!told) {
        told = true;
        onWait?.();
      }
      await sleep(pollMs, undefined, { signal });
    }
  }

  /** From now the ticket holds while process `process` lives: no more renewals. */
  bind(process: string): void {
    void this.#renewal?.stop();
    this.#renewing = undefined;
    void this.#hold({ process }, "could not tie a place in a thread's line to this process");
  }

  /** No more renewals: the ticket holds until its time runs out. */
  async stopRenewing(): Promise<void> {
    await this.#renewal?.stop();
  }

  /**
   * Keeps the ticket for another process: no more renewals here, and it holds for `leaseMs`
   * whatever becomes of this process. Undefined when it could not be had or lapsed.
   */
  async handOff(leaseMs: number): Promise<HandedTicket | undefined> {
    await this.#renewal?.stop();
    this.#renewing = undefined;
    const status = await this.#hold(leaseMs, "could not hand a place in a thread's line over");
    return status === undefined || status === "lapsed"
      ? undefined
      : { number: await this.#number, owner: this.#owner };
  }

  /** Leaves the line; resolves (never rejects) once the store has the ticket back or failed. */
  giveBack(): Promise<void> {
    void this.#renewal?.stop();
    this.#returned ??= this.#number
      .then((number) => this.#options.store.giveBackTicket(this.#key, number, this.#owner))
      // A ticket that could not be given back lapses with its holder.
      .catch(() => undefined);
    return this.#returned;
  }

  async #renew(): Promise<void> {
    if (this.#renewing === undefined) return;
    const status = await this.#hold(this.#renewing, "could not renew a place in a thread's line");
    if (status === "lapsed") this.#lost();
  }

  /** Sets how the ticket holds from now; undefined when the store failed (logged as `failure`). */
  async #hold(hold: TicketHold, failure: string): Promise<TicketStatus | undefined> {
    const { store, log, presence } = this.#options;
    try {
      if (typeof hold !== "number") await presence.join();
      return await store.checkTicket(this.#key, await this.#number, this.#owner, hold);
    } catch (error) {
      log[storeFailureLevel(error)]({ err: error }, failure);
      return undefined;
    }
  }

  /**
   * The ticket was taken for dead before a check reached the store (it was away for a whole
   * lease, or this process stalled): the thread went on without this message. It runs
   * anyway, never dropped, and may overlap another process's answer in the thread.
   */
  #lost(): void {
    if (this.#lapsed) return;
    this.#lapsed = true;
    void this.#renewal?.stop();
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
