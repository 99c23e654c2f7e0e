import { randomBytes } from "node:crypto";
import { z } from "zod";
import { AnswerStoppedError } from "../errors.ts";
import type { Translator } from "../i18n/translator.ts";
import type { Logger } from "../log.ts";
import type { ProcessSignals } from "./signals.ts";

/** Who asks to stop an answer, as the answer's check needs them. */
export interface Stopper {
  id: string;
  /** Shown in the stopped note. */
  name: string | undefined;
  isAdmin(): Promise<boolean>;
  /** A person of the company takes the thread over (src/handover/): the notes say "paused". */
  tookOver?: boolean;
}

export type StopOutcome = "stopped" | "refused" | "none";

/**
 * The note a stop leaves, in the language of `t`: on an answer ("⏹ stopped by Ann") or on a
 * question that waited ("⏹ withdrawn by Ann…"); "⏹ paused: Ann from Sales took over" for a
 * hand-over (`tookOver`).
 */
export function stopNote(
  t: Translator,
  by: { name: string | undefined; tookOver?: boolean | undefined },
  on: "answer" | "question" = "answer",
): string {
  if (!by.name) return t.t(on === "answer" ? "stopped" : "withdrawn");
  const key = by.tookOver ? "pausedBy" : on === "answer" ? "stoppedBy" : "withdrawnBy";
  return t.t(key, { name: by.name });
}

/** What a stop in a thread did: to the answer streaming there, and to the questions waiting. */
export interface ThreadStop {
  answer: StopOutcome;
  /** Questions waiting for room that were withdrawn, never to be asked. */
  withdrawn: number;
  /** Questions waiting for room that `by` may not withdraw (another's, and not an admin). */
  refused: number;
}

/** An answer being written, as AnswerStops knows it until it ends. */
export interface RunningAnswer {
  /** Names the answer in a Stop button. */
  readonly id: string;
  /** Aborts, with an AnswerStoppedError, once someone allowed to stops the answer. */
  readonly signal: AbortSignal;
  /** The answer is over: it can no longer be stopped. */
  end(): void;
}

/** A question waiting for room with a notice on screen: a stop in its thread withdraws it. */
export interface Withdrawable {
  askerId: string;
  /**
   * Ends it, never to be asked, its notice saying so (`tookOver`: paused for a person of the
   * company); false when its answer began meanwhile.
   */
  withdraw(by: string | undefined, tookOver: boolean): Promise<boolean>;
}

/**
 * Ends the answer of a process that is gone (killed a moment ago) from its journal record:
 * the text it had, with the stopped note. True when there was one to end.
 */
export type TakeOverStop = (
  target: { threadKey: string } | { answerId: string; channelKey: string },
  by: Pick<Stopper, "name" | "tookOver">,
  answered: ReadonlySet<string>,
) => Promise<boolean>;

interface LocalAnswer {
  stop: AbortController;
  threadKey: string;
  askerId: string;
  channelKey: string;
}

const stopRequest = z.object({
  threadKey: z.string().optional(),
  answerId: z.string().optional(),
  channelKey: z.string().optional(),
  by: z.object({
    id: z.string(),
    name: z.string().optional(),
    admin: z.boolean(),
    tookOver: z.boolean().optional(),
  }),
});
type StopRequest = z.infer<typeof stopRequest>;

const stopReply = z.object({
  answer: z.enum(["stopped", "refused", "none"]),
  withdrawn: z.number(),
  refused: z.number(),
});
type StopReply = z.infer<typeof stopReply>;
/** The replies together, with the processes that answered when every one that heard did. */
type Gathered = StopReply & { answered: ReadonlySet<string> | undefined };

const STOP = "stop";
/** How long a stop waits for the processes it reached (one that hangs says nothing). */
const REPLY_WITHIN_MS = 2_000;

/**
 * What can be stopped, and the stops: the answers streaming in this process and the questions
 * waiting here for room, kept in memory, and a stop asked anywhere in the deployment. A stop
 * is tried here first; if nothing here matches, it is sent to every other process
 * (ProcessSignals.request), each of which stops what it has. So an answer costs no store call
 * to be stoppable, and a stop costs one message per process.
 *
 * An answer whose process was killed a moment ago is ended from its journal record (the
 * takeOver callback) when every process that heard the stop said it had no such answer: a
 * process that did not hear it is no longer connected. Its text stays, with the stopped note.
 */
export class AnswerStops {
  readonly #signals: ProcessSignals;
  readonly #log: Logger;
  readonly #takeOver: TakeOverStop | undefined;
  readonly #answers = new Map<string, LocalAnswer>();
  readonly #waiting = new Map<string, Set<Withdrawable>>();

  constructor(options: { signals: ProcessSignals; log: Logger; takeOver?: TakeOverStop }) {
    this.#signals = options.signals;
    this.#log = options.log;
    this.#takeOver = options.takeOver;
    options.signals.onRequest(STOP, (body) => this.#onRequest(body));
  }

  /** Registers an answer to `askerId`'s question in `threadKey` (of `channelKey`) as stoppable. */
  begin(threadKey: string, askerId: string, channelKey: string): RunningAnswer {
    const id = randomBytes(12).toString("base64url");
    const stop = new AbortController();
    this.#answers.set(id, { stop, threadKey, askerId, channelKey });
    return { id, signal: stop.signal, end: () => this.#answers.delete(id) };
  }

  /** Lists a question waiting for room in `threadKey`; returns the way to take it off. */
  waiting(threadKey: string, question: Withdrawable): () => void {
    const waiting = this.#waiting.get(threadKey) ?? new Set();
    this.#waiting.set(threadKey, waiting);
    waiting.add(question);
    return () => {
      waiting.delete(question);
      if (waiting.size === 0) this.#waiting.delete(threadKey);
    };
  }

  /**
   * `/stop` in a thread: withdraws the questions waiting there for room that `by` may
   * withdraw, and stops the answer streaming there if `by` may, wherever each is.
   */
  async stopInThread(threadKey: string, by: Stopper): Promise<ThreadStop> {
    const here = await this.#stopHere({ threadKey }, by);
    // An answer streams in a thread, or its next question waits for room (it does only once
    // its turn came): never both, so what was found here is all there is.
    if (here.answer !== "none" || here.withdrawn > 0) return here;
    const all = await this.#ask({ threadKey }, by, here);
    const { withdrawn, refused } = all;
    if (await this.#takeOverIfGone({ threadKey }, by, all)) {
      return { answer: "stopped", withdrawn, refused };
    }
    return { answer: all.answer, withdrawn, refused };
  }

  /**
   * A Stop button pressed in `channelKey`: stops the answer `id`, if it still runs there and
   * `by` may. The id came back from a client: an answer of another channel is "none".
   */
  async stopById(answerId: string, channelKey: string, by: Stopper): Promise<StopOutcome> {
    if (!ANSWER_ID.test(answerId)) return "none";
    const target = { answerId, channelKey };
    const here = await this.#stopHere(target, by);
    if (here.answer !== "none") return here.answer;
    const all = await this.#ask(target, by, here);
    if (await this.#takeOverIfGone(target, by, all)) return "stopped";
    return all.answer;
  }

  /** Sends the stop to the other processes, asking who `by` is only once one needs it. */
  async #ask(target: Omit<StopRequest, "by">, by: Stopper, here: StopReply): Promise<Gathered> {
    const first = await this.#gather(target, by, false);
    if (first.answer !== "refused" && first.refused === 0) {
      return { ...combine(here, first), answered: first.answered };
    }
    // Refused somewhere: only its asker or an admin may; ask again once it is known which.
    if (!(await by.isAdmin())) return { ...combine(here, first), answered: undefined };
    const again = await this.#gather(target, by, true);
    return {
      ...combine(here, { ...again, withdrawn: first.withdrawn + again.withdrawn }),
      answered: undefined,
    };
  }

  /** A killed process's answer, ended from its journal when the stop found it nowhere. */
  async #takeOverIfGone(
    target: Parameters<TakeOverStop>[0],
    by: Stopper,
    all: Gathered,
  ): Promise<boolean> {
    if (all.answer !== "none" || !all.answered || !this.#takeOver) return false;
    const stopper = { name: by.name, tookOver: by.tookOver ?? false };
    return this.#takeOver(target, stopper, all.answered).catch((error: unknown) => {
      this.#log.warn({ err: error }, "a stopped answer whose process is gone could not be ended");
      return false;
    });
  }

  async #gather(target: Omit<StopRequest, "by">, by: Stopper, admin: boolean): Promise<Gathered> {
    const request: StopRequest = {
      ...target,
      by: { id: by.id, name: by.name, admin, ...(by.tookOver && { tookOver: true }) },
    };
    const gathered = await this.#signals
      .request(STOP, request, REPLY_WITHIN_MS)
      .catch((error: unknown) => {
        this.#log.warn({ err: error }, "could not ask the other processes to stop an answer");
        return undefined;
      });
    let result: Gathered = { answer: "none", withdrawn: 0, refused: 0, answered: undefined };
    if (!gathered) return result;
    for (const { body } of gathered.replies) {
      const reply = stopReply.safeParse(body);
      if (reply.success) result = { ...combine(result, reply.data), answered: undefined };
    }
    // Every process that heard it said so: one that did not is not connected any more.
    const complete = gathered.replies.length >= gathered.reached;
    return {
      ...result,
      answered: complete ? new Set(gathered.replies.map(({ from }) => from)) : undefined,
    };
  }

  #onRequest(body: unknown): Promise<StopReply> | StopReply {
    const request = stopRequest.safeParse(body);
    if (!request.success) return { answer: "none", withdrawn: 0, refused: 0 };
    const { by, ...target } = request.data;
    return this.#stopHere(target, {
      id: by.id,
      name: by.name,
      isAdmin: async () => by.admin,
      tookOver: by.tookOver ?? false,
    });
  }

  /** Stops what matches `target` in this process. */
  async #stopHere(target: Omit<StopRequest, "by">, by: Stopper): Promise<StopReply> {
    let withdrawn = 0;
    let refused = 0;
    if (target.threadKey !== undefined) {
      for (const question of [...(this.#waiting.get(target.threadKey) ?? [])]) {
        if (question.askerId !== by.id && !(await by.isAdmin())) refused += 1;
        else if (await question.withdraw(by.name, by.tookOver ?? false)) withdrawn += 1;
      }
    }
    const found = this.#find(target);
    if (!found) return { answer: "none", withdrawn, refused };
    const [, answer] = found;
    if (answer.askerId !== by.id && !(await by.isAdmin())) {
      return { answer: "refused", withdrawn, refused };
    }
    answer.stop.abort(new AnswerStoppedError(by.name, by.tookOver ?? false));
    return { answer: "stopped", withdrawn, refused };
  }

  #find(target: Omit<StopRequest, "by">): [string, LocalAnswer] | undefined {
    if (target.answerId !== undefined) {
      const answer = this.#answers.get(target.answerId);
      return answer && answer.channelKey === target.channelKey
        ? [target.answerId, answer]
        : undefined;
    }
    for (const entry of this.#answers) {
      if (entry[1].threadKey === target.threadKey && !entry[1].stop.signal.aborted) return entry;
    }
    return undefined;
  }
}

/** Two processes' replies as one: what stopped wins, then what was refused. */
function combine(a: StopReply, b: StopReply): StopReply {
  const answer =
    a.answer === "stopped" || b.answer === "stopped"
      ? "stopped"
      : a.answer === "refused" || b.answer === "refused"
        ? "refused"
        : "none";
  return { answer, withdrawn: a.withdrawn + b.withdrawn, refused: a.refused + b.refused };
}

/** An answer's id as begin() makes it (12 random bytes, base64url): a press names no other. */
const ANSWER_ID = /^[A-Za-z0-9_-]{16}$/;
