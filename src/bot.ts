import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { Chatbots } from "./backend/chatbots.ts";
import { Bridge } from "./bridge/bridge.ts";
import { ButtonHandlers } from "./bridge/button-handlers.ts";
import { type BackendConfig, type Config, DEFAULTS, secretsOf } from "./config.ts";
import type { Coordination } from "./coordination/port.ts";
import { ProcessPresence } from "./coordination/process-presence.ts";
import { StoreMark } from "./coordination/store-mark.ts";
import { messageOf, StartupError } from "./errors.ts";
import { HandoverBook } from "./handover/handover-book.ts";
import { HandoverDesk } from "./handover/handover-desk.ts";
import { ChannelLanguages } from "./i18n/channel-language.ts";
import { AnswerJournal } from "./journal/answer-journal.ts";
import { registerClaimButtons } from "./leads/claim-buttons.ts";
import { leadCardRedraw } from "./leads/lead-card-redraw.ts";
import { type LeadChannel, LeadChannels } from "./leads/lead-channels.ts";
import { LeadClaimBook } from "./leads/lead-claims.ts";
import { leadPollers } from "./leads/lead-poller.ts";
import { createLeadsCommands } from "./leads/leads-commands.ts";
import { createLogger, type Logger } from "./log.ts";
import { Metrics } from "./metrics.ts";
import type { Channel, LeadAnnouncer } from "./ports.ts";
import { runService } from "./service.ts";
import { simulatedBotUid, startSimulator } from "./simulator/index.ts";
import { instrumentStore } from "./store/instrumented-store.ts";
import { openStoreAtStart } from "./store/open-store.ts";
import { Conversations } from "./store/repositories.ts";
import type { KeyValueStore } from "./store/types.ts";
import { startTracing } from "./tracing.ts";

const SIMULATOR_CONVERSATIONS_FILE = "simulator-conversations.json";

/** A stream of the process, and whether it is a terminal (process.stdin, stdout, stderr). */
type Terminal = { isTTY?: boolean };

/** What the bot reads and writes besides the network: the process's own streams, or a test's. */
export interface BotIo {
  /** The console channel's lines, when no platform is configured. */
  stdin: NodeJS.ReadableStream & Terminal;
  /** The console channel's answers. */
  stdout: NodeJS.WritableStream & Terminal;
  /** Log lines. */
  stderr: NodeJS.WritableStream & Terminal;
}

/** The whole bot, started. */
export interface Bot {
  /** The HTTP server's port (`/slack/events`, `/healthz`, …); undefined in the terminal. */
  readonly port: number | undefined;
  /**
   * Resolves with the exit code once the bot has stopped: by stop(), or by itself (the
   * console's input ended). 0 for an orderly end, 1 when something failed on the way.
   */
  readonly stopped: Promise<number>;
  /**
   * Stops the orderly way: new deliveries are refused, running answers finish within
   * SHUTDOWN_GRACE_MS and the rest end with the interrupted note. Resolves as `stopped`.
   */
  stop(): Promise<number>;
}

/**
 * The composition root: builds every part from `config`, starts the channels (or the chat in
 * the terminal) and resolves once the bot takes questions. Rejects with StartupError for a
 * setting to fix (one line naming it); any other failure at start is logged and rejects too.
 * Nothing here touches the process itself (signals, exit codes): src/main.ts does that.
 * `signal` ends a start still under way (a channel retrying) the orderly way.
 */
export async function createBot(
  config: Config,
  io: BotIo,
  options: { signal?: AbortSignal } = {},
): Promise<Bot> {
  const consoleOnly = !config.slack && !config.telegram;
  const chatInTerminal = consoleOnly && Boolean(io.stdin.isTTY && io.stdout.isTTY);
  const log = botLogger(config, io);
  const cleanup: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const close of cleanup.splice(0)) await close().catch(() => undefined);
  };
  try {
    // First, so that it closes last: the spans of the answers finished at the stop go out.
    const stopTracing = await startTracing(config.tracing, log);
    if (stopTracing) cleanup.unshift(stopTracing);
    // The store first: a DATA_DIR it cannot use stops the start in one line, before the
    // simulated backend tries its own file there.
    const processId = randomUUID();
    const rawStore = await openStoreAtStart({
      storeUrl: config.storeUrl,
      storeSentinel: config.storeSentinel,
      dataDir: config.dataDir,
      log,
      processId,
    });
    cleanup.unshift(() => rawStore.close());
    const backendConfig =
      config.backend ??
      (await startSimulatedBackend(config.dataDir, config.simulatorBots, log, cleanup));
    const metrics = new Metrics();
    // Every chatbot of the account on one pool (docs/chatbot.md, "Several chatbots").
    const chatbots = Chatbots.open(
      {
        baseUrl: backendConfig.baseUrl,
        apiKey: backendConfig.apiKey,
        timeoutMs: config.backendTimeoutMs,
        idleTimeoutMs: config.backendIdleTimeoutMs,
        answerTimeoutMs: config.backendAnswerTimeoutMs,
        onFirstByte: (seconds) => metrics.backendFirstByte.observe(seconds),
      },
      backendConfig.chatbots,
      backendConfig.chatbotsVariable,
      log,
    );
    cleanup.unshift(() => chatbots.close());
    const store = instrumentStore(rawStore, metrics);
    // This process's one id and sign of life: everything it holds in the store names it, and
    // is free or taken over once it lapses (docs/architecture.md). Released last, after all
    // that held by it stopped; taken now, and again by whoever needs it should the store be
    // away at the start.
    const presence = new ProcessPresence({ store, log, leaseMs: config.takeoverMs, id: processId });
    cleanup.unshift(() => presence.close());
    await presence.join().catch(() => undefined);
    // Notices a store that lost its data under the running process; the parts that hold
    // records register them with it, to be written back then (src/coordination/store-mark.ts).
    const writeBacks = new StoreMark({ store, presence, log, lost: metrics.storeDataLost });
    await writeBacks.start();
    // Answers in flight, kept so that the next start finishes those a kill cut (src/journal/).
    const journal = new AnswerJournal({
      store,
      log,
      presence,
      updateIntervalMs: editPace(config),
    });
    cleanup.unshift(() => journal.close());
    const leadChannels = new LeadChannels(store, configuredLeadChannels(config), {
      log,
      chatbots: chatbots.all,
      writeBacks,
    });
    const leadClaims = new LeadClaimBook(store);
    const languages = new ChannelLanguages(store, config.defaultLanguage);
    // A person of the company talking with a lead's customer through the bot (src/handover/).
    const handoverBook = new HandoverBook(store);
    const handovers = new HandoverDesk({
      book: handoverBook,
      claims: leadClaims,
      conversations: new Conversations(store),
      languages,
      pause: (threadKey, by): Promise<unknown> => bridge.stopInThread(threadKey, by),
      idleMs: config.leads.handoverIdleMs,
      log,
    });
    cleanup.unshift(async () => handovers.stop());
    const bridge: Bridge = new Bridge({
      backend: chatbots,
      store,
      log,
      metrics,
      defaultLanguage: config.defaultLanguage,
      guards: config.guards,
      maxAnswerChars: config.maxAnswerChars,
      context: config.context,
      leads: createLeadsCommands({
        backend: chatbots,
        channels: leadChannels,
        claims: leadClaims,
      }),
      handovers,
      journal,
      presence,
      writeBacks,
      maxActive: config.answerQueue.maxActive,
      maxQueued: config.answerQueue.maxQueued,
      takeoverMs: config.takeoverMs,
    });
    // Every feature's button actions, registered before the channels take presses.
    const buttons = new ButtonHandlers();
    bridge.registerButtons(buttons);
    const { channels, announcers } = await createChannels(config, {
      bridge,
      buttons,
      presence,
      writeBacks,
      store,
      languages,
      log,
      metrics,
    });
    const chatbotLabel = (botUid: string) => chatbots.labelOf(botUid);
    registerClaimButtons(buttons, {
      book: leadClaims,
      channels: leadChannels,
      announcers,
      languages,
      chatbotLabel,
      handovers: { book: handoverBook, desk: handovers },
      log,
    });
    if (channels.length === 0) {
      // No platform: the chat in the terminal, with no HTTP server, until its input ends.
      const { createConsoleChannel } = await import("../adapters/console/index.ts");
      const terminal = createConsoleChannel({
        bridge,
        input: io.stdin,
        output: io.stdout,
        interactive: chatInTerminal,
        simulated: !config.backend,
        languages,
        locale: config.systemLocale,
      });
      await terminal.start();
      const stopped = terminal.done.then(closeAll).then(() => 0);
      // In a terminal a stop cuts the answer being shown at once, with its note.
      const stop = async () => {
        await Promise.all([terminal.stop(), bridge.drain(0)]);
        return stopped;
      };
      if (options.signal?.aborted) void stop();
      options.signal?.addEventListener("abort", () => void stop(), { once: true });
      return { port: undefined, stopped, stop };
    }
    const leadPoll =
      config.leads.pollIntervalSeconds > 0
        ? leadPollers(chatbots, {
            store,
            channels: leadChannels,
            announcers,
            languages,
            claims: leadClaims,
            log,
            metrics,
            intervalMs: config.leads.pollIntervalSeconds * 1000,
            afterAnswerMs: config.leads.afterAnswerSeconds * 1000,
            signals: bridge.signals,
            origins: new Conversations(store),
            handovers: handoverBook,
            presence,
            writeBacks,
          })
        : [];
    // A lead the chatbot captured in a conversation the bot carried is announced in seconds.
    bridge.onAnswered(({ chatbot, conversationUid }) => {
      if (conversationUid === undefined) return;
      for (const poller of leadPoll) if (poller.chatbot === chatbot) poller.answered();
    });
    await handovers.start({
      channels,
      announcers,
      redraw: leadCardRedraw({
        book: leadClaims,
        announcers,
        languages,
        chatbotLabel,
        handovers: handoverBook,
        log,
      }),
    });
    await bridge.start(channels);
    let requestStop = () => {};
    const stopRequested = new Promise<void>((resolve) => {
      requestStop = resolve;
    });
    if (options.signal?.aborted) requestStop();
    options.signal?.addEventListener("abort", () => requestStop(), { once: true });
    let listening: ((port: number | undefined) => void) | undefined;
    const started = new Promise<number | undefined>((resolve) => {
      listening = resolve;
    });
    const service = runService({
      channels,
      // Started right after the channels: answers a killed run left are finished first thing.
      background: [journal.recovery(channels), ...leadPoll],
      bridge,
      store,
      metrics,
      log,
      port: config.port,
      host: config.host,
      shutdownGraceMs: config.shutdownGraceMs,
      stopRequested,
      onStarted: (port) => listening?.(port),
    });
    const outcome = service.then(
      () => ({ failure: undefined }),
      (error: unknown) => ({ failure: error ?? new Error("the service failed") }),
    );
    // Started; or the service ended first: a channel could not start (thrown below, with the
    // store and the backend closed), or the start was stopped.
    const port = await Promise.race([started, outcome.then(() => undefined)]);
    if (port === undefined) {
      const { failure } = await outcome;
      if (failure !== undefined) throw failure;
    }
    const stopped = outcome.then(async ({ failure }) => {
      await closeAll();
      if (failure === undefined) return 0;
      log.fatal({ err: failure }, "chatbot-bridge stopped");
      return 1;
    });
    return {
      port,
      stopped,
      stop: () => {
        requestStop();
        return stopped;
      },
    };
  } catch (error) {
    await closeAll();
    if (!(error instanceof StartupError)) log.fatal({ err: error }, "chatbot-bridge stopped");
    throw error;
  }
}

/**
 * How often the journal brings answers' records up to date: the fastest pace at which an
 * answer's messages are edited, so after a kill a message never shows less than it did one
 * edit before (docs/architecture.md, "The journal").
 */
function editPace(config: Config): number {
  const paces = [config.telegram?.privateEditIntervalMs, config.slack?.editIntervalMs].filter(
    (ms): ms is number => ms !== undefined && ms > 0,
  );
  return Math.max(MIN_JOURNAL_ROUND_MS, Math.min(DEFAULTS.journalRoundMs, ...paces));
}

/** Below this, a round per edit would cost more store calls than edits. */
const MIN_JOURNAL_ROUND_MS = 250;

/** The bot's logger, writing to `io.stderr`. */
export function botLogger(config: Config, io: Pick<BotIo, "stderr">): Logger {
  const consoleOnly = !config.slack && !config.telegram;
  // Log lines would break into the answers a person reads in the terminal, piped input or
  // not (`printf … | npm start`); stderr sent elsewhere gets the service's usual lines.
  const level = config.logLevel ?? (consoleOnly && io.stderr.isTTY ? "warn" : "info");
  return createLogger({ level, secrets: secretsOf(config), destination: io.stderr });
}

interface ChannelDeps {
  bridge: Bridge;
  buttons: ButtonHandlers;
  presence: ProcessPresence;
  writeBacks: StoreMark;
  store: KeyValueStore & Coordination;
  languages: ChannelLanguages;
  log: Logger;
  metrics: Metrics;
}

/**
 * The platform channels the configuration turns on, and how each posts leads. A platform's
 * adapter (Bolt, grammY and what they bring) is loaded only when it is turned on: a start
 * in the terminal or with one platform does not pay for the other (about half a second).
 */
async function createChannels(
  config: Config,
  deps: ChannelDeps,
): Promise<{ channels: Channel[]; announcers: LeadAnnouncer[] }> {
  const channels: Channel[] = [];
  const announcers: LeadAnnouncer[] = [];
  if (config.telegram) {
    const { createTelegramChannel } = await import("../adapters/telegram/index.ts");
    const { maxActive, maxQueued } = config.answerQueue;
    const telegram = createTelegramChannel({
      ...config.telegram,
      ...deps,
      takeoverMs: config.takeoverMs,
      // Updates in flight include answering and waiting questions: room for all of them and
      // for as many busy replies on their way, so the bridge says "busy" before the poller
      // stops taking updates (or the webhook answers 503).
      maxUpdatesInFlight: maxActive + 2 * maxQueued,
      chatbotMenu: deps.bridge.chatbots.several,
    });
    channels.push(telegram);
    announcers.push(telegram.leadAnnouncer);
  }
  if (config.slack) {
    const { createSlackChannel } = await import("../adapters/slack/index.ts");
    const slack = createSlackChannel({ ...config.slack, ...deps });
    channels.push(slack);
    announcers.push(slack.leadAnnouncer);
  }
  return { channels, announcers };
}

function configuredLeadChannels(config: Config): LeadChannel[] {
  return [
    ...config.leads.slackChannels.map((id) => ({ platform: "slack", id })),
    ...config.leads.telegramChats.map((id) => ({ platform: "telegram", id })),
  ];
}

async function startSimulatedBackend(
  dataDir: string,
  names: readonly string[],
  log: Logger,
  cleanup: (() => Promise<void>)[],
): Promise<BackendConfig> {
  const chatbots = names.map((name) => ({ name, botUid: simulatedBotUid(name) }));
  // The store keeps each thread's conversation across restarts: the simulator keeps its
  // side of them next to it, so the conversation goes on after a restart too.
  let warned = false;
  const simulator = await startSimulator({
    bots: chatbots.map((chatbot) => chatbot.botUid),
    conversationsFile: join(dataDir, SIMULATOR_CONVERSATIONS_FILE),
    onFileError: (error) => {
      if (warned) return;
      warned = true;
      // A file-system refusal, for the operator to act on: its message says it all.
      log.warn(
        { reason: messageOf(error) },
        "the simulated backend cannot keep its conversations in DATA_DIR",
      );
    },
  });
  cleanup.push(() => simulator.close());
  log.info(
    { url: simulator.url },
    "CHATBOT_BASE_URL is not set: answers come from the built-in simulated backend",
  );
  return {
    baseUrl: simulator.url,
    apiKey: simulator.apiKey,
    chatbots,
    chatbotsVariable: names.length > 1 ? "SIMULATOR_BOTS" : "CHATBOT_BOT_UID",
  };
}
