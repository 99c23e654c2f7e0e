import { App } from "@slack/bolt";
import type { Bridge } from "../../src/bridge/bridge.ts";
import { DEFAULTS } from "../../src/config.ts";
import type { Coordination } from "../../src/coordination/port.ts";
import type { WriteBacks } from "../../src/coordination/store-mark.ts";
import { StartupError } from "../../src/errors.ts";
import { ChannelLanguages } from "../../src/i18n/channel-language.ts";
import type { Logger } from "../../src/log.ts";
import type { Metrics } from "../../src/metrics.ts";
import type { ButtonPresses, Channel, HttpRoute, LeadAnnouncer } from "../../src/ports.ts";
import { START_ATTEMPTS } from "../../src/start-retry.ts";
import { KeptRecords } from "../../src/store/kept-records.ts";
import type { KeyValueStore } from "../../src/store/types.ts";
import { SlackAdmins } from "./admins.ts";
import { createWebClient } from "./api.ts";
import { AssistantGreeter, type AssistantOptions } from "./assistant.ts";
import { boltLogger } from "./bolt-logger.ts";
import { readBlockActions, slackPress } from "./buttons.ts";
import { createCommandSurface } from "./command-surface.ts";
import { createSlackLeadAnnouncer } from "./lead-announcement.ts";
import {
  ADMIN_CACHE_MS,
  API_TIMEOUT_MS,
  APPEND_STREAM_BURST,
  CHAT_UPDATE_BURST,
  DELIVERED_REACTION,
  RATE_WINDOW_MS,
  STREAM_MAX_AGE_MS,
} from "./limits.ts";
import { onNativeStop } from "./native-stop.ts";
import { createReceiver, type SlackReceiver } from "./receiver.ts";
import { slackRenderer } from "./render.ts";
import { slackStartCall } from "./start-calls.ts";
import {
  readSavedMessage,
  type SavedSlackMessage,
  SlackSurface,
  type SlackThread,
  savedRef,
} from "./surface.ts";
import { ThreadHistory } from "./thread-history.ts";
import {
  commandSpellings,
  SLASH_COMMANDS,
  type SlackIdentity,
  toCommand,
  toDelivery,
} from "./to-incoming.ts";
import { Workspaces } from "./workspace.ts";

export type { SlackIdentity } from "./to-incoming.ts";

export interface SlackChannelOptions {
  /** SLACK_BOT_TOKEN (xoxb-…). */
  botToken: string;
  /** SLACK_SIGNING_SECRET: verifies every request to POST /slack/events (HTTP mode). */
  signingSecret?: string | undefined;
  /** SLACK_APP_TOKEN (xapp-…): Socket Mode instead of HTTP. */
  appToken?: string | undefined;
  /** SLACK_API_URL: the Web API's base, ending in /api/. */
  apiUrl?: string | undefined;
  /** SLACK_ADMIN_USERS: user ids that administer the bot besides workspace admins and owners. */
  adminUsers?: readonly string[];
  /** Where questions go, and a press of Slack's own Stop (agent_session_stopped). */
  bridge: Pick<Bridge, "handle" | "receive" | "stopInThread">;
  /** Where presses of the bot's buttons go (block_actions); without it every press is unknown. */
  buttons?: ButtonPresses | undefined;
  /** Remembers the threads the bot answers in, and the DMs and assistant threads it greeted. */
  store: KeyValueStore & Coordination;
  /**
   * Where the threads this process answers in lately are written back from should the store
   * lose its data (src/coordination/store-mark.ts). None: no copy is kept.
   */
  writeBacks?: WriteBacks | undefined;
  /**
   * The language each conversation speaks, for the texts the channel writes itself (the
   * greeting and prompts of a DM or the assistant pane). None: as with DEFAULT_LANGUAGE=auto.
   */
  languages?: ChannelLanguages;
  log: Logger;
  /** Counts every Web API call, by method and status. */
  metrics?: Pick<Metrics, "countPlatformCall"> | undefined;
  /** SLACK_EDIT_INTERVAL_MS: shortest time between two changes of one answer. */
  editIntervalMs?: number;
  /** SLACK_UPDATES_PER_MINUTE: the workspace's chat.update allowance (Tier 3). */
  updatesPerMinute?: number;
  /** SLACK_APPENDS_PER_MINUTE: the workspace's chat.appendStream allowance (Tier 4). */
  appendsPerMinute?: number;
  /** SLACK_NATIVE_STREAMING: try chat.startStream first. */
  nativeStreaming?: boolean;
  /** The greeting and suggested prompts of a DM opened (agent view) or the assistant pane. */
  assistant?: AssistantOptions;
  /** POST path of the Events API and slash commands. Default /slack/events. */
  path?: string;
  /**
   * Calls each budget allows at once after a quiet spell; default the tier's
   * (CHAT_UPDATE_BURST, APPEND_STREAM_BURST).
   */
  budgetBurst?: number;
  /** The window Slack counts calls in (RATE_WINDOW_MS): tests run Slack's minute faster. */
  rateWindowMs?: number;
  /** A native stream is handed over to chat.update after this long. */
  streamMaxAgeMs?: number;
  /** Bound on one Web API call. */
  apiTimeoutMs?: number;
  /** How long a users.info admin answer is trusted. */
  adminCacheMs?: number;
  /** Socket Mode heartbeat: how long to wait for Slack's pong / ping (tests shorten them). */
  socketPingTimeoutMs?: number;
  /** Attempts of each call at start before giving up (START_ATTEMPTS: 1, 2, 4, 8 s apart). */
  startAttempts?: number;
}

/** The Slack channel, plus what tests and a drain need. */
export interface SlackChannel extends Channel {
  /** Posts lead announcements into Slack channels. */
  readonly leadAnnouncer: LeadAnnouncer;
  /** The bot as auth.test described it, once started. */
  readonly identity: SlackIdentity | undefined;
  /** Resolves once every delivery taken so far has been handled. */
  idle(): Promise<void>;
}

const THREAD_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const THREAD_RENEW_MS = 24 * 60 * 60 * 1000;
const activeKey = (threadKey: string) => `slack:answering:${threadKey}`;
/** Longest an ack waits for the bridge to line a question up (Slack allows 3 s in all). */
const ACCEPT_WITHIN_MS = 1_000;
/** The threads answered in whose marks this process keeps a copy of, to write them back. */
const KEPT_THREADS = 10_000;

/**
 * Slack through Bolt: the Events API and slash commands over HTTP at POST /slack/events on
 * the shared server (Bolt verifies each signature), or over Socket Mode when an app token is
 * given. Every delivery is acknowledged at once and handled after: a mention, a DM, a reply
 * in a thread the bot answers in become questions for the bridge, answered in their thread.
 */
export function createSlackChannel(options: SlackChannelOptions): SlackChannel {
  const log = options.log.child({ channel: "slack" });
  const logger = boltLogger(log);
  const path = options.path ?? "/slack/events";
  const receiver: SlackReceiver = createReceiver({
    path,
    logger,
    signingSecret: options.signingSecret,
    appToken: options.appToken,
    apiUrl: options.apiUrl,
    pingTimeoutMs: options.socketPingTimeoutMs,
  });
  const client = createWebClient(options.botToken, {
    apiUrl: options.apiUrl,
    timeoutMs: options.apiTimeoutMs ?? API_TIMEOUT_MS,
    logger,
    onCall: (method, status) => options.metrics?.countPlatformCall("slack", method, status),
  });
  const workspaces = new Workspaces(
    {
      updates: {
        perWindow: options.updatesPerMinute ?? DEFAULTS.slackUpdatesPerMinute,
        burst: options.budgetBurst ?? CHAT_UPDATE_BURST,
      },
      appends: {
        perWindow: options.appendsPerMinute ?? DEFAULTS.slackAppendsPerMinute,
        burst: options.budgetBurst ?? APPEND_STREAM_BURST,
      },
      windowMs: options.rateWindowMs ?? RATE_WINDOW_MS,
    },
    options.store,
    log,
  );
  const admins = new SlackAdmins(
    client,
    options.adminUsers ?? [],
    options.adminCacheMs ?? ADMIN_CACHE_MS,
    () => identity?.teamId,
  );
  const history = new ThreadHistory(client, admins);
  const languages = options.languages ?? new ChannelLanguages(options.store, "auto");
  const greeter = new AssistantGreeter({
    client,
    store: options.store,
    log,
    languages,
    admins,
    teamId: () => identity?.teamId,
    options: options.assistant,
  });
  // Kept records: memory pressure on Redis never makes the bot forget a thread it answers.
  const threads = new KeptRecords(options.store, {
    what: "Slack threads answered",
    max: KEPT_THREADS,
    kept: true,
    writeBacks: options.writeBacks,
  });
  const running = new Set<Promise<void>>();
  let app: App | undefined;
  let identity: SlackIdentity | undefined;
  let stopped = false;

  /** After the ack: runs one delivery's work, never failing the listener. */
  const later = (work: () => Promise<void>) => {
    const task = work()
      .catch((error: unknown) => log.error({ err: error }, "Slack delivery failed"))
      .finally(() => running.delete(task));
    running.add(task);
  };

  const surfaceFor = (thread: SlackThread) =>
    new SlackSurface({
      client,
      workspace: workspaces.for(thread.teamId),
      thread,
      log,
      nativeStreaming: options.nativeStreaming ?? DEFAULTS.slackNativeStreaming,
      minEditIntervalMs: options.editIntervalMs ?? DEFAULTS.slackEditIntervalMs,
      streamMaxAgeMs: options.streamMaxAgeMs ?? STREAM_MAX_AGE_MS,
    });

  /**
   * One message event: a question when it mentions the bot, is a DM, or follows up in a thread
   * the bot answers in. Resolves once the bridge has it in its thread's line (or it is known to
   * be none of the bot's), at most ACCEPT_WITHIN_MS: the HTTP ack waits for that, so a question
   * sent after it lines up behind this one, whichever process gets it.
   */
  const onMessage = (event: unknown, teamId: string | undefined): Promise<void> => {
    if (!identity) return Promise.resolve();
    const delivery = toDelivery(event, {
      teamId,
      identity,
      admins,
    });
    if (!delivery) return Promise.resolve();
    const { kind, message, thread } = delivery;
    const asked = {
      ...thread,
      ts: delivery.ts,
      dm: kind === "dm",
      parentUserId: delivery.parentUserId,
    };
    const discussion = history.discussionOf(asked, identity);
    let accepted = () => {};
    const acceptedOrLate = new Promise<void>((resolve) => {
      accepted = resolve;
      setTimeout(resolve, ACCEPT_WITHIN_MS).unref();
    });
    later(async () => {
      try {
        const key = activeKey(message.threadKey);
        if (kind === "thread") {
          if ((await options.store.get(key)) === undefined) return;
          threads.note(key, true, THREAD_TTL_MS);
        }
        // The thread as persistRef saves it, with no message yet: reopen's reader reads it.
        const replyPlace: SavedSlackMessage = { thread, stream: false };
        const markDelivered = async () => {
          // reactions:write (adapters/slack/manifest.yml).
          await client.reactions.add({
            channel: thread.channel,
            timestamp: delivery.ts,
            name: DELIVERED_REACTION,
          });
        };
        const received = options.bridge.receive(
          { ...message, replyPlace, markDelivered, ...(discussion && { discussion }) },
          surfaceFor(thread),
        );
        const taken = await received.accepted;
        accepted();
        // Renewed at most once a day: a thread's later mentions cost no store call.
        if (taken && kind === "mention" && !threads.notedWithin(key, true, THREAD_RENEW_MS)) {
          // From a mention on, the bot answers every message of the thread. Without the store
          // the mention is still answered (the bridge says if it cannot keep the conversation).
          await options.store
            .set(key, true, { keptMs: THREAD_TTL_MS })
            .then(() => threads.note(key, true, THREAD_TTL_MS))
            .catch((error: unknown) => log.warn({ err: error }, "could not remember the thread"));
        }
        await received.done;
      } finally {
        accepted();
      }
    });
    return acceptedOrLate;
  };

  /** After the ack: one press of a button, handed to its feature's handler. */
  const onPress = async (body: unknown, teamId: string | undefined) => {
    const payload = readBlockActions(body);
    const pressed =
      payload &&
      slackPress(payload, {
        client,
        teamId,
        botTeamId: identity?.teamId,
        isAdmin: (user) => admins.isAdmin(user),
        locale: (user) => admins.locale(user),
      });
    const known = pressed && (await options.buttons?.handle(pressed));
    // A press the bot has no handler for (another app's button, an old message): Slack got
    // its 200; one quiet line, no reply.
    if (!known) log.debug({ action: pressed?.action }, "Slack button press with no handler");
  };

  const register = (bolt: App) => {
    // Interactivity comes to the same request URL as events (and over Socket Mode): every
    // block_actions is acknowledged at once, within Slack's 3 s, and handled after.
    // https://docs.slack.dev/interactivity/handling-user-interaction#acknowledgment_response
    bolt.action(/.*/, async ({ ack, body, context }) => {
      await ack();
      later(() =>
        onPress(body, context.teamId).catch((error: unknown) =>
          log.error({ err: error }, "Slack button press failed"),
        ),
      );
    });
    bolt.event("app_mention", async ({ event, context }) => onMessage(event, context.teamId));
    bolt.event("message", async ({ event, context }) => onMessage(event, context.teamId));
    // Slack's own Stop on an answer whose agent session is processing.
    // https://docs.slack.dev/reference/events/agent_session_stopped
    bolt.event("agent_session_stopped", async ({ event, context }) => {
      const teamId = context.teamId ?? identity?.teamId;
      if (!teamId) return;
      later(() =>
        onNativeStop(event, teamId, {
          bridge: options.bridge,
          client,
          admins,
          languages,
          workspaces,
        }).catch((error: unknown) => log.error({ err: error }, "Slack's Stop press failed")),
      );
    });
    // Slack's agent view: a person opened the bot's DM. https://docs.slack.dev/reference/events/app_home_opened
    bolt.event("app_home_opened", async ({ event, context }) => {
      later(() => greeter.greetDm(event, context.teamId));
    });
    // An app made from an older manifest (`assistant_view`): a thread of the assistant pane.
    bolt.event("assistant_thread_started", async ({ event, context }) => {
      later(() => greeter.greetThread(event, context.teamId));
    });
    // What the person looks at (app_context_changed, assistant_thread_context_changed) has no
    // listener: the chatbot is asked only the question's text. Bolt acknowledges such events.
    bolt.command(
      new RegExp(`^(${Object.keys(SLASH_COMMANDS).join("|")})$`),
      async ({ command, ack, respond }) => {
        await ack();
        const delivery = identity && toCommand(command, { identity, admins });
        if (!delivery) return;
        later(async () => {
          if (delivery.word === "new" && !delivery.threadTs) {
            const { message } = delivery;
            const t = await languages.translatorFor(message.channelKey, message.authorLocale);
            await respond({
              response_type: "ephemeral",
              text: slackRenderer.note(t.t("newOutsideThread", { new: "`new`" })),
            });
            return;
          }
          await options.bridge.handle(delivery.message, createCommandSurface(respond));
        });
      },
    );
    bolt.error(async (error) => {
      log.error({ err: error }, "Slack listener failed");
    });
  };

  const routes: HttpRoute[] = receiver.requestListener
    ? [
        {
          method: "POST",
          path,
          handler: (request, response) => {
            if (!app || stopped) {
              response.writeHead(503, { "content-type": "text/plain" });
              response.end("Slack channel not running\n");
              return;
            }
            return receiver.requestListener?.(request, response);
          },
        },
      ]
    : [];

  return {
    name: "slack",
    leadAnnouncer: createSlackLeadAnnouncer(
      client,
      () => identity?.teamId,
      async (threadKey, on) => {
        const key = activeKey(threadKey);
        if (!on) {
          threads.forget(key);
          await options.store.delete(key);
          return;
        }
        await options.store.set(key, true, { keptMs: THREAD_TTL_MS });
        threads.note(key, true, THREAD_TTL_MS);
      },
    ),
    routes,
    get identity() {
      return identity;
    },
    async start(signal) {
      const atStart = {
        log,
        attempts: Math.max(1, options.startAttempts ?? START_ATTEMPTS),
        signal,
      };
      const auth = await slackStartCall("SLACK_BOT_TOKEN", () => client.auth.test(), {
        what: "auth.test",
        ...atStart,
      });
      if (!auth.user_id || !auth.user || !auth.bot_id || !auth.team_id) {
        throw new StartupError(
          "SLACK_BOT_TOKEN",
          "SLACK_BOT_TOKEN is not a bot token: auth.test named no bot (use the xoxb-… token)",
        );
      }
      identity = {
        userId: auth.user_id,
        botId: auth.bot_id,
        teamId: auth.team_id,
        // Made once here, not for every delivery.
        commandSpellings: commandSpellings(auth.user),
      };
      const bot = { botId: identity.botId, botUserId: identity.userId };
      const bolt = new App({
        // Not `token`: with a token, Bolt makes and keeps a WebClient (~26 KB) for every
        // workspace a delivery comes from, for good (an org-wide install hears from each of
        // its workspaces), though nothing here calls through it: every call goes through
        // `client`. A new object each time: Bolt writes the delivery's team and user into it.
        authorize: async () => ({ ...bot }),
        receiver: receiver.receiver,
        logger,
        // Bolt's own client is tokenless and nothing calls through it; it points where ours does.
        clientOptions: options.apiUrl ? { slackApiUrl: options.apiUrl } : {},
        // No conversation state: nothing reads it, and Bolt's default store would look each
        // delivery's conversation up (and build an Error for every miss) on every delivery.
        convoStore: false,
      });
      register(bolt);
      await slackStartCall("SLACK_APP_TOKEN", () => receiver.start(bolt), {
        what: "Socket Mode connection",
        ...atStart,
      });
      app = bolt;
      stopped = false;
      return {
        mode: options.appToken ? "socket" : "http",
        bot: identity.userId,
        team: identity.teamId,
      };
    },
    async stop() {
      stopped = true;
      await receiver.stop();
    },
    surfaceFor(replyPlace) {
      const found = readSavedMessage(replyPlace);
      return found && surfaceFor(found.thread);
    },
    reopen(saved) {
      const found = readSavedMessage(saved);
      if (!found) return undefined;
      return { surface: surfaceFor(found.thread), ref: savedRef(found), streaming: found.stream };
    },
    unhealthyReason() {
      if (!app) return "Slack channel not started";
      if (stopped) return "Slack channel stopped";
      return receiver.unhealthyReason();
    },
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
