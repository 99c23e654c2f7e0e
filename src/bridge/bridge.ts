import { createHash, randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import type { LanguageCode } from "../backend/languages.ts";
import type { BackendClient } from "../backend/types.ts";
import type { GuardConfig } from "../config.ts";
import { AbortedError, BridgeError, ChannelUnavailableError, NotStartedError } from "../errors.ts";
import type { AnswerJournal } from "../journal/answer-journal.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics.ts";
import type { IncomingMessage, ReplySurface } from "../ports.ts";
import { AnswerWriter } from "../reply/answer-writer.ts";
import { sendNotice } from "../reply/notice.ts";
import { ChannelSettings, Conversations, Deliveries } from "../store/repositories.ts";
import type { KeyValueStore } from "../store/types.ts";
import { type AnswerDeps, type AnswerReport, answerQuestion } from "./answer-question.ts";
import { type AnswerQueue, LocalAnswerQueue, type QueuePlace } from "./answer-queue.ts";
import { CommandHandler, type CommandReply, type LeadsCommands } from "./command-handler.ts";
import { type Command, type CommandProblem, isCommandProblem, parseCommand } from "./commands.ts";
import { QuestionGuards } from "./guards.ts";
import { ThreadQueue, type Turn } from "./thread-queue.ts";

export interface BridgeOptions {
  backend: BackendClient;
  store: KeyValueStore;
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
  /** Thread lock lease and poll interval (tests shorten them). */
  threadLeaseMs?: number;
  threadPollMs?: number;
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
  readonly #queue: ThreadQueue;
  readonly #answerQueue: AnswerQueue;
  readonly #answerDeps: AnswerDeps;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #stopping = new AbortController();
  /** Channels (channelKey) the bot was refused posting in, and has said so in the log. */
  readonly #unpostable = new Set<string>();

  constructor(options: BridgeOptions) {
    this.#options = options;
    // Every running answer listens for the shutdown: thousands at once are expected.
    setMaxListeners(0, this.#stopping.signal);
    this.#deliveries = new Deliveries(options.store, randomUUID());
    this.#conversations = new Conversations(options.store);
    this.#commands = new CommandHandler({
      conversations: this.#conversations,
      settings: new ChannelSettings(options.store),
      defaultLanguage: options.defaultLanguage,
      leads: options.leads,
    });
    this.#guards = new QuestionGuards(options.guards, options.store);
    this.#answerDeps = {
      backend: options.backend,
      store: options.store,
      conversations: this.#conversations,
      log: options.log,
      defaultLanguage: options.defaultLanguage,
    };
    this.#answerQueue =
      options.answerQueue ??
      new LocalAnswerQueue({ maxActive: Infinity, maxQueued: Infinity, log: options.log });
    this.#queue = new ThreadQueue({
      store: options.store,
      log: options.log,
      leaseMs: options.threadLeaseMs,
      pollMs: options.threadPollMs,
      signal: this.#stopping.signal,
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
    try {
      if (!(await this.#deliveries.claim(message.channel, message.deliveryId))) {
        log.debug("delivery already handled");
        return;
      }
      // The allowlists hold for commands too: `/leads subscribe` must not open a channel
      // the operator did not allow.
      const denied = this.#guards.accessRefusal(message);
      if (denied) {
        await sendNotice(surface, denied, { private: true });
        return;
      }
      const command = parseCommand(message.text, { bare: message.bareCommands });
      if (command) {
        await this.#command(command, message, surface, turn);
        return;
      }
      const refusal = await this.#guards.questionRefusal(message);
      if (refusal) {
        await sendNotice(surface, refusal, { private: true });
        return;
      }
      const place = this.#answerQueue.enter();
      if (!place) {
        this.#options.metrics?.questionsRefused.inc({ channel: message.channel });
        await sendNotice(surface, BUSY, { private: true });
        return;
      }
      try {
        await this.#answer(message, surface, { turn, place }, log, receivedAt);
      } finally {
        place.leave();
      }
    } catch (error) {
      await this.#reportFailure(error, message, surface, log);
    } finally {
      turn.leave();
    }
  }

  async #command(
    command: Command | CommandProblem,
    message: IncomingMessage,
    surface: ReplySurface,
    turn: Turn,
  ): Promise<void> {
    const run = () => this.#commands.run(command, message);
    let reply: CommandReply;
    if (!isCommandProblem(command) && command.name === "new") {
      // `/new` waits for the answer running in its thread, or that answer would store its
      // conversation again right after `/new` forgot it.
      reply = await turn.run(run);
    } else {
      turn.leave();
      reply = await run();
    }
    await sendNotice(surface, reply.text, { private: reply.private });
  }

  async #answer(
    message: IncomingMessage,
    surface: ReplySurface,
    waits: Waits,
    log: Logger,
    receivedAt: number,
  ): Promise<void> {
    // From its first message (a "queued" note, its first text) to its end, the answer is in
    // the journal: after a kill, the next start finishes it with the interrupted note.
    const record = surface.persistRef ? this.#options.journal?.track(message.channel) : undefined;
    const { metrics } = this.#options;
    const channel = message.channel;
    const writer = new AnswerWriter(surface, {
      maxAnswerChars: this.#options.maxAnswerChars,
      onFirstPost: waits.turn.shown,
      onCall: (kind) =>
        (kind === "rate-limited" ? metrics?.rateLimited : metrics?.edits)?.inc({ channel }),
      onMessage: record && ((event) => record.update(event)),
    });
    let report: AnswerReport | undefined;
    try {
      report = await this.#stream(message, surface, writer, waits, log, receivedAt);
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
    { turn, place }: Waits,
    log: Logger,
    receivedAt: number,
  ): Promise<AnswerReport | undefined> {
    const { metrics } = this.#options;
    let queued = false;
    /** Shows why the question waits, in the one message its answer then takes over. */
    const showWaiting = async (text: string) => {
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
      await showWaiting(`⏳ queued behind ${ahead} question${ahead === 1 ? "" : "s"}`);
    };
    if (turn.waitingAhead() > 0) await showQueued(false);
    const answer = async () => {
      // The thread's turn came; now the process must have room (MAX_ACTIVE_ANSWERS).
      let shownInLine: Promise<void> | undefined;
      try {
        await place.start((number) => {
          shownInLine = showWaiting(
            `⏳ many questions right now: yours is number ${number} in line`,
          );
        });
      } finally {
        // The answer (or the refusal at a shutdown) takes over that notice: it must be there.
        await shownInLine;
      }
      metrics?.activeAnswers.inc();
      try {
        return await answerQuestion({ ...this.#answerDeps, log }, message, writer, surface, {
          receivedAt,
          signal: this.#stopping.signal,
        });
      } finally {
        metrics?.activeAnswers.dec();
        place.leave();
      }
    };
    try {
      return await turn.run(answer, () => showQueued(true));
    } catch (error) {
      // The answer never took over its "queued" message: it shows the error instead.
      if (!queued) throw error;
      const shown = await writer.finish({ kind: "error", note: `⚠️ ${readableError(error)}` }).then(
        () => true,
        () => false,
      );
      if (!shown) throw error;
      if (!(error instanceof NotStartedError)) log.error({ err: error }, "message failed");
      return undefined;
    }
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

  async #reportFailure(
    error: unknown,
    message: IncomingMessage,
    surface: ReplySurface,
    log: Logger,
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
    const known = error instanceof BridgeError;
    // Counted once by the drain that refused them.
    if (!(error instanceof NotStartedError))
      log.error({ err: error, kind: known ? error.code : "UNEXPECTED" }, "message failed");
    await sendNotice(surface, `⚠️ ${readableError(error)}`, { private: true }).catch(
      (noticeError: unknown) => log.warn({ err: noticeError }, "could not show the error"),
    );
  }
}

/** What a question hears when MAX_QUEUED_QUESTIONS already wait. */
const BUSY = "⏳ The bot is busy right now: please try again in a minute.";

/** What a question waits for before its answer begins. */
interface Waits {
  /** Its place in its thread's line: the earlier questions there come first. */
  turn: Turn;
  /** Its place in the process's answer queue: room under the cap. */
  place: QueuePlace;
}

function readableError(error: unknown): string {
  return error instanceof BridgeError
    ? error.userMessage
    : "Something went wrong on the bot's side.";
}

/** Threads are logged by a short hash: their keys carry platform ids of people and chats. */
function hashThread(threadKey: string): string {
  return createHash("sha256").update(threadKey).digest("hex").slice(0, 12);
}
