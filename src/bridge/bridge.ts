import { setMaxListeners } from "node:events";
import { Chatbots } from "../backend/chatbots.ts";
import type { LanguageCode } from "../backend/languages.ts";
import type { BackendClient } from "../backend/types.ts";
import type { GuardConfig } from "../config.ts";
import { AnswerStops, type StopOutcome, type Stopper } from "../coordination/answer-stops.ts";
import type { Coordination } from "../coordination/port.ts";
import { ProcessPresence } from "../coordination/process-presence.ts";
import type { SharedQueue } from "../coordination/shared-queue.ts";
import type { WriteBacks } from "../coordination/store-mark.ts";
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
import type { Translator } from "../i18n/translator.ts";
import type { AnswerJournal } from "../journal/answer-journal.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics.ts";
import type { Channel, IncomingMessage, ReplySurface } from "../ports.ts";
import { sendNotice } from "../reply/notice.ts";
import { ChannelSettings, Conversations, Deliveries } from "../store/repositories.ts";
import type { KeyValueStore } from "../store/types.ts";
import { registerAnswerButtons } from "./answer-buttons.ts";
import type { AnswerReport } from "./answer-question.ts";
import { type AnswerQueue, LocalAnswerQueue } from "./answer-queue.ts";
import type { ButtonHandlers } from "./button-handlers.ts";
import { CommandHandler, type CommandReply, type LeadsCommands } from "./command-handler.ts";
import { type Command, type CommandProblem, isCommandProblem } from "./commands.ts";
import { QuestionGuards } from "./guards.ts";
import { type QuestionContextOptions, QuestionContexts } from "./question-context.ts";
import { type LifeDeps, type LocalWaiter, QuestionLife, type ShownTo } from "./question-life.ts";
import { QueuedNotices } from "./queued-notices.ts";
import { ThreadQueue, type ThreadTurn } from "./thread-queue.ts";

export interface BridgeOptions {
  /** Who answers: the deployment's chatbots (CHATBOTS), or one chatbot's client. */
  backend: Chatbots | BackendClient;
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
  /**
   * This process (process-presence.ts): what its questions hold in the store names it and
   * holds while it lives. Default: a presence of the bridge's own, closed by drain().
   */
  presence?: ProcessPresence;
  /**
   * Where the threads' conversations this process holds are written back from should the
   * store lose its data (src/coordination/store-mark.ts). None: no copy is kept.
   */
  writeBacks?: WriteBacks;
  /** How often a question waiting for its thread's turn on another process looks again. */
  threadPollMs?: number;
  /** How often an answer streaming here looks for a stop asked in another process. */
  stopPollMs?: number;
  /**
   * What a first question carries of the discussion it was asked in (CONTEXT_MAX_MESSAGES,
   * CONTEXT_MAX_CHARS) and how long it waits for it; DEFAULTS for what is not given.
   */
  context?: Partial<QuestionContextOptions>;
}

/**
 * The one pipeline from "a person wrote something" to "the complete answer is on screen",
 * shared by every channel: it holds the parts every question uses, and each delivery lives
 * its life in question-life.ts. Each call to `handle` is one error boundary: whatever fails,
 * the person gets a readable reply and the process goes on.
 */
export class Bridge {
  readonly #options: BridgeOptions;
  readonly #presence: ProcessPresence;
  readonly #deliveries: Deliveries;
  readonly #conversations: Conversations;
  readonly #commands: CommandHandler;
  readonly #languages: ChannelLanguages;
  readonly #answerQueue: AnswerQueue;
  /** The deployment's chatbots (one, named "default", when given a single client). */
  readonly chatbots: Chatbots;
  /** What every question's life uses. */
  readonly #life: LifeDeps;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #stopping = new AbortController();
  readonly #stops: AnswerStops;
  readonly #votes: FeedbackVotes;
  /** Channels (channelKey) the bot was refused posting in, and has said so in the log. */
  readonly #unpostable = new Set<string>();
  /** The notices of the questions waiting in the deployment's queue. */
  readonly #notices: QueuedNotices | undefined;
  /** Questions waiting in this process for room with a notice on screen, by thread. */
  readonly #waiting = new Map<string, Set<LocalWaiter>>();

  constructor(options: BridgeOptions) {
    this.#options = options;
    this.chatbots =
      options.backend instanceof Chatbots ? options.backend : Chatbots.single(options.backend);
    // Every running answer listens for the shutdown: thousands at once are expected.
    setMaxListeners(0, this.#stopping.signal);
    const presence =
      options.presence ?? new ProcessPresence({ store: options.store, log: options.log });
    this.#presence = presence;
    this.#deliveries = new Deliveries(options.store, presence.id);
    this.#conversations = new Conversations(options.store, options.writeBacks);
    this.#languages = new ChannelLanguages(options.store, options.defaultLanguage);
    const stops = new AnswerStops({
      store: options.store,
      log: options.log,
      presence,
      pollMs: options.stopPollMs,
      // A stop for an answer whose process was killed ends it from its journal record.
      takeOver: options.journal?.finishStopped.bind(options.journal),
    });
    this.#stops = stops;
    this.#votes = new FeedbackVotes(options.store);
    const threads = new ThreadQueue({
      store: options.store,
      log: options.log,
      presence,
      pollMs: options.threadPollMs,
      signal: this.#stopping.signal,
    });
    this.#notices =
      options.sharedQueue &&
      new QueuedNotices({
        store: options.store,
        log: options.log,
        queueKey: options.sharedQueue.key,
        owner: presence.id,
        giveBack: (threadKey, ticket) => threads.giveBack(threadKey, ticket),
      });
    this.#commands = new CommandHandler({
      chatbots: this.chatbots,
      withdraw: (threadKey, by, t) => this.#withdraw(threadKey, by, t),
      stops,
      feedback: this.#votes,
      conversations: this.#conversations,
      settings: new ChannelSettings(options.store),
      defaultLanguage: options.defaultLanguage,
      languages: this.#languages,
      leads: options.leads,
    });
    this.#answerQueue =
      options.answerQueue ??
      new LocalAnswerQueue({ maxActive: Infinity, maxQueued: Infinity, log: options.log });
    const { store, log } = options;
    const guards = new QuestionGuards(options.guards, store);
    this.#life = {
      store,
      log,
      metrics: options.metrics,
      journal: options.journal,
      maxAnswerChars: options.maxAnswerChars,
      typingDelayMs: options.typingDelayMs,
      answer: {
        chatbots: this.chatbots,
        conversations: this.#conversations,
        log,
        defaultLanguage: options.defaultLanguage,
        stops,
        votes: this.#votes,
      },
      contexts: new QuestionContexts(options.context, log),
      threads,
      answerQueue: this.#answerQueue,
      sharedQueue: options.sharedQueue,
      notices: this.#notices,
      signal: this.#stopping.signal,
      intake: {
        claim: (message) => this.#deliveries.claim(message.channel, message.deliveryId),
        translatorFor: (message, stored) => {
          const personLocale = () => message.authorLocale?.() ?? Promise.resolve(undefined);
          return stored === undefined
            ? this.#languages.translatorFor(message.channelKey, personLocale)
            : this.#languages.translatorFrom(stored.language, personLocale);
        },
        accessRefusal: (message) => guards.accessRefusal(message),
        questionRefusal: (message) => guards.questionRefusal(message),
        runCommand: (command, message, surface, turn, t) =>
          this.#command(command, message, surface, turn, t),
      },
      register: (threadKey, waiter) => this.#register(threadKey, waiter),
      reportFailure: (error, shown) => this.#reportFailure(error, shown),
      logFailure: (error, log) => this.#logFailure(error, log),
      record: (message, report) => this.#record(message, report),
    };
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

  /**
   * Stops the answer being written in `threadKey`, on whichever process streams it, if `by`
   * may (its asker, or an admin of the channel): what a platform's own stop control on a
   * streaming answer asks (Slack's agent session Stop). "stopped": the answer ends with its
   * stopped note; "refused", "none": nothing changed, the caller tells the presser. Questions
   * waiting in the thread stay.
   */
  stopInThread(threadKey: string, by: Stopper): Promise<StopOutcome> {
    return this.#stops.stopInThread(threadKey, by);
  }

  /** Handles one delivery; resolves when its reply is complete on the surface. */
  handle(message: IncomingMessage, surface: ReplySurface): Promise<void> {
    return this.#track(new QuestionLife(this.#life).arrive(message, surface));
  }

  /** Keeps `life` among the replies a drain waits for, until it ends. */
  #track(life: Promise<void>): Promise<void> {
    this.#inFlight.add(life);
    const forget = () => this.#inFlight.delete(life);
    life.then(forget, forget);
    return life;
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
    // A presence of its own: nothing of this bridge's holds any more.
    if (!this.#options.presence) await this.#presence.close();
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
    this.#options.sharedQueue?.serve((job) =>
      this.#track(new QuestionLife(this.#life).take(job, channels)),
    );
  }

  async #command(
    command: Command | CommandProblem,
    message: IncomingMessage,
    surface: ReplySurface,
    turn: ThreadTurn,
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

  #record(message: IncomingMessage, report: AnswerReport): void {
    this.#unpostable.delete(message.channelKey);
    const { metrics } = this.#options;
    if (!metrics) return;
    const { channel } = message;
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

  async #reportFailure(error: unknown, { message, surface, log, t }: ShownTo): Promise<void> {
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
