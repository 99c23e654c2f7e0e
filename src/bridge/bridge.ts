import { setMaxListeners } from "node:events";
import { Chatbots } from "../backend/chatbots.ts";
import type { LanguageCode } from "../backend/languages.ts";
import type { BackendClient } from "../backend/types.ts";
import { DEFAULTS, type GuardConfig } from "../config.ts";
import { AnswerStops, type StopOutcome, type Stopper } from "../coordination/answer-stops.ts";
import { Renewal } from "../coordination/lease.ts";
import type { Coordination } from "../coordination/port.ts";
import type { ProcessPresence } from "../coordination/process-presence.ts";
import { ANSWER_QUEUE_KEY, SharedQueue } from "../coordination/shared-queue.ts";
import { ProcessSignals } from "../coordination/signals.ts";
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
import type { HandoverDesk } from "../handover/handover-desk.ts";
import { ChannelLanguages } from "../i18n/channel-language.ts";
import type { Translator } from "../i18n/translator.ts";
import type { AnswerJournal } from "../journal/answer-journal.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics.ts";
import type { Channel, IncomingMessage, ReplySurface } from "../ports.ts";
import { sendNotice } from "../reply/notice.ts";
import { ChannelSettings, Conversations, Deliveries, quietKey } from "../store/repositories.ts";
import type { KeyValueStore } from "../store/types.ts";
import { registerAnswerButtons } from "./answer-buttons.ts";
import type { AnswerReport } from "./answer-question.ts";
import type { ButtonHandlers } from "./button-handlers.ts";
import {
  CommandHandler,
  type CommandReply,
  type HandBackCommand,
  type LeadsCommands,
} from "./command-handler.ts";
import type { Command, CommandProblem } from "./commands.ts";
import { QuestionGuards } from "./guards.ts";
import { type QuestionContextOptions, QuestionContexts } from "./question-context.ts";
import { type LifeDeps, QuestionLife, type ShownTo } from "./question-life.ts";
import { QueuedNotices } from "./queued-notices.ts";
import { Room } from "./room.ts";
import { ThreadLines } from "./thread-lines.ts";

export interface BridgeOptions {
  /** Who answers: the deployment's chatbots (CHATBOTS), or one chatbot's client. */
  backend: Chatbots | BackendClient;
  store: KeyValueStore & Coordination;
  /** This process (process-presence.ts): what its questions hold in the store names it. */
  presence: ProcessPresence;
  log: Logger;
  defaultLanguage: LanguageCode;
  guards: GuardConfig;
  maxAnswerChars: number;
  leads?: LeadsCommands;
  /**
   * Where a message of a thread in a hand-over goes instead of the chatbot, and `/handback`
   * (src/handover/handover-desk.ts). None: no hand-overs.
   */
  handovers?: (HandBackCommand & Pick<HandoverDesk, "relay" | "inHandover">) | undefined;
  metrics?: Metrics;
  /** Keeps a record of each answer in flight, so that one cut by a kill is finished on restart. */
  journal?: AnswerJournal;
  /** MAX_ACTIVE_ANSWERS: answers this process streams at once. Default: no cap. */
  maxActive?: number;
  /** MAX_QUEUED_QUESTIONS: questions waiting in the deployment's queue. Default: no bound. */
  maxQueued?: number;
  /**
   * TAKEOVER_MS: a queued question a process took and did not begin is taken over after this
   * long without a sign from it. Default: the presence's lease.
   */
  takeoverMs?: number;
  /**
   * How long the backend may stay silent before the typing sign shows (Slack's status,
   * Telegram's typing action). Default: DEFAULTS.typingDelayMs; tests shorten it.
   */
  typingDelayMs?: number;
  /**
   * Where the threads' conversations this process holds are written back from should the
   * store lose its data (src/coordination/store-mark.ts). None: no copy is kept.
   */
  writeBacks?: WriteBacks;
  /**
   * What a first question carries of the discussion it was asked in (CONTEXT_MAX_MESSAGES,
   * CONTEXT_MAX_CHARS) and how long it waits for it; DEFAULTS for what is not given.
   */
  context?: Partial<QuestionContextOptions>;
}

/**
 * The one pipeline from "a person wrote something" to "the complete answer is on screen",
 * shared by every channel: it holds the parts every question uses (its thread's line, the
 * room under the cap, the deployment's queue and its notices, the stops), and each delivery
 * lives its life in question-life.ts. Each call to `handle` is one error boundary: whatever
 * fails, the person gets a readable reply and the process goes on. The same on both stores.
 */
export class Bridge {
  readonly #options: BridgeOptions;
  readonly #deliveries: Deliveries;
  readonly #conversations: Conversations;
  readonly #commands: CommandHandler;
  readonly #languages: ChannelLanguages;
  /** The deployment's chatbots (one, named "default", when given a single client). */
  readonly chatbots: Chatbots;
  /** What every question's life uses. */
  readonly #life: LifeDeps;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #stopping = new AbortController();
  readonly #signals: ProcessSignals;
  readonly #answered: ((report: AnswerReport) => void)[] = [];
  readonly #stops: AnswerStops;
  readonly #lines: ThreadLines;
  readonly #queue: SharedQueue;
  readonly #notices: QueuedNotices;
  readonly #votes: FeedbackVotes;
  /** Channels (channelKey) the bot was refused posting in, and has said so in the log. */
  readonly #unpostable = new Set<string>();
  #draining = false;
  #beat: Renewal | undefined;

  constructor(options: BridgeOptions) {
    this.#options = options;
    const { store, log, presence, metrics } = options;
    this.chatbots =
      options.backend instanceof Chatbots ? options.backend : Chatbots.single(options.backend);
    // Every running answer listens for the shutdown: thousands at once are expected.
    setMaxListeners(0, this.#stopping.signal);
    this.#deliveries = new Deliveries(store, presence.id);
    this.#conversations = new Conversations(store, options.writeBacks);
    this.#languages = new ChannelLanguages(store, options.defaultLanguage);
    this.#signals = new ProcessSignals({ store, processId: presence.id, log });
    const journal = options.journal;
    this.#stops = new AnswerStops({
      signals: this.#signals,
      log,
      // A stop for an answer whose process was killed ends it from its journal record.
      ...(journal && {
        takeOver: (target, by, answered) => journal.finishStopped(target, by, answered),
      }),
    });
    this.#votes = new FeedbackVotes(store);
    this.#lines = new ThreadLines({ store, presence, signals: this.#signals, log });
    const room = new Room(options.maxActive ?? Number.POSITIVE_INFINITY, metrics);
    this.#queue = new SharedQueue({
      store,
      key: ANSWER_QUEUE_KEY,
      consumer: presence.id,
      room,
      maxQueued: options.maxQueued ?? Number.POSITIVE_INFINITY,
      takeoverMs: options.takeoverMs ?? presence.leaseMs,
      log,
      onDepth: (waiting) => metrics?.queuedQuestions.set(waiting),
      presence,
    });
    this.#notices = new QueuedNotices({
      store,
      signals: this.#signals,
      processId: presence.id,
      queueKey: ANSWER_QUEUE_KEY,
      log,
    });
    this.#commands = new CommandHandler({
      chatbots: this.chatbots,
      stops: this.#stops,
      feedback: this.#votes,
      conversations: this.#conversations,
      settings: new ChannelSettings(store),
      defaultLanguage: options.defaultLanguage,
      languages: this.#languages,
      leads: options.leads,
      handovers: options.handovers,
    });
    const guards = new QuestionGuards(options.guards, store);
    this.#life = {
      store,
      log,
      metrics,
      journal,
      maxAnswerChars: options.maxAnswerChars,
      typingDelayMs: options.typingDelayMs ?? DEFAULTS.typingDelayMs,
      handovers: options.handovers,
      answer: {
        chatbots: this.chatbots,
        conversations: this.#conversations,
        log,
        defaultLanguage: options.defaultLanguage,
        votes: this.#votes,
      },
      contexts: new QuestionContexts(options.context, log),
      lines: this.#lines,
      room,
      queue: this.#queue,
      notices: this.#notices,
      stops: this.#stops,
      processId: presence.id,
      queuedHere: new Map(),
      signal: this.#stopping.signal,
      draining: () => this.#draining,
      intake: {
        seenHere: (message) => this.#deliveries.seenHere(message.channel, message.deliveryId),
        claim: (message) => this.#deliveries.claim(message.channel, message.deliveryId),
        translatorFor: (message, stored) => {
          const personLocale = () => message.authorLocale?.() ?? Promise.resolve(undefined);
          return stored === undefined
            ? this.#languages.translatorFor(message.channelKey, personLocale)
            : this.#languages.translatorFrom(stored.language, personLocale);
        },
        accessRefusal: (message) => guards.accessRefusal(message),
        questionRefusal: (message) => guards.questionRefusal(message),
        runCommand: (command, message, surface, t, turn) =>
          this.#command(command, message, surface, t, turn),
      },
      reportFailure: (error, shown) => this.#reportFailure(error, shown),
      logFailure: (error, log) => this.#logFailure(error, log),
      record: (message, report) => this.#record(message, report),
    };
  }

  /** The messages between this deployment's processes, which the bridge starts and stops. */
  get signals(): ProcessSignals {
    return this.#signals;
  }

  /** `listener` hears of each answer this process ends, once it is on screen. */
  onAnswered(listener: (report: AnswerReport) => void): void {
    this.#answered.push(listener);
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
   * Starts what the bridge shares with the other processes: their messages, the deployment's
   * queue (the channels rebuild the surfaces of questions received elsewhere) and its
   * notices, and the waiting tickets' look at their lines on the presence's beat.
   */
  async start(channels: readonly Channel[]): Promise<void> {
    await this.#signals.start().catch((error: unknown) => {
      this.#options.log[storeFailureLevel(error)](
        { err: error },
        "cannot hear the other processes: stops and turns from them wait for the store",
      );
    });
    await this.#notices.start(channels);
    await this.#queue.serve((job) =>
      this.#track(
        new QuestionLife(this.#life, { at: "taken", slot: job.slot }).take(job, channels),
      ),
    );
    this.#beat = new Renewal(() => this.#lines.check(), this.#options.presence.leaseMs / 3, {
      shared: true,
    });
  }

  /**
   * Stops the answer being written in `threadKey`, on whichever process streams it, if `by`
   * may (its asker, or an admin of the channel): what a platform's own stop control on a
   * streaming answer asks (Slack's agent session Stop). "stopped": the answer ends with its
   * stopped note; "refused", "none": nothing changed, the caller tells the presser.
   */
  async stopInThread(threadKey: string, by: Stopper): Promise<StopOutcome> {
    return (await this.#stops.stopInThread(threadKey, by)).answer;
  }

  /**
   * Keeps the chatbot out of `threadKey` for `forMs` from now: a person of the company writes
   * there (a Telegram Business account's owner). A question whose turn comes meanwhile, here
   * or on another process, is left unanswered, without a word; what streams there is the
   * caller's to stop (stopInThread), after this.
   */
  async keepQuiet(threadKey: string, forMs: number): Promise<void> {
    await this.#options.store.set(quietKey(threadKey), 1, forMs);
  }

  /** The chatbot answers in `threadKey` again (a business account's owner handed it back). */
  async endQuiet(threadKey: string): Promise<void> {
    await this.#options.store.delete(quietKey(threadKey));
  }

  /** Handles one delivery; resolves when its reply is complete on the surface. */
  handle(message: IncomingMessage, surface: ReplySurface): Promise<void> {
    return this.receive(message, surface).done;
  }

  /**
   * Handles one delivery: `accepted` resolves once it is known whether this process handles it
   * (true) or it was handled already (false): its claim, and a question's place in its thread's
   * line, are in the store. A channel acknowledges the delivery then, so that a question sent
   * after the acknowledgment lines up behind this one on any process. `done` resolves once its
   * reply is complete on the surface.
   */
  receive(
    message: IncomingMessage,
    surface: ReplySurface,
  ): { accepted: Promise<boolean>; done: Promise<void> } {
    let accept: (taken: boolean) => void = () => {};
    const accepted = new Promise<boolean>((resolve) => {
      accept = resolve;
    });
    const done = this.#track(new QuestionLife(this.#life).arrive(message, surface, accept));
    void done.finally(() => accept(false));
    return { accepted, done };
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
   * text it had and a note that it was interrupted. No answer begins any more: questions this
   * process took from the deployment's queue and did not begin stay there for the others; a
   * question whose turn comes now, and one queued here that no other process could take after
   * this one, is told to ask again (a restart must not wait behind a full queue, nor leave it
   * unanswered without a word). Resolves when every reply is final.
   */
  async drain(graceMs: number): Promise<void> {
    this.#draining = true;
    const abandoned = await this.#queue.stop();
    if (abandoned.length > 0) {
      this.#options.log.info(
        { questions: abandoned.length },
        "shutting down: questions waiting in line are told to ask again",
      );
    }
    await this.#notices.stop(
      abandoned.map((entry) => entry.id),
      (t) => t.t("failed", { reason: userTextOf(new NotStartedError()) }),
    );
    await this.#beat?.stop();
    const settled = () => Promise.allSettled([...this.#inFlight]).then(() => undefined);
    const graceOver = new Promise<"grace over">((resolve) =>
      setTimeout(resolve, graceMs, "grace over").unref(),
    );
    if ((await Promise.race([settled(), graceOver])) === "grace over") {
      this.#stopping.abort(new AbortedError("the bot is shutting down"));
      await settled();
    }
    await this.#signals.close();
  }

  async #command(
    command: Command | CommandProblem,
    message: IncomingMessage,
    surface: ReplySurface,
    t: Translator,
    turn: (() => Promise<void>) | undefined,
  ): Promise<void> {
    // `/new` waits for the answer running in its thread, or that answer would store its
    // conversation again right after `/new` forgot it.
    await turn?.();
    const reply: CommandReply = await this.#commands.run(command, message, t);
    if (reply.text) await sendNotice(surface, reply.text, { private: reply.private });
  }

  #record(message: IncomingMessage, report: AnswerReport): void {
    this.#unpostable.delete(message.channelKey);
    for (const listener of this.#answered) listener(report);
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
