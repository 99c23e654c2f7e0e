import { createHash, randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import type { LanguageCode } from "../backend/languages.ts";
import type { BackendClient } from "../backend/types.ts";
import { DEFAULTS, type GuardConfig } from "../config.ts";
import { AnswerStops, type Stopper } from "../coordination/answer-stops.ts";
import type { Coordination } from "../coordination/port.ts";
import type { QueueJob, SharedQueue } from "../coordination/shared-queue.ts";
import {
  AbortedError,
  BridgeError,
  ChannelUnavailableError,
  NotStartedError,
  storeFailureLevel,
  userTextOf,
} from "../errors.ts";
import { FeedbackVotes } from "../feedback/votes.ts";
import { ChannelLanguages } from "../i18n/channel-language.ts";
import { type Translator, translator } from "../i18n/translator.ts";
import type { AnswerJournal } from "../journal/answer-journal.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics.ts";
import type { Channel, IncomingMessage, MessageRef, ReplySurface } from "../ports.ts";
import { AnswerWriter } from "../reply/answer-writer.ts";
import { sendNotice } from "../reply/notice.ts";
import { ChannelSettings, Conversations, Deliveries } from "../store/repositories.ts";
import type { KeyValueStore } from "../store/types.ts";
import { registerAnswerButtons } from "./answer-buttons.ts";
import { type AnswerDeps, type AnswerReport, answerQuestion } from "./answer-question.ts";
import { type AnswerQueue, LocalAnswerQueue, type QueuePlace } from "./answer-queue.ts";
import type { ButtonHandlers } from "./button-handlers.ts";
import { CommandHandler, type CommandReply, type LeadsCommands } from "./command-handler.ts";
import { type Command, type CommandProblem, isCommandProblem, parseCommand } from "./commands.ts";
import { QuestionGuards } from "./guards.ts";
import { QueuedNotices, withNoticeLock } from "./queued-notices.ts";
import {
  decideFate,
  fateOf,
  firstOf,
  QUEUED_TICKET_MS,
  queuedRecordOf,
  readQueuedQuestion,
  takeQueuedNotice,
} from "./queued-question.ts";
import {
  type AdoptedTurn,
  adoptedTurn,
  type HandedTicket,
  ThreadQueue,
  type Turn,
} from "./thread-queue.ts";

export interface BridgeOptions {
  backend: BackendClient;
  store: KeyValueStore & Coordination;
  log: Logger;
  defaultLanguage: LanguageCode;
  guards: GuardConfig;
  maxAnswerChars: number;
  leads?: LeadsCommands;
  metrics?: Metrics;
  /** Keeps a record of each answer in flight, so that one cut by a kill is finished on restart. */
  journal?: AnswerJournal;
  /**
   * How many answers the process streams at once and how many questions wait for room
   * (MAX_ACTIVE_ANSWERS, MAX_QUEUED_QUESTIONS). None: every question is answered at once.
   */
  answerQueue?: AnswerQueue;
  /**
   * The deployment's queue (src/coordination/shared-queue.ts): a question this process has no
   * room for goes there, to be answered by whichever process has room first. Served from
   * serveQueue(), once the channels that rebuild its surfaces exist. None: every question is
   * answered by the process that received it.
   */
  sharedQueue?: SharedQueue;
  /**
   * How long the backend may stay silent before the typing sign shows (Slack's status,
   * Telegram's typing action). Default: DEFAULTS.typingDelayMs; tests shorten it.
   */
  typingDelayMs?: number;
  /** Thread lock lease and poll interval (tests shorten them). */
  threadLeaseMs?: number;
  threadPollMs?: number;
  /** How often an answer streaming here looks for a stop asked in another process. */
  stopPollMs?: number;
}

/**
 * The one pipeline from "a person wrote something" to "the complete answer is on screen",
 * shared by every channel. Each call to `handle` is one error boundary: whatever fails, the
 * person gets a readable reply and the process goes on.
 */
export class Bridge {
  readonly #options: BridgeOptions;
  readonly #deliveries: Deliveries;
  readonly #conversations: Conversations;
  readonly #commands: CommandHandler;
  readonly #guards: QuestionGuards;
  readonly #languages: ChannelLanguages;
  readonly #queue: ThreadQueue;
  readonly #answerQueue: AnswerQueue;
  readonly #answerDeps: AnswerDeps;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #stopping = new AbortController();
  readonly #threadLeaseMs: number | undefined;
  readonly #stops: AnswerStops;
  readonly #votes: FeedbackVotes;
  /** Channels (channelKey) the bot was refused posting in, and has said so in the log. */
  readonly #unpostable = new Set<string>();
  /** The notices of the questions waiting in the deployment's queue. */
  readonly #notices: QueuedNotices | undefined;
  /** Questions waiting in this process (for their thread, or for room), by thread. */
  readonly #waiting = new Map<string, Set<LocalWaiter>>();

  constructor(options: BridgeOptions) {
    this.#options = options;
    // Every running answer listens for the shutdown: thousands at once are expected.
    setMaxListeners(0, this.#stopping.signal);
    this.#deliveries = new Deliveries(options.store, randomUUID());
    this.#conversations = new Conversations(options.store);
    this.#languages = new ChannelLanguages(options.store, options.defaultLanguage);
    const stops = new AnswerStops({
      store: options.store,
      log: options.log,
      pollMs: options.stopPollMs,
      // A stop for an answer whose process was killed ends it from its journal record.
      takeOver: options.journal?.finishStopped.bind(options.journal),
    });
    this.#stops = stops;
    this.#votes = new FeedbackVotes(options.store);
    this.#notices =
      options.sharedQueue &&
      new QueuedNotices({
        store: options.store,
        log: options.log,
        queueKey: options.sharedQueue.key,
      });
    this.#commands = new CommandHandler({
      withdraw: (threadKey, by, t) => this.#withdraw(threadKey, by, t),
      stops,
      feedback: this.#votes,
      conversations: this.#conversations,
      settings: new ChannelSettings(options.store),
      defaultLanguage: options.defaultLanguage,
      languages: this.#languages,
      leads: options.leads,
    });
    this.#guards = new QuestionGuards(options.guards, options.store);
    this.#answerDeps = {
      backend: options.backend,
      store: options.store,
      conversations: this.#conversations,
      log: options.log,
      defaultLanguage: options.defaultLanguage,
      stops,
      votes: this.#votes,
    };
    this.#answerQueue =
      options.answerQueue ??
      new LocalAnswerQueue({ maxActive: Infinity, maxQueued: Infinity, log: options.log });
    this.#threadLeaseMs = options.threadLeaseMs;
    this.#queue = new ThreadQueue({
      store: options.store,
      log: options.log,
      leaseMs: options.threadLeaseMs,
      pollMs: options.threadPollMs,
      signal: this.#stopping.signal,
    });
  }

  /** Registers what the Stop button and the 👍/👎 under answers do. */
  registerButtons(handlers: ButtonHandlers): void {
    registerAnswerButtons(handlers, {
      stops: this.#stops,
      votes: this.#votes,
      languages: this.#languages,
      metrics: this.#options.metrics,
    });
  }

  /** Handles one delivery; resolves when its reply is complete on the surface. */
  handle(message: IncomingMessage, surface: ReplySurface): Promise<void> {
    const handled = this.#handle(message, surface);
    this.#inFlight.add(handled);
    const forget = () => this.#inFlight.delete(handled);
    handled.then(forget, forget);
    return handled;
  }

  /** Deliveries being handled now. */
  get busy(): number {
    return this.#inFlight.size;
  }

  /**
   * Lets running answers finish for up to `graceMs`, then cuts the rest: each ends with the
   * text it had and a note that it was interrupted. Questions whose answer has not begun are
   * not started any more: each is told to ask again (a restart must not wait behind a full
   * queue, nor leave it unanswered without a word). Resolves when every reply is final.
   */
  async drain(graceMs: number): Promise<void> {
    const notStarted = this.#answerQueue.waiting;
    // First: questions this process took from the shared queue and did not begin stay there
    // for the other processes, instead of being refused with the local ones.
    const sharedStopped = this.#options.sharedQueue?.stop();
    this.#answerQueue.close();
    if (notStarted > 0) {
      this.#options.log.info(
        { questions: notStarted },
        "shutting down: questions whose answer had not begun are told to ask again",
      );
    }
    const settled = () => Promise.allSettled([...this.#inFlight]).then(() => undefined);
    const graceOver = new Promise<"grace over">((resolve) =>
      setTimeout(resolve, graceMs, "grace over").unref(),
    );
    if ((await Promise.race([settled(), graceOver])) === "grace over") {
      this.#stopping.abort(new AbortedError("the bot is shutting down"));
      await settled();
    }
    await sharedStopped;
  }

  async #handle(message: IncomingMessage, surface: ReplySurface): Promise<void> {
    const receivedAt = performance.now();
    // The place in the thread's line is taken before anything is awaited, so questions
    // are answered in the order they were delivered.
    const turn = this.#queue.enter(message.threadKey);
    const log = this.#options.log.child({
      channel: message.channel,
      thread: hashThread(message.threadKey),
    });
    // Until the channel's language is read, a failure is told in English.
    let t = translator("en");
    try {
      if (!(await this.#deliveries.claim(message.channel, message.deliveryId))) {
        log.debug("delivery already handled");
        return;
      }
      t = await this.#languages.translatorFor(
        message.channelKey,
        () => message.authorLocale?.() ?? Promise.resolve(undefined),
      );
      // The allowlists hold for commands too: `/leads subscribe` must not open a channel
      // the operator did not allow.
      const denied = this.#guards.accessRefusal(message);
      if (denied) {
        await sendNotice(surface, t.text(denied), { private: true });
        return;
      }
      const command = parseCommand(message.text, { bare: message.bareCommands });
      if (command) {
        await this.#command(command, message, surface, turn, t);
        return;
      }
      const refusal = await this.#guards.questionRefusal(message);
      if (refusal) {
        await sendNotice(surface, t.text(refusal), { private: true });
        return;
      }
      const shared = this.#options.sharedQueue;
      if (shared && message.replyPlace !== undefined && this.#answerQueue.room() === 0) {
        await this.#share(shared, message, surface, turn, t);
        return;
      }
      const place = this.#answerQueue.enter();
      if (!place) {
        await this.#refuseBusy(message, surface, t);
        return;
      }
      try {
        await this.#answer(message, surface, { turn, place }, log, receivedAt, t);
      } finally {
        place.leave();
        shared?.wake();
      }
    } catch (error) {
      await this.#reportFailure(error, message, surface, log, t);
    } finally {
      turn.leave();
    }
  }

  async #refuseBusy(message: IncomingMessage, surface: ReplySurface, t: Translator): Promise<void> {
    this.#options.metrics?.questionsRefused.inc({ channel: message.channel });
    await sendNotice(surface, t.t("busy"), { private: true });
  }

  /**
   * Puts a question this process has no room for into the deployment's queue, with its
   * thread's ticket, for whichever process has room first; tells the person its place if no
   * process takes it at once.
   */
  async #share(
    shared: SharedQueue,
    message: IncomingMessage,
    surface: ReplySurface,
    turn: Turn,
    t: Translator,
  ): Promise<void> {
    const ticket = await turn.handOff(QUEUED_TICKET_MS);
    const added = await shared
      .push(queuedRecordOf(message, ticket, t.language))
      .catch((error: unknown) => {
        // The ticket goes back with the question: nothing else will use it.
        this.#adopted(message.threadKey, ticket).leave();
        throw error;
      });
    if (!added) {
      this.#adopted(message.threadKey, ticket).leave();
      await this.#refuseBusy(message, surface, t);
      return;
    }
    const waiting = { askerId: message.authorId, ticket };
    await this.#notices?.show(added.id, message.threadKey, waiting, surface, t);
  }

  /**
   * A stop in `threadKey`: withdraws the questions waiting there that `by` may withdraw, in
   * this process and in the deployment's queue.
   */
  async #withdraw(
    threadKey: string,
    by: Stopper,
    t: Translator,
  ): Promise<{ withdrawn: number; refused: number }> {
    let withdrawn = 0;
    let refused = 0;
    for (const waiter of this.#waiting.get(threadKey) ?? []) {
      if (waiter.askerId !== by.id && !(await by.isAdmin())) refused += 1;
      else if (await waiter.withdraw(by.name)) withdrawn += 1;
    }
    const shared = await this.#notices?.withdrawInThread(threadKey, by, t);
    return {
      withdrawn: withdrawn + (shared?.withdrawn ?? 0),
      refused: refused + (shared?.refused ?? 0),
    };
  }

  /**
   * Starts taking questions from the deployment's queue while this process has room; the
   * channels rebuild their surfaces. No-op without a shared queue.
   */
  serveQueue(channels: readonly Channel[]): void {
    this.#notices?.useChannels(channels);
    this.#options.sharedQueue?.serve((job) => {
      const taken = this.#takeQueued(job, channels);
      this.#inFlight.add(taken);
      const forget = () => this.#inFlight.delete(taken);
      taken.then(forget, forget);
      return taken;
    });
  }

  #adopted(threadKey: string, ticket: HandedTicket | undefined): AdoptedTurn {
    const { store, log, threadPollMs } = this.#options;
    return adoptedTurn(
      {
        store,
        log,
        pollMs: threadPollMs,
        leaseMs: this.#threadLeaseMs,
        signal: this.#stopping.signal,
      },
      threadKey,
      ticket,
      QUEUED_TICKET_MS,
    );
  }

  /** Answers a question taken from the deployment's queue, received here or elsewhere. */
  async #takeQueued(job: QueueJob, channels: readonly Channel[]): Promise<void> {
    // The room is taken before anything is awaited, so the queue takes no more than it has.
    const place = this.#answerQueue.enter({ taken: true });
    if (!place) return;
    try {
      const queued = readQueuedQuestion(job.value);
      if (!queued) {
        this.#options.log.warn("a question in the shared queue was unreadable and is dropped");
        return;
      }
      const { message, ticket, receivedAt } = queued;
      const { store } = this.#options;
      const waiting = { askerId: message.authorId, ticket };
      // Withdrawn by its asker meanwhile: its ticket was given back, its notice says so.
      if ((await fateOf(store, [job.id]))[0] === "withdrawn") return;
      const t = translator(queued.language);
      const turn = this.#adopted(message.threadKey, ticket);
      const log = this.#options.log.child({
        channel: message.channel,
        thread: hashThread(message.threadKey),
      });
      try {
        const notice = await takeQueuedNotice(this.#options.store, job.id);
        const reopened = notice && firstOf(channels, (c) => c.reopen?.(notice.saved));
        const surface =
          reopened?.surface ?? firstOf(channels, (c) => c.surfaceFor?.(message.replyPlace));
        if (!surface) {
          log.warn("a queued question is for a channel this process does not run: dropped");
          return;
        }
        const shown = reopened && notice ? { ref: reopened.ref, note: notice.text } : undefined;
        const begin: QueuePlace = {
          start: async (onWait) => {
            await place.start(onWait);
            if (!(await decideFate(store, job.id, "answered"))) throw new WithdrawnError();
            // A place being written into its notice lands before the answer's first text.
            await withNoticeLock(store, job.id, async () => undefined);
            if (!(await job.begin())) throw new TakenOverError();
            turn.begun();
            this.#options.metrics?.queueWait.observe(Math.max(0, Date.now() - receivedAt) / 1000);
          },
          leave: () => place.leave(),
        };
        const waited = performance.now() - (Date.now() - receivedAt);
        try {
          await this.#answer(message, surface, { turn, place: begin, shown }, log, waited, t);
        } catch (error) {
          // Another process answers it, in the thread's place: nothing to say here.
          if (error instanceof TakenOverError || error instanceof NotStartedError) {
            turn.abandon();
            return;
          }
          // Its asker withdrew it: the stop said so, and so does its notice.
          if (error instanceof WithdrawnError) return;
          await this.#reportFailure(error, message, surface, log, t);
        }
      } finally {
        turn.leave();
        await this.#notices?.forget(job.id, message.threadKey, waiting);
      }
    } finally {
      place.leave();
      this.#options.sharedQueue?.wake();
    }
  }

  async #command(
    command: Command | CommandProblem,
    message: IncomingMessage,
    surface: ReplySurface,
    turn: Turn,
    t: Translator,
  ): Promise<void> {
    const run = () => this.#commands.run(command, message, t);
    let reply: CommandReply;
    if (!isCommandProblem(command) && command.name === "new") {
      // `/new` waits for the answer running in its thread, or that answer would store its
      // conversation again right after `/new` forgot it.
      reply = await turn.run(run);
    } else {
      turn.leave();
      reply = await run();
    }
    if (reply.text) await sendNotice(surface, reply.text, { private: reply.private });
  }

  async #answer(
    message: IncomingMessage,
    surface: ReplySurface,
    waits: Waits,
    log: Logger,
    receivedAt: number,
    t: Translator,
  ): Promise<void> {
    // From its first message (a "queued" note, its first text) to its end, the answer is in
    // the journal: after a kill, the next start finishes it with the interrupted note.
    const record = surface.persistRef
      ? this.#options.journal?.track(message.channel, t.language)
      : undefined;
    const { metrics } = this.#options;
    const channel = message.channel;
    const writer = new AnswerWriter(surface, {
      maxAnswerChars: this.#options.maxAnswerChars,
      notes: { truncated: t.t("truncated"), noAnswer: t.t("noAnswer") },
      typingText: t.t("statusThinking"),
      typingDelayMs: this.#options.typingDelayMs ?? DEFAULTS.typingDelayMs,
      onFirstPost: waits.turn.shown,
      onCall: (kind) =>
        (kind === "rate-limited" ? metrics?.rateLimited : metrics?.edits)?.inc({ channel }),
      onMessage: record && ((event) => record.update(event)),
    });
    let report: AnswerReport | undefined;
    try {
      report = await this.#stream(message, surface, writer, waits, log, receivedAt, t, record?.id);
    } finally {
      await record?.close();
    }
    if (!report) return;
    this.#unpostable.delete(message.channelKey);
    this.#record(message.channel, report);
    log.info(
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

  /** Streams the answer; undefined when it failed before it could take over its queued note. */
  async #stream(
    message: IncomingMessage,
    surface: ReplySurface,
    writer: AnswerWriter,
    { turn, place, shown }: Waits,
    log: Logger,
    receivedAt: number,
    t: Translator,
    /** The answer's record in the journal (JournaledAnswer.id), if it has one. */
    journal: string | undefined,
  ): Promise<AnswerReport | undefined> {
    const { metrics } = this.#options;
    let queued = false;
    if (shown) {
      // A notice the receiving process posted: the answer takes it over.
      writer.adoptNote(shown.ref, shown.note);
      queued = true;
    }
    /** The question waits in this process, shown so: its asker's stop withdraws it. */
    let withdrawn: Promise<unknown> | undefined;
    const waiter: LocalWaiter = {
      askerId: message.authorId,
      withdraw: async (name) => {
        if (!open || !queued || withdrawn) return false;
        const note = name ? t.t("withdrawnBy", { name }) : t.t("withdrawn");
        withdrawn = writer.finish({ kind: "stopped", note }).catch((error: unknown) => {
          log.warn({ err: error }, "could not show that a queued question was withdrawn");
        });
        await withdrawn;
        return true;
      },
    };
    // A question taken from the deployment's queue is withdrawn there (QueuedNotices).
    const unlist = shown ? () => undefined : this.#register(message.threadKey, waiter);
    let open = true;
    const unregister = () => {
      open = false;
      unlist();
    };
    /** Shows why the question waits, in the one message its answer then takes over. */
    const showWaiting = async (text: string) => {
      if (withdrawn) return;
      try {
        await writer.showNote(text);
        if (!queued) turn.shown();
        queued = true;
      } catch (error) {
        // Only a courtesy: the question keeps its place and is answered all the same.
        log.warn({ err: error }, "could not show that a question is queued");
      }
    };
    // `elsewhere`: another process answers in this thread; how many wait there is not known.
    const showQueued = async (elsewhere: boolean) => {
      await turn.previousShown;
      const ahead = turn.waitingAhead() || (elsewhere ? 1 : 0);
      if (ahead === 0 || queued) return;
      await showWaiting(t.t("queuedBehind", { count: ahead }));
    };
    if (turn.waitingAhead() > 0) await showQueued(false);
    const answer = async () => {
      // The thread's turn came; now the process must have room (MAX_ACTIVE_ANSWERS).
      let shownInLine: Promise<void> | undefined;
      try {
        await place.start((number) => {
          shownInLine = showWaiting(t.t("numberInLine", { place: number }));
        });
      } finally {
        // The answer (or the refusal at a shutdown) takes over that notice: it must be there.
        await shownInLine;
        unregister();
      }
      if (withdrawn) {
        place.leave();
        return undefined;
      }
      metrics?.activeAnswers.inc();
      try {
        return await answerQuestion({ ...this.#answerDeps, log }, message, writer, surface, {
          receivedAt,
          signal: this.#stopping.signal,
          t,
          journal,
        });
      } finally {
        metrics?.activeAnswers.dec();
        place.leave();
      }
    };
    try {
      return await turn.run(answer, () => showQueued(true));
    } catch (error) {
      // Withdrawn here, or by a stop another process got (its notice says so either way).
      if (withdrawn || error instanceof WithdrawnError) return undefined;
      // The answer never took over its "queued" message: it shows the error instead.
      if (!queued) throw error;
      const note = t.t("failed", { reason: userTextOf(error) });
      const shown = await writer.finish({ kind: "error", note }).then(
        () => true,
        () => false,
      );
      if (!shown) throw error;
      this.#logFailure(error, log);
      return undefined;
    } finally {
      unregister();
    }
  }

  /** Lists a question waiting in this process under its thread; returns the way to take it off. */
  #register(threadKey: string, waiter: LocalWaiter): () => void {
    const waiters = this.#waiting.get(threadKey) ?? new Set();
    this.#waiting.set(threadKey, waiters);
    waiters.add(waiter);
    return () => {
      waiters.delete(waiter);
      if (waiters.size === 0 && this.#waiting.get(threadKey) === waiters) {
        this.#waiting.delete(threadKey);
      }
    };
  }

  #record(channel: string, report: AnswerReport): void {
    const { metrics } = this.#options;
    if (!metrics) return;
    metrics.questions.inc({ channel, outcome: report.end });
    if (report.errorCode?.startsWith("BACKEND_")) {
      metrics.backendErrors.inc({ kind: report.errorCode });
    }
    if (report.firstTextMs !== undefined) {
      metrics.firstText.observe({ channel }, report.firstTextMs / 1000);
    }
    metrics.answer.observe({ channel }, report.totalMs / 1000);
  }

  #logFailure(error: unknown, log: Logger): void {
    // Counted once by the drain that refused them.
    if (error instanceof NotStartedError) return;
    const kind = error instanceof BridgeError ? error.code : "UNEXPECTED";
    // A store outage is logged by the store, once; each question it fails is a detail.
    if (storeFailureLevel(error) === "debug") log.debug({ kind }, "message failed");
    else log.error({ err: error, kind }, "message failed");
  }

  async #reportFailure(
    error: unknown,
    message: IncomingMessage,
    surface: ReplySurface,
    log: Logger,
    t: Translator,
  ): Promise<void> {
    if (error instanceof ChannelUnavailableError) {
      // Nowhere to show a notice, and every question there fails alike: one line per channel
      // is what the operator needs to act on.
      if (this.#unpostable.has(message.channelKey)) return;
      this.#unpostable.add(message.channelKey);
      log.warn(
        { reason: error.message },
        `cannot post in a channel, so its questions go unanswered: ${error.hint}`,
      );
      return;
    }
    this.#logFailure(error, log);
    await sendNotice(surface, t.t("failed", { reason: userTextOf(error) }), {
      private: true,
    }).catch((noticeError: unknown) => log.warn({ err: noticeError }, "could not show the error"));
  }
}

/** The question's queue entry was taken over by another process: it answers it there. */
class TakenOverError extends Error {}

/** The question was withdrawn by its asker's stop before its answer began. */
class WithdrawnError extends Error {}

/** A question waiting in this process, as a stop in its thread withdraws it. */
interface LocalWaiter {
  askerId: string;
  /** Ends its notice saying so; false when it can no longer be withdrawn (its answer began). */
  withdraw(name: string | undefined): Promise<boolean>;
}

/** What a question waits for before its answer begins. */
interface Waits {
  /** Its place in its thread's line: the earlier questions there come first. */
  turn: Turn;
  /** Its place in the process's answer queue: room under the cap. */
  place: QueuePlace;
  /** The "queued" notice already on screen, which the answer takes over. */
  shown?: { ref: MessageRef; note: string } | undefined;
}

/** Threads are logged by a short hash: their keys carry platform ids of people and chats. */
function hashThread(threadKey: string): string {
  return createHash("sha256").update(threadKey).digest("hex").slice(0, 12);
}
