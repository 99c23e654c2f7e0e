import { createHash, randomUUID } from "node:crypto";
import { type AnswerStops, type RunningAnswer, stopNote } from "../coordination/answer-stops.ts";
import type { QueueJob, QueueSlot, SharedQueue } from "../coordination/shared-queue.ts";
import { NotStartedError, userTextOf } from "../errors.ts";
import type { ThreadSide } from "../handover/handover-book.ts";
import type { HandoverDesk } from "../handover/handover-desk.ts";
import { type Translator, translator } from "../i18n/translator.ts";
import type { AnswerJournal } from "../journal/answer-journal.ts";
import type { JournaledAnswer } from "../journal/journaled-answer.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics.ts";
import type { Channel, IncomingMessage, ReplySurface } from "../ports.ts";
import { AnswerWriter } from "../reply/answer-writer.ts";
import { sendNotice } from "../reply/notice.ts";
import { readThreadContext, type ThreadContext } from "../store/repositories.ts";
import type { KeyValueStore } from "../store/types.ts";
import { type QuestionTrace, questionTrace } from "../tracing.ts";
import { type AnswerDeps, type AnswerReport, answerQuestion } from "./answer-question.ts";
import { type Command, type CommandProblem, isCommandProblem, parseCommand } from "./commands.ts";
import type { QuestionContexts } from "./question-context.ts";
import type { Notice, QueuedEnd, QueuedNotices, ShownNotice } from "./queued-notices.ts";
import { queuedRecordOf, readQueuedQuestion } from "./queued-question.ts";
import type { Room, Slot } from "./room.ts";
import type { HandedTicket, ThreadLines, Ticket } from "./thread-lines.ts";

/** The states in which a question's life ends in this process. */
export const END_STATES = [
  "done",
  "relayed",
  "refused",
  "stopped",
  "cut",
  "failed",
  "handed over",
] as const;

/**
 * Every state a question passes through, from its arrival to its last word. docs/architecture.md
 * draws them and NEXT's edges; test/bridge/architecture.test.ts holds the two to each other.
 */
export const QUESTION_STATES = [
  "received",
  "waiting for its thread",
  "queued",
  "taken",
  "answering",
  ...END_STATES,
] as const;

export type QuestionState = (typeof QUESTION_STATES)[number];
export type EndState = (typeof END_STATES)[number];

/**
 * A question's life as a value: each state carries what the question holds in it, and only
 * that. Leaving a state lets go of what it held and the next state does not carry (move()).
 *
 * - its ticket in its thread's line (thread-lines.ts): from its arrival to the end of its answer;
 *   handed on with the question to the deployment's queue, and held there until a process
 *   takes it (an end "handed over" carries it: it is the taker's to let go);
 * - its journal record (src/journal/): while it waits behind an earlier question with nothing
 *   on screen, and while its answer streams;
 * - its notice in the queue (queued-notices.ts) and its listing for a stop (AnswerStops):
 *   while it waits there;
 * - its slot under MAX_ACTIVE_ANSWERS (room.ts), from the moment it is taken to its end;
 * - its stop (AnswerStops): while its answer streams.
 */
export type Life =
  | { at: "received"; ticket?: Ticket | undefined }
  | { at: "waiting for its thread"; ticket: Ticket; record?: JournaledAnswer | undefined }
  | { at: "queued"; ticket: HandedTicket; notice: Notice; listed: () => void }
  | { at: "taken"; slot: QueueSlot; ticket?: Ticket | undefined }
  | {
      at: "answering";
      ticket: Ticket | undefined;
      slot: Slot;
      stop: RunningAnswer;
      record: JournaledAnswer | undefined;
    }
  | { at: "handed over"; why: string; ticket?: HandedTicket | undefined }
  | { at: Exclude<EndState, "handed over">; why: string };

/**
 * Where each state may go: the diagram in docs/architecture.md, edge for edge. A question
 * delivered here begins "received"; one taken from the deployment's queue begins "taken".
 */
export const NEXT: { readonly [S in QuestionState]: readonly QuestionState[] } = {
  received: ["waiting for its thread", "done", "refused", "failed"],
  "waiting for its thread": ["answering", "queued", "relayed", "refused", "failed"],
  queued: ["handed over", "stopped", "failed"],
  taken: ["answering", "relayed", "stopped", "handed over", "refused"],
  answering: ["done", "stopped", "cut", "failed"],
  done: [],
  relayed: [],
  refused: [],
  stopped: [],
  cut: [],
  failed: [],
  "handed over": [],
};

/** The states a life may begin in. */
export const FIRST_STATES: readonly QuestionState[] = ["received", "taken"];

type Held = {
  ticket?: { release(): void } | undefined;
  record?: JournaledAnswer | undefined;
  notice?: Notice | undefined;
  listed?: (() => void) | undefined;
  slot?: { free(): void } | undefined;
  stop?: RunningAnswer | undefined;
};

/**
 * The one transition function: checks the edge, then lets go of what `from` held that `to`
 * does not carry. Returns `to`; an edge NEXT does not have throws, since it is a bug.
 */
export function move(from: Life, to: Life): Life {
  if (!NEXT[from.at].includes(to.at)) {
    throw new Error(`a question cannot go from "${from.at}" to "${to.at}"`);
  }
  const was = from as Held;
  const now = to as Held;
  if (was.ticket && was.ticket !== now.ticket) was.ticket.release();
  if (was.record && was.record !== now.record) void was.record.close();
  if (was.notice && was.notice !== now.notice) was.notice.release();
  if (was.listed && was.listed !== now.listed) was.listed();
  if (was.slot && was.slot !== now.slot) was.slot.free();
  if (was.stop && was.stop !== now.stop) was.stop.end();
  return to;
}

/** What every question's life uses: the bridge's parts, shared by all of them. */
export interface LifeDeps {
  store: KeyValueStore;
  log: Logger;
  metrics: Metrics | undefined;
  journal: AnswerJournal | undefined;
  maxAnswerChars: number;
  typingDelayMs: number;
  answer: AnswerDeps;
  /** The hand-overs (src/handover/handover-desk.ts): a thread in one is a person's to answer. */
  handovers: Pick<HandoverDesk, "relay" | "inHandover"> | undefined;
  /** What the chatbot receives of a question: a first one carries its discussion. */
  contexts: QuestionContexts;
  lines: ThreadLines;
  room: Room;
  queue: SharedQueue;
  notices: QueuedNotices;
  stops: AnswerStops;
  /** This process (ProcessPresence.id): the receiver its queued questions name. */
  processId: string;
  /** Questions this process queued, with what only it has of them (their surface, signal). */
  queuedHere: Map<string, QueuedHere>;
  /** Ends every answer at a shutdown past its grace. */
  signal: AbortSignal;
  /** The process is shutting down: no question begins an answer any more. */
  draining(): boolean;
  /** The part of a delivery's life before it is known to be a question (bridge.ts). */
  intake: Intake;
  /** Tells the asker why the question failed (once per channel where nothing can be shown). */
  reportFailure(error: unknown, question: ShownTo): Promise<void>;
  /** Logs a failure the asker was told of already, as the operator needs it. */
  logFailure(error: unknown, log: Logger): void;
  /** An answer ended: its figures go to the metrics. */
  record(message: IncomingMessage, report: AnswerReport): void;
}

/** A question this process put in the deployment's queue, as only this process has it. */
export interface QueuedHere {
  message: IncomingMessage;
  surface: ReplySurface;
  receivedAt: number;
  /** Settles once its answer ended, when this process took it itself. */
  answered: Promise<void>;
  /** Called by the life that took it here, at its end. */
  end(): void;
}

/** The checks a delivery passes before it is a question: duplicates, access, commands. */
export interface Intake {
  /** True when this process took this delivery a moment ago (no store call). */
  seenHere(message: IncomingMessage): boolean;
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
  /** Runs a command; `turn`, for `/new`, resolves once the answer ahead in its thread is done. */
  runCommand(
    command: Command | CommandProblem,
    message: IncomingMessage,
    surface: ReplySurface,
    t: Translator,
    turn: (() => Promise<void>) | undefined,
  ): Promise<void>;
}

/** Where a question's replies go, and in which language. */
export interface ShownTo {
  message: IncomingMessage;
  surface: ReplySurface;
  log: Logger;
  t: Translator;
}

/** A question whose answer begins: all #answer needs, whichever process took it. */
interface Answerable extends ShownTo {
  ticket: Ticket | undefined;
  slot: Slot;
  /** When it arrived (performance.now() of this process); durations count from here. */
  receivedAt: number;
  /** What the chatbot receives. */
  asked: string;
  /** The thread's conversation and the channel's language and chatbot, read once its turn came. */
  context: ThreadContext;
  /** Its record in the journal, from its wait behind its thread's earlier question. */
  record?: JournaledAnswer | undefined;
  /** The queued notice its answer takes over. */
  shown?: ShownNotice | undefined;
}

/**
 * One question's life, from the delivery to its last word (docs/architecture.md, "A question's
 * life"): arrive() for a delivery to this process, take() for a question taken from the
 * deployment's queue; from "answering" on both run #answer. Every change of state goes
 * through move(), and is one debug line naming the question.
 */
export class QuestionLife {
  readonly #deps: LifeDeps;
  #id: string;
  #life: Life;
  #log: Logger;
  #trace: QuestionTrace = questionTrace();

  constructor(deps: LifeDeps, first: Life = { at: "received" }, id: string = newQuestionId()) {
    this.#deps = deps;
    this.#id = id;
    this.#log = deps.log;
    this.#life = first;
  }

  /**
   * A delivery to this process; resolves when its reply is complete on the surface.
   * `accepted` is called once the delivery is known to be handled here or already (its claim,
   * and a question's place in its thread's line, are in the store): a platform may be told it
   * arrived, and a next question then lines up behind this one.
   */
  async arrive(
    message: IncomingMessage,
    surface: ReplySurface,
    accepted: (taken: boolean) => void = () => {},
  ): Promise<void> {
    const receivedAt = performance.now();
    const { intake } = this.#deps;
    if (intake.seenHere(message)) {
      accepted(false);
      return this.#end("refused", "delivery already handled");
    }
    const command = message.questionsOnly
      ? undefined
      : parseCommand(message.text, {
          bare: message.bareCommands,
          chatbots: this.#deps.answer.chatbots.names,
        });
    this.#begin(message, "arrived");
    // Inside the question's span (its store calls are the question's); `within` runs it at
    // once, so the ticket below is taken before anything is awaited.
    await this.#trace.within(() => this.#received(message, surface, command, receivedAt, accepted));
  }

  /** A delivery received: its ticket, the claim, the guards, a command or the question. */
  async #received(
    message: IncomingMessage,
    surface: ReplySurface,
    command: Command | CommandProblem | undefined,
    receivedAt: number,
    accepted: (taken: boolean) => void,
  ): Promise<void> {
    const { intake, lines } = this.#deps;
    // A question, or `/new`, takes its place in its thread's line before anything is awaited,
    // so questions are answered in the order they were delivered.
    const newConversation = command && !isCommandProblem(command) && command.name === "new";
    const ticket = !command || newConversation ? lines.take(message.threadKey) : undefined;
    this.#life = { at: "received", ticket };
    // A question's language is read with its thread's context once its turn came; a reply
    // before that reads it on its own, and until then a failure is told in English.
    const shown: ShownTo = { message, surface, log: this.#log, t: translator("en") };
    const speak = async () => {
      shown.t = await intake.translatorFor(message);
      return shown.t;
    };
    try {
      const [claimed] = await Promise.all([intake.claim(message), ticket?.joined]).catch(
        (error: unknown) => {
          accepted(true);
          throw error;
        },
      );
      accepted(claimed);
      if (!claimed) return this.#end("refused", "delivery already handled");
      // The allowlists hold for commands too: `/leads subscribe` must not open a channel
      // the operator did not allow.
      // A thread in a hand-over is a person of the company's (src/handover/): the chatbot's
      // allowlists and limits are not for it. Asked only of a message they would refuse.
      const denied = intake.accessRefusal(message);
      if (denied && !(await this.#inHandover(message))) {
        await sendNotice(surface, (await speak()).text(denied), { private: true });
        return this.#end("refused", "not allowed here");
      }
      if (command) {
        const turn = ticket && (() => ticket.turn());
        await intake.runCommand(command, message, surface, await speak(), turn);
        return this.#end("done", "a command");
      }
      const refusal = denied ? undefined : await intake.questionRefusal(message);
      if (refusal && !(await this.#inHandover(message))) {
        await sendNotice(surface, (await speak()).text(refusal), { private: true });
        return this.#end("refused", "a guard");
      }
      if (!ticket) throw new Error("a question arrives with its ticket");
      await this.#waitForThread(message, surface, ticket, shown, receivedAt);
    } catch (error) {
      const known = shown.t.language !== "en" || this.#life.at !== "received";
      this.#end("failed", "an error before the answer");
      if (!known) await speak().catch(() => undefined);
      await this.#deps.reportFailure(error, shown);
    }
  }

  /** A question taken from the deployment's queue, received here or by another process. */
  async take(job: QueueJob, channels: readonly Channel[]): Promise<void> {
    const { queuedHere } = this.#deps;
    this.#life = { at: "taken", slot: job.slot };
    const queued = readQueuedQuestion(job.value);
    if (!queued) {
      this.#deps.log.warn("a question in the shared queue was unreadable and is dropped");
      return this.#end("refused", "unreadable");
    }
    this.#id = queued.id;
    this.#trace = questionTrace(queued.trace);
    const here = queuedHere.get(job.id);
    queuedHere.delete(job.id);
    const message = here?.message ?? queued.message;
    this.#begin(message, "taken from the shared queue");
    try {
      await this.#trace.within(() => this.#takeAnswer(job, channels, queued, here, message));
    } finally {
      here?.end();
    }
  }

  async #takeAnswer(
    job: QueueJob,
    channels: readonly Channel[],
    queued: NonNullable<ReturnType<typeof readQueuedQuestion>>,
    here: QueuedHere | undefined,
    message: IncomingMessage,
  ): Promise<void> {
    const { notices, lines, metrics, store } = this.#deps;
    // Its entry is this process's for good first: a process that took it over meanwhile
    // answers it, and must find its fate open.
    const begun = await job.begin();
    if (begun !== "begun") return this.#end("handed over", begun);
    const taken = await notices.take(job.id, queued.receiver);
    if (taken.fate === "withdrawn") return this.#end("stopped", "withdrawn by its asker");
    const surface =
      here?.surface ?? taken.shown?.surface ?? surfaceFor(channels, message.replyPlace);
    if (!surface) {
      this.#log.warn("a queued question is for a channel this process does not run: dropped");
      return this.#end("refused", "a channel this process does not run");
    }
    const receivedAt = here?.receivedAt ?? performance.now() - (Date.now() - queued.receivedAt);
    metrics?.queueWait.observe(Math.max(0, performance.now() - receivedAt) / 1000);
    const ticket =
      queued.ticket === undefined ? undefined : lines.adopt(message.threadKey, queued.ticket);
    // Held by its state from now: any end lets go of it.
    if (this.#life.at === "taken") this.#life = { ...this.#life, ticket };
    const question: Omit<Answerable, "context"> = {
      message,
      surface,
      log: this.#log,
      t: translator(queued.language),
      ticket,
      slot: job.slot,
      receivedAt,
      asked: queued.asked,
      shown: taken.shown,
    };
    try {
      const context = await readThreadContext(store, message.threadKey, message.channelKey);
      if (context.quiet) return this.#end("refused", "a person of the company has the thread");
      // Queued before its thread was taken over, and not withdrawn by it (its process gone):
      // it goes to the person who took the thread over, as a later message would.
      const side = context.handover;
      if (side?.side === "customer" && (await this.#relay(message, surface, side, question.t))) {
        return this.#end("relayed", "in a hand-over, from the shared queue");
      }
      await this.#answer({ ...question, context });
    } catch (error) {
      // Before its answer could show anything (the store failed reading its thread's context).
      this.#end("failed", "an error before the answer");
      await this.#deps.reportFailure(error, question);
    }
  }

  /** From its place in its thread's line to its answer, or to the deployment's queue. */
  async #waitForThread(
    message: IncomingMessage,
    surface: ReplySurface,
    ticket: Ticket,
    shown: ShownTo,
    receivedAt: number,
  ): Promise<void> {
    const { store, intake, room, journal, metrics } = this.#deps;
    this.#to({ at: "waiting for its thread", ticket });
    // No notice while it waits here: the person sees the answer ahead of it moving, and a
    // notice posted now would land above that answer. The journal keeps it meanwhile, so
    // a kill does not lose it without a word.
    if ((await ticket.joined).ahead && surface.persistRef && journal) {
      const language = (await intake.translatorFor(message).catch(() => shown.t)).language;
      const record = journal.track(message.channel, language, message.threadKey);
      record?.waiting(message.replyPlace);
      this.#to({ at: "waiting for its thread", ticket, record });
    }
    await ticket.turn();
    if (this.#deps.draining()) throw new NotStartedError();
    // Read now, not on arrival: the answer ahead in the thread may have changed it.
    const context = await readThreadContext(store, message.threadKey, message.channelKey);
    // A person of the company took the thread over meanwhile: the chatbot stays out of it.
    if (context.quiet) return this.#end("refused", "a person of the company has the thread");
    shown.t = await intake.translatorFor(message, context);
    // A thread in a hand-over (src/handover/): a person of the company answers, not the chatbot.
    if (context.handover && (await this.#relay(message, surface, context.handover, shown.t))) {
      return this.#end("relayed", "in a hand-over");
    }
    const asked = await this.#deps.contexts.asked(message, context.conversationUid, shown.t);
    const waiting = this.#life.at === "waiting for its thread" ? this.#life : undefined;
    // A question only this process can answer (no place another could answer it in: the
    // terminal) never waits for room: it is answered at once.
    const local = message.replyPlace === undefined && message.oneReply !== true;
    const slot = room.take() ?? (local ? room.beyondCap() : undefined);
    if (slot) {
      metrics?.queueWait.observe(Math.max(0, performance.now() - receivedAt) / 1000);
      await this.#answer({
        ...shown,
        ticket,
        slot,
        receivedAt,
        asked,
        context,
        record: waiting?.record,
      });
      return;
    }
    if (message.oneReply) return this.#refuseBusy(shown);
    await this.#queue(message, surface, ticket, shown.t, receivedAt, asked);
  }

  /**
   * No room here: into the deployment's queue with its ticket, for whichever process has room
   * first (this one included); its notice tells the person their place until it is taken.
   */
  async #queue(
    message: IncomingMessage,
    surface: ReplySurface,
    ticket: Ticket,
    t: Translator,
    receivedAt: number,
    asked: string,
  ): Promise<void> {
    const { queue, notices, stops, queuedHere, processId } = this.#deps;
    const added = await queue.push(
      queuedRecordOf({
        id: this.#id,
        receiver: processId,
        message,
        ticket: ticket.id,
        language: t.language,
        asked,
        trace: this.#trace.carrier(),
      }),
    );
    if (!added) return this.#refuseBusy({ message, surface, log: this.#log, t });
    let end = () => {};
    const answered = new Promise<void>((resolve) => {
      end = resolve;
    });
    queuedHere.set(added.id, { message, surface, receivedAt, answered, end });
    const notice = notices.show(added.id, surface, t);
    const listed = stops.waiting(message.threadKey, {
      askerId: message.authorId,
      withdraw: (name, tookOver) => notice.withdraw(stopNote(t, { name, tookOver }, "question")),
    });
    this.#to({ at: "queued", ticket: ticket.handOn(), notice, listed }, { place: added.place });
    const how: QueuedEnd = await notice.ended;
    // Taken here, the life that took it let go of it already.
    if (how !== "taken here") queuedHere.delete(added.id);
    const handed = this.#life.at === "queued" ? this.#life.ticket : undefined;
    if (how === "withdrawn") return this.#end("stopped", "withdrawn by its asker");
    // Abandoned at a shutdown, with no process to take it after this one: told to ask again.
    if (how === "abandoned") return this.#end("failed", "the process shut down");
    this.#to({ at: "handed over", why: how, ticket: handed });
    // Taken here: the delivery is handled once its answer is, as a caller awaits it.
    if (how === "taken here") await answered;
  }

  /** From its first text to its last word: the same for every question, wherever it arrived. */
  async #answer(question: Answerable): Promise<void> {
    const { message, surface, t, slot, ticket, context } = question;
    const { journal, metrics, stops } = this.#deps;
    const stop = stops.begin(message.threadKey, message.authorId, message.channelKey);
    // From its first message to its end, the answer is in the journal: after a kill, the
    // next start finishes it with the interrupted note.
    const record =
      question.record ??
      (surface.persistRef
        ? journal?.track(message.channel, t.language, message.threadKey)
        : undefined);
    record?.named(stop.id, message.channelKey);
    this.#to({ at: "answering", ticket, slot, stop, record });
    const channel = message.channel;
    const writer = new AnswerWriter(surface, {
      maxAnswerChars: this.#deps.maxAnswerChars,
      notes: { truncated: t.t("truncated"), noAnswer: t.t("noAnswer") },
      typingText: t.t("statusThinking"),
      typingDelayMs: this.#deps.typingDelayMs,
      onCall: (kind) =>
        (kind === "rate-limited" ? metrics?.rateLimited : metrics?.edits)?.inc({ channel }),
      onMessage: record && ((event) => record.update(event)),
      onFinishing: record && ((finishing) => record.finishing(finishing)),
    });
    if (question.shown) writer.adoptNote(question.shown.ref, question.shown.note);
    try {
      // Its backend and platform calls are the "answering" span's.
      const report = await this.#trace.withinState(() =>
        answerQuestion({ ...this.#deps.answer, log: this.#log }, message, writer, surface, {
          receivedAt: question.receivedAt,
          signal: this.#deps.signal,
          t,
          running: stop,
          context,
          question: Promise.resolve(question.asked),
        }),
      );
      this.#finished(message, report);
      // The answer is final on screen: its record goes before the question counts as done.
      await record?.close();
      this.#end(END_OF[report.end], report.end);
    } catch (error) {
      await this.#failed(error, question, writer);
      await record?.close();
    }
  }

  /** How a failure mid-answer ends the question: shown in its notice, said in a reply. */
  async #failed(error: unknown, question: Answerable, writer: AnswerWriter): Promise<void> {
    this.#end("failed", "an error in the answer");
    if (question.shown) {
      // The answer never took over its "queued" message: it shows the error instead.
      const note = question.t.t("failed", { reason: userTextOf(error) });
      const shown = await writer.finish({ kind: "error", note }).then(
        () => true,
        () => false,
      );
      if (shown) {
        this.#deps.logFailure(error, this.#log);
        return;
      }
    }
    await this.#deps.reportFailure(error, question);
  }

  #finished(message: IncomingMessage, report: AnswerReport): void {
    this.#deps.record(message, report);
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

  async #refuseBusy({ message, surface, t }: ShownTo): Promise<void> {
    this.#deps.metrics?.questionsRefused.inc({ channel: message.channel });
    this.#end("refused", "the bot is busy");
    await sendNotice(surface, t.t("busy"), { private: true });
  }

  #begin(message: IncomingMessage, how: string): void {
    this.#log = this.#deps.log.child({
      channel: message.channel,
      thread: hashThread(message.threadKey),
      question: this.#id,
    });
    this.#log.debug({ how, state: this.#life.at }, "question received");
    this.#trace.begin({
      channel: message.channel,
      question: this.#id,
      thread: hashThread(message.threadKey),
      how,
    });
    this.#trace.state(this.#life.at);
  }

  #to(next: Life, detail?: Record<string, unknown>): void {
    // A state entered again (the same state with what it holds now) is no move.
    const again = next.at === this.#life.at;
    this.#life = again ? next : move(this.#life, next);
    if (again) return;
    this.#log.debug(detail ?? {}, `question ${next.at}`);
    if ("why" in next) this.#trace.end(next.at, next.why);
    else this.#trace.state(next.at);
  }

  /**
   * Carries a message of a thread in a hand-over to its other side: true once it did (or told
   * why not), false when the hand-over is over and the chatbot answers.
   */
  async #relay(
    message: IncomingMessage,
    surface: ReplySurface,
    side: ThreadSide,
    t: Translator,
  ): Promise<boolean> {
    return (await this.#deps.handovers?.relay(message, surface, side, t)) ?? false;
  }

  /** Whether the message's thread is either side of a hand-over. */
  async #inHandover(message: IncomingMessage): Promise<boolean> {
    return (await this.#deps.handovers?.inHandover(message)) ?? false;
  }

  /** The end of the question's life in this process: what it held is let go. */
  #end(state: EndState, why: string): void {
    if ((END_STATES as readonly string[]).includes(this.#life.at)) return;
    this.#to({ at: state, why }, { why });
  }
}

const END_OF: Record<AnswerReport["end"], Exclude<EndState, "handed over">> = {
  complete: "done",
  stopped: "stopped",
  cut: "cut",
  error: "failed",
};

/** The surface for `replyPlace` on the first channel that rebuilds one. */
function surfaceFor(channels: readonly Channel[], replyPlace: unknown): ReplySurface | undefined {
  for (const channel of channels) {
    const surface = channel.surfaceFor?.(replyPlace);
    if (surface) return surface;
  }
  return undefined;
}

/** A question's id in the logs: short, and the same on the process that takes it over. */
function newQuestionId(): string {
  return randomUUID().slice(0, 8);
}

/** Threads are logged by a short hash: their keys carry platform ids of people and chats. */
function hashThread(threadKey: string): string {
  return createHash("sha256").update(threadKey).digest("hex").slice(0, 12);
}
