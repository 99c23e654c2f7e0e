import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { AnswerStoppedError, StoreUnavailableError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { Coordination } from "./port.ts";
import type { ProcessPresence } from "./process-presence.ts";

/** Who asks to stop an answer, as the answer's check needs them. */
export interface Stopper {
  id: string;
  /** Shown in the stopped note. */
  name: string | undefined;
  isAdmin(): Promise<boolean>;
}

export type StopOutcome = "stopped" | "refused" | "none";

/** An answer being written, as AnswerStops knows it until it ends. */
export interface RunningAnswer {
  /** Names the answer in a Stop button and in its store keys. */
  readonly id: string;
  /** Aborts, with an AnswerStoppedError, once someone allowed to stops the answer. */
  readonly signal: AbortSignal;
  /** The answer is over: it can no longer be stopped. */
  end(): Promise<void>;
}

// `process`: who streams the answer (records of an earlier version have none); `journal`:
// its record in the answer journal, by which another process ends it when its own is gone.
const runningRecord = z.object({
  id: z.string(),
  askerId: z.string(),
  process: z.string().optional(),
  journal: z.string().optional(),
});
const runRecord = z.object({
  askerId: z.string(),
  channelKey: z.string(),
  process: z.string().optional(),
  journal: z.string().optional(),
});
const stopRecord = z.object({ name: z.string().optional() });

/**
 * What the records of running answers need of a store: plain values, a part of the key-value
 * port (src/store/types.ts), declared here because src/store/ imports this folder, never the
 * other way round.
 */
interface AnswerRecords {
  get<T>(key: string): Promise<T | undefined>;
  getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]>;
  set<T>(key: string, value: T, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<boolean>;
}

/**
 * Ends an answer whose process did not take a stop request in time (it was killed, or hangs):
 * `journal` names the answer's record in the answer journal, `by` who stopped it.
 */
export type TakeOverStop = (journal: string, by: string | undefined) => Promise<unknown>;

/** An answer streaming in this process. */
interface LocalAnswer {
  stop: AbortController;
  threadKey: string;
  askerId: string;
  channelKey: string;
}

/**
 * Which answers are being written, and the requests to stop them, across every process
 * sharing the store: the process that gets `/stop` (or a Stop press) is often not the one
 * streaming the answer. The request goes through the store (keys the streaming process reads
 * every `pollMs`, all of its answers' in one round trip), and straight to the answer when it
 * streams here. A store no other
 * process shares keeps no such records: they stay in this process's memory, which costs an
 * answer no store round trip (six of them otherwise).
 *
 * A process killed mid-answer leaves its records behind (they lapse only after an hour); each
 * record names its process, whose presence (process-presence.ts) is its sign of life, lapsing
 * by the store's own clock: a stop for an answer whose process shows none finds nothing to
 * stop. The records stay (a process that only lost the store for a while goes on with them),
 * and a stop for an answer streaming here never depends on them.
 */
export class AnswerStops {
  readonly #store: AnswerRecords;
  readonly #log: Logger;
  readonly #pollMs: number;
  readonly #takeOver: TakeOverStop | undefined;
  readonly #local = new Map<string, LocalAnswer>();
  readonly #shared: boolean;
  #poller: NodeJS.Timeout | undefined;
  /** This process: its id names it in the answers' records, its lease is its sign of life. */
  readonly #presence: ProcessPresence;

  constructor(options: {
    store: AnswerRecords & Coordination;
    log: Logger;
    presence: ProcessPresence;
    pollMs?: number | undefined;
    /** Ends an answer whose process does not take its stop within a few polls. */
    takeOver?: TakeOverStop | undefined;
  }) {
    this.#store = options.store.sharedAcrossProcesses ? options.store : new MemoryRecords();
    this.#shared = options.store.sharedAcrossProcesses;
    this.#log = options.log;
    this.#pollMs = options.pollMs ?? 500;
    this.#takeOver = options.takeOver;
    this.#presence = options.presence;
  }

  /**
   * Registers an answer to `askerId`'s question in `threadKey` (of `channelKey`) as stoppable.
   * The records are written while the answer starts, not before: the first text waits for no
   * store round trip (a stop in this process needs none; another process finds them a
   * moment later). `journal` names the answer's record in the answer journal, if it has one.
   */
  begin(threadKey: string, askerId: string, channelKey: string, journal?: string): RunningAnswer {
    const id = randomBytes(12).toString("base64url");
    const stop = new AbortController();
    this.#local.set(id, { stop, threadKey, askerId, channelKey });
    // A thread writes one answer at a time (its queue), so its key names the one running.
    const streamer = this.#presence.id;
    // The sign of life first: records of a process that shows none read as left by a dead one.
    const registered = this.#presence
      .join()
      .then(() =>
        Promise.all([
          this.#store.set(
            threadRunKey(threadKey),
            { id, askerId, process: streamer, journal },
            RUNNING_TTL_MS,
          ),
          this.#store.set(
            runKey(id),
            { askerId, channelKey, process: streamer, journal },
            RUNNING_TTL_MS,
          ),
        ]),
      )
      .catch((error: unknown) => {
        // The answer goes on all the same; an outage the store logged once needs no line each.
        if (!(error instanceof StoreUnavailableError && error.duringOutage)) {
          this.#log.warn({ err: error }, "the answer could not be made stoppable");
        }
      });
    if (this.#shared && !this.#poller) {
      this.#poller = setInterval(() => void this.#poll(), this.#pollMs);
      this.#poller.unref();
    }
    return {
      id,
      signal: stop.signal,
      end: async () => {
        this.#local.delete(id);
        if (this.#local.size === 0) {
          clearInterval(this.#poller);
          this.#poller = undefined;
        }
        await registered;
        await Promise.all([
          this.#deleteIfOurs(threadKey, id),
          this.#store.delete(runKey(id)),
          this.#store.delete(stopKey(id)),
        ]).catch(() => undefined);
      },
    };
  }

  /** `/stop` in a thread: stops the answer being written there, if `by` may. */
  async stopInThread(threadKey: string, by: Stopper): Promise<StopOutcome> {
    for (const [id, answer] of this.#local) {
      if (answer.threadKey === threadKey) return this.#stop(id, answer.askerId, by);
    }
    const parsed = runningRecord.safeParse(await this.#store.get(threadRunKey(threadKey)));
    if (!parsed.success || (await this.#abandoned(parsed.data.process))) return "none";
    return this.#stop(parsed.data.id, parsed.data.askerId, by, parsed.data.journal);
  }

  /**
   * A Stop button pressed in `channelKey`: stops the answer `id`, if it still runs there and
   * `by` may. The id came back from a client: an answer of another channel is "none".
   */
  async stopById(id: string, channelKey: string, by: Stopper): Promise<StopOutcome> {
    if (!ANSWER_ID.test(id)) return "none";
    const local = this.#local.get(id);
    if (local) return local.channelKey === channelKey ? this.#stop(id, local.askerId, by) : "none";
    const parsed = runRecord.safeParse(await this.#store.get(runKey(id)));
    if (!parsed.success || parsed.data.channelKey !== channelKey) return "none";
    if (await this.#abandoned(parsed.data.process)) return "none";
    return this.#stop(id, parsed.data.askerId, by, parsed.data.journal);
  }

  /** The answer's process (another one) shows no sign of life: it was killed. */
  async #abandoned(streamer: string | undefined): Promise<boolean> {
    if (streamer === undefined || streamer === this.#presence.id) return false;
    const [alive] = await this.#presence.alive([streamer]);
    return !alive;
  }

  async #stop(
    id: string,
    askerId: string,
    by: Stopper,
    journal?: string | undefined,
  ): Promise<StopOutcome> {
    if (by.id !== askerId && !(await by.isAdmin())) return "refused";
    const local = this.#local.get(id);
    if (local) {
      local.stop.abort(new AnswerStoppedError(by.name));
    } else {
      await this.#store.set(stopKey(id), { name: by.name }, RUNNING_TTL_MS);
      if (journal !== undefined) void this.#takeOverUntaken(id, journal, by.name);
    }
    return "stopped";
  }

  /**
   * The answer's process takes a stop request within a poll and removes it (so does the
   * answer's end). One that lets it lie for a few polls is gone even if its sign of life has
   * not lapsed yet (killed a moment ago): the answer is ended here, with the stopped note.
   * The request stays, so a process that only hung stops the answer too when it wakes.
   */
  async #takeOverUntaken(id: string, journal: string, by: string | undefined): Promise<void> {
    if (!this.#takeOver) return;
    try {
      const deadline = performance.now() + TAKE_WITHIN_POLLS * this.#pollMs;
      while (performance.now() < deadline) {
        await sleep(this.#pollMs / 5);
        if ((await this.#store.get(stopKey(id))) === undefined) return;
      }
      await this.#takeOver(journal, by);
    } catch (error) {
      this.#log.warn({ err: error }, "a stopped answer whose process is gone could not be ended");
    }
  }

  /** Stop requests other processes left for the answers streaming here. */
  async #poll(): Promise<void> {
    const running = [...this.#local].filter(([, answer]) => !answer.stop.signal.aborted);
    if (running.length === 0) return;
    try {
      const requests = await this.#store.getMany(running.map(([id]) => stopKey(id)));
      requests.forEach((request, i) => {
        const parsed = stopRecord.safeParse(request);
        const stop = running[i]?.[1].stop;
        const id = running[i]?.[0];
        if (parsed.success && stop && id && !stop.signal.aborted) {
          stop.abort(new AnswerStoppedError(parsed.data.name));
          // Taken: the process that wrote the request sees this one is alive.
          void this.#store.delete(stopKey(id)).catch(() => undefined);
        }
      });
    } catch {
      // The store is down: the outage is logged by the store; a stop waits for it.
    }
  }

  async #deleteIfOurs(threadKey: string, id: string): Promise<void> {
    const parsed = runningRecord.safeParse(await this.#store.get(threadRunKey(threadKey)));
    if (parsed.success && parsed.data.id === id) await this.#store.delete(threadRunKey(threadKey));
  }
}

/** Records in this process's memory: they end with the answer, or with the process. */
class MemoryRecords implements AnswerRecords {
  readonly #values = new Map<string, unknown>();

  async get<T>(key: string): Promise<T | undefined> {
    return this.#values.get(key) as T | undefined;
  }

  async getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]> {
    return keys.map((key) => this.#values.get(key) as T | undefined);
  }

  async set(key: string, value: unknown): Promise<void> {
    this.#values.set(key, value);
  }

  async delete(key: string): Promise<boolean> {
    return this.#values.delete(key);
  }
}

/** An answer's id as begin() makes it (12 random bytes, base64url): a press names no other. */
const ANSWER_ID = /^[A-Za-z0-9_-]{16}$/;

// Outlives the longest answer (CHATBOT_ANSWER_TIMEOUT_MS is a few minutes); a process killed
// mid-answer leaves keys that lapse.
const RUNNING_TTL_MS = 60 * 60 * 1000;

const threadRunKey = (threadKey: string) => `answer:running:${threadKey}`;
const runKey = (id: string) => `answer:run:${id}`;
const stopKey = (id: string) => `answer:stop:${id}`;

/** A stop request left this many polls (2 s at the default 500 ms) was not taken. */
const TAKE_WITHIN_POLLS = 4;
