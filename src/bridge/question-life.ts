import { createHash, randomUUID } from "node:crypto";
import { DEFAULTS } from "../config.ts";
import type { Coordination } from "../coordination/port.ts";
import type { QueueJob, SharedQueue } from "../coordination/shared-queue.ts";
import { NotStartedError, userTextOf } from "../errors.ts";
import { type Translator, translator } from "../i18n/translator.ts";
import type { AnswerJournal } from "../journal/answer-journal.ts";
import type { JournaledAnswer } from "../journal/journaled-answer.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics.ts";
import type { Channel, IncomingMessage, MessageRef, ReplySurface } from "../ports.ts";
import { AnswerWriter } from "../reply/answer-writer.ts";
import { sendNotice } from "../reply/notice.ts";
import { readThreadContext, type ThreadContext } from "../store/repositories.ts";
import type { KeyValueStore } from "../store/types.ts";
import { type AnswerDeps, type AnswerReport, answerQuestion } from "./answer-question.ts";
import type { AnswerQueue, QueuePlace } from "./answer-queue.ts";
import { type Command, type CommandProblem, parseCommand } from "./commands.ts";
import type { QuestionContexts } from "./question-context.ts";
import type { QueuedNotices } from "./queued-notices.ts";
import {
  decideFate,
  fateOf,
  firstOf,
  QUEUED_TICKET_MS,
  queuedRecordOf,
  readQueuedQuestion,
  takeQueuedNotice,
} from "./queued-question.ts";
import type { ThreadQueue, ThreadTurn } from "./thread-queue.ts";

/**
 * Every state a question passes through, from its arrival to its last word (the diagram in
 * docs/architecture.md draws them and their transitions). Each change is one debug line
 * naming the question, so "why did this answer wait?" is answered in one place.
 */
/** The states in which a question's life ends in this process. */
const END_STATES = ["done", "refused", "stopped", "cut", "failed", "handed over"] as const;

export const QUESTION_STATES = [
  "received",
  "waiting for its thread",
  "waiting for room",
  "answering",
  "finishing",
  ...END_STATES,
] as const;

export type QuestionState = (typeof QUESTION_STATES)[number];

type EndState = (typeof END_STATES)[number];

/** A question waiting in this process with a notice on screen, as a stop in its thread withdraws it. */
export interface LocalWaiter {
  askerId: string;
  /** Ends its notice saying so; false when it can no longer be withdrawn (its answer began). */
  withdraw(name: string | undefined): Promise<boolean>;
}

/** What every question's life uses: the bridge's parts, shared by all of them. */
export interface LifeDeps {
  store: KeyValueStore & Coordination;
  log: Logger;
  metrics: Metrics | undefined;
  journal: AnswerJournal | undefined;
  maxAnswerChars: number;
  typingDelayMs: number | undefined;
  answer: AnswerDeps;
  /** What the chatbot receives of a question: a first one carries its discussion. */
  contexts: QuestionContexts;
  threads: ThreadQueue;
  answerQueue: AnswerQueue;
  sharedQueue: SharedQueue | undefined;
  notices: QueuedNotices | undefined;
  /** Ends every answer at a shutdown past its grace. */
  signal: AbortSignal;
  /** The part of a delivery's life before it is known to be a question (bridge.ts). */
  intake: Intake;
  /** Lists a question waiting with a notice under its thread; returns the way to take it off. */
  register(threadKey: string, waiter: LocalWaiter): () => void;
  /** Tells the asker why the question failed (once per channel where nothing can be shown). */
  reportFailure(error: unknown, question: ShownTo): Promise<void>;
  /** Logs a failure the asker was told of already, as the operator needs it. */
  logFailure(error: unknown, log: Logger): void;
  /** An answer ended: its figures go to the metrics. */
  record(message: IncomingMessage, report: AnswerReport): void;
}

/** The checks a delivery passes before it is a question: duplicates, access, commands. */
export interface Intake {
  /** False when this delivery was handled already (a platform's retry, another process). */
  claim(message: IncomingMessage): Promise<boolean>;
  /**
   * The translator for the asker: from the channel's language in `context` once it was read,
   * else read for it (a refusal or a command before the question's turn).
   */
  translatorFor(message: IncomingMessage, context?: ThreadContext): Promise<Translator>;
  /** Why the asker may not use the bot here at all (commands included), if so. */
  accessRefusal(message: IncomingMessage): Parameters<Translator["text"]>[0] | undefined;
  /** Why this question is refused (a rate limit, a length), if it is. */
  questionRefusal(message: IncomingMessage): Promise<Parameters<Translator["text"]>[0] | undefined>;
  runCommand(
    command: Command | CommandProblem,
    message: IncomingMessage,
    surface: ReplySurface,
    turn: ThreadTurn,
    t: Translator,
  ): Promise<void>;
}

/** Where a question's replies go, and in which language. */
export interface ShownTo {
  message: IncomingMessage;
  surface: ReplySurface;
  log: Logger;
  t: Translator;
}

/** A question once its surface, language and places are known. */
interface Question extends ShownTo {
  turn: ThreadTurn;
  place: QueuePlace;
  /** When it arrived (performance.now() of this process); durations count from here. */
  receivedAt: number;
  /** Taken from the deployment's queue: its entry, and the notice its receiving process showed. */
  taken?: { job: QueueJob; shown: { ref: MessageRef; note: string } | undefined };
  /** Its record in the journal, taken while it waited for its thread (none when it did not). */
  record?: Promise<JournaledAnswer | undefined>;
  /**
   * What the chatbot receives: read once its thread's conversation is known (a first question
   * carries its discussion), or as the receiving process read it for one taken from the queue.
   */
  asked?: Promise<string>;
}

/**
 * One question's life, from the delivery to its last word: the one state machine every
 * question runs, whether answered where it arrived or taken from the deployment's queue
 * (docs/architecture.md, "A question's life"). It owns what the question holds while it
 * lives: its place in its thread's line, its place under the cap or in the shared queue,
 * its notice, its journal record and its stop.
 */
export class QuestionLife {
  readonly #deps: LifeDeps;
  #id: string;
  #state: QuestionState = "received";
  #log: Logger;

  constructor(deps: LifeDeps, id: string = newQuestionId()) {
    this.#deps = deps;
    this.#id = id;
    this.#log = deps.log;
  }

  /** A delivery to this process; resolves when its reply is complete on the surface. */
  async arrive(message: IncomingMessage, surface: ReplySurface): Promise<void> {
    const receivedAt = performance.now();
    const { intake, threads, answerQueue, sharedQueue } = this.#deps;
    // The place in the thread's line is taken before anything is awaited, so questions
    // are answered in the order they were delivered.
    const turn = threads.enter(message.threadKey);
    this.#begin(message, "arrived");
    // A question's language is read with its thread's context once its turn came; a reply
    // before that reads it on its own, and until then a failure is told in English.
    const shown: ShownTo = { message, surface, log: this.#log, t: translator("en") };
    let known = false;
    const speak = async () => {
      shown.t = await intake.translatorFor(message);
      known = true;
      return shown.t;
    };
    let place: QueuePlace | undefined;
    try {
      if (!(await intake.claim(message))) return this.#end("refused", "delivery already handled");
      // The allowlists hold for commands too: `/leads subscribe` must not open a channel
      // the operator did not allow.
      const denied = intake.accessRefusal(message);
      if (denied) {
        await sendNotice(surface, (await speak()).text(denied), { private: true });
        return this.#end("refused", "not allowed here");
      }
      const command = parseCommand(message.text, {
        bare: message.bareCommands,
        chatbots: this.#deps.answer.chatbots.names,
      });
      if (command) {
        await intake.runCommand(command, message, surface, turn, await speak());
        return this.#end("done", "a command");
      }
      const refusal = await intake.questionRefusal(message);
      if (refusal) {
        await sendNotice(surface, (await speak()).text(refusal), { private: true });
        return this.#end("refused", "a guard");
      }
      // With the deployment's queue, that queue bounds what waits: nothing is refused here.
      place = answerQueue.enter({ unbounded: sharedQueue !== undefined });
      if (!place) {
        await speak();
        return this.#end("refused", await this.#refuseBusy(shown));
      }
      this.#end(await this.#live(Object.assign(shown, { turn, place, receivedAt })));
    } catch (error) {
      this.#end("failed", "an error before the answer");
      if (!known) await speak().catch(() => undefined);
      await this.#deps.reportFailure(error, shown);
    } finally {
      if (place) this.#release({ place, turn });
      else turn.leave();
    }
  }

  /** A question taken from the deployment's queue, received here or by another process. */
  async take(job: QueueJob, channels: readonly Channel[]): Promise<void> {
    const { answerQueue, store, notices } = this.#deps;
    // The room is taken before anything is awaited, so the queue takes no more than it has.
    const place = answerQueue.enter({ taken: true });
    if (!place) return;
    try {
      const queued = readQueuedQuestion(job.value);
      if (!queued) {
        this.#deps.log.warn("a question in the shared queue was unreadable and is dropped");
        return;
      }
      const { message, ticket, receivedAt } = queued;
      if (queued.id) this.#id = queued.id;
      this.#begin(message, "taken from the shared queue");
      const waiting = { askerId: message.authorId, ticket };
      // Withdrawn by its asker meanwhile: its ticket was given back, its notice says so.
      if ((await fateOf(store, [job.id]))[0] === "withdrawn") return this.#end("stopped");
      const turn = this.#deps.threads.adopt(message.threadKey, ticket, QUEUED_TICKET_MS);
      try {
        const notice = await takeQueuedNotice(store, job.id);
        const reopened = notice && firstOf(channels, (c) => c.reopen?.(notice.saved));
        const surface =
          reopened?.surface ?? firstOf(channels, (c) => c.surfaceFor?.(message.replyPlace));
        if (!surface) {
          this.#log.warn("a queued question is for a channel this process does not run: dropped");
          return this.#end("refused", "a channel this process does not run");
        }
        const shown = reopened && notice ? { ref: reopened.ref, note: notice.text } : undefined;
        const question: Question = {
          message,
          surface,
          log: this.#log,
          t: translator(queued.language),
          turn,
          place,
          receivedAt: performance.now() - (Date.now() - receivedAt),
          taken: { job, shown },
          ...(queued.asked !== undefined && { asked: Promise.resolve(queued.asked) }),
        };
        try {
          this.#end(await this.#live(question));
        } catch (error) {
          // Before its answer could show it (the store failed reading its thread's context).
          this.#end("failed", "an error before the answer");
          await this.#deps.reportFailure(error, question);
        }
      } finally {
        this.#release({ place, turn });
        await notices?.forget(job.id, message.threadKey, waiting);
      }
    } finally {
      this.#release({ place });
    }
  }

  /** From its thread's line to its last word: the same for every question. */
  async #live(question: Question): Promise<EndState> {
    this.#to("waiting for its thread");
    let answering = false;
    try {
      // No notice while it waits here: the person sees the answer ahead of it moving, and a
      // notice posted now would land above that answer. The journal keeps it meanwhile, so
      // a kill does not lose it without a word.
      await question.turn.wait(() => {
        question.record = this.#journalWaiting(question);
      });
      // Read now, not on arrival: the answer ahead in the thread may have changed it.
      const { message } = question;
      const { store, intake, sharedQueue } = this.#deps;
      const context = await readThreadContext(store, message.threadKey, message.channelKey);
      if (!question.taken) question.t = await intake.translatorFor(message, context);
      // Read while it waits for room: it never fails, and never waits past its bound.
      question.asked ??= this.#deps.contexts.asked(message, context.conversationUid, question.t);
      this.#to("waiting for room");
      if (sharedQueue && !question.taken && !question.place.tryStart()) {
        return await this.#handOver(sharedQueue, question);
      }
      answering = true;
      return await this.#answer(question, context);
    } finally {
      // Its answer closes the record; handed over or failed before, it is done with here.
      if (!answering) await (await question.record)?.close();
    }
  }

  /**
   * Puts a question this process has no room for into the deployment's queue, with its
   * thread's ticket, for whichever process has room first; tells the person its place if no
   * process takes it at once.
   */
  async #handOver(shared: SharedQueue, question: Question): Promise<EndState> {
    const { message, surface, t, turn, place } = question;
    place.leave();
    const asked = await question.asked;
    const ticket = await turn.handOff(QUEUED_TICKET_MS);
    const giveBack = async () => {
      if (ticket) await this.#deps.threads.giveBack(message.threadKey, ticket);
    };
    const added = await shared
      .push(queuedRecordOf(this.#id, message, ticket, t.language, asked))
      .catch(async (error: unknown) => {
        // The ticket goes back with the question: nothing else will use it.
        await giveBack();
        throw error;
      });
    if (!added) {
      await giveBack();
      this.#end("refused", await this.#refuseBusy(question));
      return "refused";
    }
    this.#to("handed over", { place: added.place });
    const waiting = { askerId: message.authorId, ticket };
    await this.#deps.notices?.show(added.id, message.threadKey, waiting, surface, t);
    return "handed over";
  }

  /** Waits for room under the cap, then streams the answer; returns how it ended. */
  async #answer(question: Question, context: ThreadContext): Promise<EndState> {
    const { message, surface, t, place, taken } = question;
    const { journal, metrics } = this.#deps;
    // From its first message (a "queued" note, its first text) to its end, the answer is in
    // the journal: after a kill, the next start finishes it with the interrupted note.
    const record = question.record
      ? await question.record
      : surface.persistRef
        ? journal?.track(message.channel, t.language)
        : undefined;
    const channel = message.channel;
    const writer = new AnswerWriter(surface, {
      maxAnswerChars: this.#deps.maxAnswerChars,
      notes: { truncated: t.t("truncated"), noAnswer: t.t("noAnswer") },
      typingText: t.t("statusThinking"),
      typingDelayMs: this.#deps.typingDelayMs ?? DEFAULTS.typingDelayMs,
      onCall: (kind) =>
        (kind === "rate-limited" ? metrics?.rateLimited : metrics?.edits)?.inc({ channel }),
      onMessage: record && ((event) => record.update(event)),
    });
    /** A notice is on screen: the answer takes it over, a failure ends it with the error. */
    let noticed = false;
    if (taken?.shown) {
      writer.adoptNote(taken.shown.ref, taken.shown.note);
      noticed = true;
    }
    let withdrawn: Promise<unknown> | undefined;
    try {
      const waiter: LocalWaiter = {
        askerId: message.authorId,
        withdraw: async (name) => {
          if (!noticed || withdrawn || this.#state !== "waiting for room") return false;
          const note = name ? t.t("withdrawnBy", { name }) : t.t("withdrawn");
          withdrawn = writer.finish({ kind: "stopped", note }).catch((error: unknown) => {
            this.#log.warn({ err: error }, "could not show that a queued question was withdrawn");
          });
          await withdrawn;
          return true;
        },
      };
      // A question taken from the deployment's queue is withdrawn there (QueuedNotices).
      const unlist = taken ? undefined : this.#deps.register(message.threadKey, waiter);
      let inLine: Promise<void> | undefined;
      try {
        await place.start((number) => {
          this.#log.debug({ place: number }, "question waits for room");
          inLine = writer.showNote(t.t("numberInLine", { place: number })).then(
            () => {
              noticed = true;
            },
            // Only a courtesy: the question keeps its place and is answered all the same.
            (error: unknown) =>
              this.#log.warn({ err: error }, "could not show that a question is queued"),
          );
        });
      } finally {
        // The answer (or the refusal at a shutdown) takes over that notice: it must be there.
        await inLine;
        unlist?.();
      }
      if (withdrawn) return "stopped";
      if (taken) await this.#beginTaken(question, taken.job);
      this.#to("answering");
      metrics?.activeAnswers.inc();
      let report: AnswerReport;
      try {
        report = await answerQuestion(
          { ...this.#deps.answer, log: this.#log },
          message,
          writer,
          surface,
          {
            receivedAt: question.receivedAt,
            signal: this.#deps.signal,
            t,
            journal: record?.id,
            context,
            question: question.asked,
          },
        );
      } finally {
        metrics?.activeAnswers.dec();
        // The thread's next question may begin: this answer is complete on screen.
        this.#release(question);
      }
      this.#to("finishing", { outcome: report.end });
      this.#finished(question, report);
      return END_OF[report.end];
    } catch (error) {
      return await this.#failed(error, question, writer, noticed, withdrawn !== undefined);
    } finally {
      await record?.close();
    }
  }

  /** Its record in the journal while it waits for its thread with nothing on screen. */
  async #journalWaiting({
    message,
    surface,
    taken,
    t,
  }: Question): Promise<JournaledAnswer | undefined> {
    const { journal, intake } = this.#deps;
    if (!surface.persistRef || !journal) return undefined;
    // Its language is known once its turn came; the note after a kill needs it before.
    const language = taken
      ? t.language
      : (await intake.translatorFor(message).catch(() => t)).language;
    const record = journal.track(message.channel, language);
    record?.waiting(message.replyPlace);
    return record;
  }

  /**
   * A question from the deployment's queue is answered here for good: its fate is decided
   * (no stop withdraws it from now), a place being written into its notice lands first, and
   * its entry leaves the queue.
   */
  async #beginTaken(question: Question, job: QueueJob): Promise<void> {
    const { store, metrics, notices } = this.#deps;
    if (!(await decideFate(store, job.id, "answered"))) throw new WithdrawnError();
    await notices?.landed(job.id);
    if (!(await job.begin())) throw new TakenOverError();
    question.turn.begun();
    metrics?.queueWait.observe(Math.max(0, performance.now() - question.receivedAt) / 1000);
  }

  /** How a failure ends the question: shown in its notice, said in a reply, or silent. */
  async #failed(
    error: unknown,
    question: Question,
    writer: AnswerWriter,
    noticed: boolean,
    withdrawn: boolean,
  ): Promise<EndState> {
    // Withdrawn here, or by a stop another process got (its notice says so either way).
    if (withdrawn || error instanceof WithdrawnError) return "stopped";
    if (question.taken && (error instanceof TakenOverError || error instanceof NotStartedError)) {
      // Another process answers it, in the thread's place: nothing to say here.
      question.turn.abandon();
      return "handed over";
    }
    if (noticed) {
      // The answer never took over its "queued" message: it shows the error instead.
      const note = question.t.t("failed", { reason: userTextOf(error) });
      const shown = await writer.finish({ kind: "error", note }).then(
        () => true,
        () => false,
      );
      if (shown) {
        this.#deps.logFailure(error, this.#log);
        return "failed";
      }
    }
    await this.#deps.reportFailure(error, question);
    return "failed";
  }

  #finished(question: Question, report: AnswerReport): void {
    this.#deps.record(question.message, report);
    this.#log.info(
      {
        outcome: report.end,
        error: report.errorCode,
        firstTextMs: report.firstTextMs && Math.round(report.firstTextMs),
        totalMs: Math.round(report.totalMs),
        messages: report.messages,
        calls: report.calls,
      },
      "question answered",
    );
  }

  /** Frees the question's room and its thread's turn: the next may begin, here or elsewhere. */
  #release({ place, turn }: { place: QueuePlace; turn?: ThreadTurn }): void {
    place.leave();
    turn?.leave();
  }

  async #refuseBusy({ message, surface, t }: ShownTo): Promise<string> {
    this.#deps.metrics?.questionsRefused.inc({ channel: message.channel });
    await sendNotice(surface, t.t("busy"), { private: true });
    return "the bot is busy";
  }

  #begin(message: IncomingMessage, how: string): void {
    this.#log = this.#deps.log.child({
      channel: message.channel,
      thread: hashThread(message.threadKey),
      question: this.#id,
    });
    this.#log.debug({ how }, "question received");
  }

  #to(state: QuestionState, detail?: Record<string, unknown>): void {
    this.#state = state;
    this.#log.debug(detail ?? {}, `question ${state}`);
  }

  /** The end of the question's life in this process (once: the first end stands). */
  #end(state: EndState, why?: string): void {
    if (ENDS.has(this.#state)) return;
    this.#to(state, why === undefined ? undefined : { why });
  }
}

const ENDS: ReadonlySet<QuestionState> = new Set(END_STATES);

const END_OF: Record<AnswerReport["end"], EndState> = {
  complete: "done",
  stopped: "stopped",
  cut: "cut",
  error: "failed",
};

/** The question's queue entry was taken over by another process: it answers it there. */
class TakenOverError extends Error {}

/** The question was withdrawn by its asker's stop before its answer began. */
class WithdrawnError extends Error {}

/** A question's id in the logs: short, and the same on the process that takes it over. */
function newQuestionId(): string {
  return randomUUID().slice(0, 8);
}

/** Threads are logged by a short hash: their keys carry platform ids of people and chats. */
function hashThread(threadKey: string): string {
  return createHash("sha256").update(threadKey).digest("hex").slice(0, 12);
}
