import { z } from "zod";
import { ticketProcess } from "../coordination/line.ts";
import type { Coordination } from "../coordination/port.ts";
import type { ProcessPresence } from "../coordination/process-presence.ts";
import type { ProcessSignals } from "../coordination/signals.ts";
import { storeFailureLevel } from "../errors.ts";
import type { Logger } from "../log.ts";

/**
 * A question's place in its thread's line, from its arrival until its answer is complete:
 * the questions before it in the thread come first, in this process and in every other
 * sharing the store. Waiting in line shows nothing to the person: they see the answer ahead
 * moving (docs/architecture.md, "Order").
 */
export interface Ticket {
  /** Its id in the line (`<process>:<n>`), as a question handed to the shared queue carries it. */
  readonly id: string;
  /**
   * Resolves once every ticket ahead of it has left the line (at once when none was); never
   * rejects: a store that fails lets the question go on rather than wait for good.
   */
  turn(): Promise<void>;
  /** Whether a ticket was ahead when it joined (known once `joined` settles). */
  readonly joined: Promise<{ ahead: boolean }>;
  /**
   * The question goes to the deployment's queue with this ticket: the place stays in the line
   * for whichever process takes it, and this process lets go of it locally only.
   */
  handOn(): HandedTicket;
  /**
   * Lets go of the place: the thread's next question may begin, here or in another process.
   * A ticket handed on is only forgotten here. Never throws; once.
   */
  release(): void;
}

/** A ticket handed on with its question to the deployment's queue, as its receiver keeps it. */
export interface HandedTicket {
  readonly id: string;
  /** The question will never be answered (withdrawn, abandoned): its place goes, the thread goes on. */
  release(): void;
}

export interface ThreadLinesOptions {
  store: Coordination;
  presence: ProcessPresence;
  signals: ProcessSignals;
  log: Logger;
}

interface Held {
  id: string;
  threadKey: string;
  /** Settles with the ticket's place once the store has it; undefined when it failed. */
  joined: Promise<number | undefined>;
  state: "waiting" | "served" | "handed on" | "left";
  /** Settles once its turn came. */
  woken: Promise<void>;
  wake: () => void;
  /** Leaving must look who is next: a question may wait for it (here, or announced). */
  watched: boolean;
}

const turnMessage = z.object({ threadKey: z.string(), ticket: z.string() });
const waitingMessage = z.object({ threadKey: z.string() });

/** How long a process remembers it left a thread, for a waiter's announcement still on its way. */
const RECENT_MS = 5_000;

/**
 * Runs the questions of one thread one at a time, in the order they arrived, and different
 * threads in parallel, on one process or many (src/coordination/line.ts keeps the line in the
 * store). A ticket joins its thread's line on arrival, before anything else is awaited, so the
 * order is the order of delivery.
 *
 * Nobody polls for a turn: the ticket that leaves hands the turn on, to a ticket of its own
 * process at once, to another process's by a message (ProcessSignals); a ticket that finds one
 * ahead of it announces itself, so the process ahead knows to hand the turn on. As a backstop
 * (a message lost while a connection was down, a holder killed), each waiting ticket looks at
 * its line's head on the presence's beat, and takes out a head whose process is dead.
 */
export class ThreadLines {
  readonly #options: ThreadLinesOptions;
  /** This process's tickets by thread, in the order they joined. */
  readonly #lines = new Map<string, Held[]>();
  /** Threads this process left a moment ago (performance.now()), for late announcements. */
  readonly #recent = new Map<string, number>();
  #count = 0;

  constructor(options: ThreadLinesOptions) {
    this.#options = options;
    options.signals.on("line.turn", (body) => {
      const turn = turnMessage.safeParse(body);
      if (turn.success) this.#served(turn.data.threadKey, turn.data.ticket);
    });
    options.signals.on("line.waiting", (body) => {
      const waiting = waitingMessage.safeParse(body);
      if (waiting.success) this.#announced(waiting.data.threadKey);
    });
  }

  /** A new ticket at the back of `threadKey`'s line. */
  take(threadKey: string): Ticket {
    const id = `${this.#options.presence.id}:${++this.#count}`;
    const line = this.#lines.get(threadKey) ?? [];
    this.#lines.set(threadKey, line);
    const ahead = line.at(-1);
    // A question behind one of this process's own: that one's leaving looks who is next.
    if (ahead) ahead.watched = true;
    const held = this.#hold(id, threadKey, this.#join(threadKey, id));
    line.push(held);
    return this.#ticket(held);
  }

  /**
   * The ticket of a question taken from the deployment's queue, received here or elsewhere:
   * from now it is this process's, in the same place of its line.
   */
  adopt(threadKey: string, handed: string): Ticket {
    const id = `${this.#options.presence.id}:${++this.#count}`;
    const replaced = this.#options.store
      .lineReplace(lineKey(threadKey), handed, id)
      .then((found) => {
        if (found) return 1;
        // Taken for a dead process's while it waited in the queue: answered all the same.
        this.#options.log.warn(
          "a queued question lost its place in its thread's line: a later question of the thread may be answered first",
        );
        return undefined;
      })
      .catch((error: unknown) =>
        this.#failed(error, "could not take over a place in a thread's line"),
      );
    const held = this.#hold(id, threadKey, replaced);
    // Handed over at its turn: it is at the head. Questions of the thread wait behind it, some
    // maybe announced to its first holder: its leaving looks who is next.
    held.state = "served";
    held.watched = true;
    const line = this.#lines.get(threadKey) ?? [];
    this.#lines.set(threadKey, line);
    line.unshift(held);
    return this.#ticket(held);
  }

  /**
   * The backstop, on the presence's beat: every waiting ticket looks at its line's head, takes
   * its turn if a wake was lost, and takes out a head whose process is dead.
   */
  async check(): Promise<void> {
    const waiting = [...this.#lines.values()].flat().filter((held) => held.state === "waiting");
    if (waiting.length === 0) return;
    const { store, presence } = this.#options;
    try {
      const threads = [...new Set(waiting.map((held) => held.threadKey))];
      const heads = await store.lineHeads(threads.map(lineKey));
      const dead: { threadKey: string; head: string }[] = [];
      const others = new Set<string>();
      threads.forEach((threadKey, i) => {
        const head = heads[i];
        if (head === undefined) return;
        if (ticketProcess(head) === presence.id) this.#served(threadKey, head);
        else others.add(ticketProcess(head));
      });
      if (others.size === 0) return;
      const ids = [...others];
      const alive = await presence.alive(ids);
      const gone = new Set(ids.filter((_, i) => !alive[i]));
      threads.forEach((threadKey, i) => {
        const head = heads[i];
        if (head !== undefined && gone.has(ticketProcess(head))) dead.push({ threadKey, head });
      });
      for (const { threadKey, head } of dead) {
        this.#options.log.info(
          "a thread's earlier question was held by a process that is gone: the thread goes on",
        );
        await this.#handOnTurn(threadKey, head);
      }
    } catch (error) {
      this.#failed(error, "could not look at the threads' lines");
    }
  }

  #hold(id: string, threadKey: string, joined: Promise<number | undefined>): Held {
    let wake = () => {};
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const held: Held = {
      id,
      threadKey,
      joined,
      state: "waiting",
      woken,
      watched: false,
      wake: () => {
        if (held.state === "waiting") held.state = "served";
        wake();
      },
    };
    void joined.then(async (place) => {
      // Served at once, or the store failed: it goes on (the failure was logged).
      if (place === undefined || place === 1) return held.wake();
      if (this.#ownAhead(held)) return;
      // The ticket ahead is another process's: say so, so its leaving hands the turn here;
      // then look once, in case it left before the announcement reached it.
      await this.#options.signals
        .broadcast("line.waiting", { threadKey })
        .catch((error: unknown) => this.#failed(error, "could not say a question waits"));
      const [head] = await this.#options.store
        .lineHeads([lineKey(threadKey)])
        .catch((error: unknown) => [this.#failed(error, "could not look at a thread's line")]);
      if (head === id) held.wake();
    });
    return held;
  }

  #ticket(held: Held): Ticket {
    return {
      id: held.id,
      turn: () => held.woken,
      joined: held.joined.then((place) => ({ ahead: place !== undefined && place > 1 })),
      handOn: () => {
        this.#forget(held, "handed on");
        return {
          id: held.id,
          release: () => {
            this.#recent.set(held.threadKey, performance.now());
            void this.#handOnTurn(held.threadKey, held.id).catch((error: unknown) =>
              this.#failed(error, "could not give a place in a thread's line back"),
            );
          },
        };
      },
      release: () => {
        if (held.state === "left" || held.state === "handed on") {
          held.state = "left";
          return;
        }
        this.#forget(held, "left");
        void this.#leave(held);
      },
    };
  }

  /** Whether a ticket of this process is ahead of `held` in its thread. */
  #ownAhead(held: Held): boolean {
    const line = this.#lines.get(held.threadKey) ?? [];
    return line.indexOf(held) > 0;
  }

  #forget(held: Held, state: "handed on" | "left"): void {
    const line = this.#lines.get(held.threadKey) ?? [];
    const at = line.indexOf(held);
    if (at >= 0) line.splice(at, 1);
    if (line.length === 0) this.#lines.delete(held.threadKey);
    if (held.watched) {
      // The next of this process's own in the thread now watches for whoever follows it.
      const next = line[at];
      if (next) next.watched = true;
    }
    held.state = state;
  }

  /** Leaves the line in the store, and hands the turn to whoever is next. */
  async #leave(held: Held): Promise<void> {
    const { store } = this.#options;
    const key = lineKey(held.threadKey);
    await held.joined;
    const watched = held.watched || this.#lines.has(held.threadKey);
    this.#recent.set(held.threadKey, performance.now());
    this.#forgetOldLeaves();
    try {
      const next = await store.lineLeave(key, held.id, watched);
      if (next !== undefined) await this.#turnTo(held.threadKey, next);
    } catch (error) {
      this.#failed(error, "could not give a place in a thread's line back");
    }
  }

  /** Takes `head` (of a dead process) out of its line, and hands the turn on. */
  async #handOnTurn(threadKey: string, head: string): Promise<void> {
    const next = await this.#options.store.lineLeave(lineKey(threadKey), head, true);
    if (next !== undefined) await this.#turnTo(threadKey, next);
  }

  /** It is `ticket`'s turn: wake it here, or tell its process. */
  async #turnTo(threadKey: string, ticket: string): Promise<void> {
    const process = ticketProcess(ticket);
    if (process === this.#options.presence.id) {
      this.#served(threadKey, ticket);
      return;
    }
    await this.#options.signals.send(process, "line.turn", { threadKey, ticket });
  }

  #served(threadKey: string, ticket: string): void {
    for (const held of this.#lines.get(threadKey) ?? []) {
      if (held.id === ticket) held.wake();
    }
  }

  /** Another process waits in `threadKey`: whoever holds or just left it must hand the turn on. */
  #announced(threadKey: string): void {
    const line = this.#lines.get(threadKey);
    if (line && line.length > 0) {
      for (const held of line) held.watched = true;
      return;
    }
    const leftAt = this.#recent.get(threadKey);
    if (leftAt === undefined || performance.now() - leftAt > RECENT_MS) return;
    // Left before the announcement came: the waiter may have looked too early.
    void this.#options.store
      .lineHeads([lineKey(threadKey)])
      .then(async ([head]) => {
        if (head !== undefined) await this.#turnTo(threadKey, head);
      })
      .catch((error: unknown) => this.#failed(error, "could not look at a thread's line"));
  }

  #forgetOldLeaves(): void {
    if (this.#recent.size < 1_000) return;
    const now = performance.now();
    for (const [threadKey, at] of this.#recent) {
      if (now - at > RECENT_MS) this.#recent.delete(threadKey);
    }
  }

  #join(threadKey: string, id: string): Promise<number | undefined> {
    return this.#options.store
      .lineJoin(lineKey(threadKey), id)
      .catch((error: unknown) => this.#failed(error, "could not take a place in a thread's line"));
  }

  #failed(error: unknown, what: string): undefined {
    this.#options.log[storeFailureLevel(error)]({ err: error }, what);
    return undefined;
  }
}

function lineKey(threadKey: string): string {
  return `line:thread:${threadKey}`;
}
