import { Bot, BotError } from "grammy";
import type { CallbackQuery, Message, MessageGenerationStopped, Update } from "grammy/types";
import { COMMAND_WORDS } from "../../src/bridge/commands.ts";
import { DEFAULTS } from "../../src/config.ts";
import type { Stopper } from "../../src/coordination/answer-stops.ts";
import { RateBudget, type RateBudgetOptions } from "../../src/coordination/call-budget.ts";
import type { CallWindow } from "../../src/coordination/call-window.ts";
import { RateBudgets } from "../../src/coordination/per-key.ts";
import type { Coordination } from "../../src/coordination/port.ts";
import type { ProcessPresence } from "../../src/coordination/process-presence.ts";
import { createWindowBudget } from "../../src/coordination/shared-budget.ts";
import type { WriteBacks } from "../../src/coordination/store-mark.ts";
import { ConfigError, StartupError, storeFailureLevel } from "../../src/errors.ts";
import { ChannelLanguages } from "../../src/i18n/channel-language.ts";
import type { Logger } from "../../src/log.ts";
import type { Metrics } from "../../src/metrics.ts";
import type {
  ButtonPresses,
  Channel,
  HttpRoute,
  IncomingMessage,
  LeadAnnouncer,
  ReplySurface,
} from "../../src/ports.ts";
import { retryAtStart, START_ATTEMPTS } from "../../src/start-retry.ts";
import type { KeyValueStore } from "../../src/store/types.ts";
import { TelegramAdmins } from "./admins.ts";
import { BusinessAccounts, businessPlace, type KnownConnection } from "./business.ts";
import { isWholeDraftStop, telegramDraftStop, telegramPress } from "./buttons.ts";
import { installCallMetrics } from "./call-metrics.ts";
import { ChatOrder } from "./chat-order.ts";
import { syncCommandMenu } from "./commands-menu.ts";
import { DraftSlots } from "./drafts.ts";
import { ElectedPolling } from "./elected-polling.ts";
import {
  installErrorBoundary,
  retryAfterMs,
  TelegramApiError,
  TelegramNetworkError,
} from "./errors.ts";
import { GuestSurface, type GuestSurfaceDeps, readGuestMessage, readSavedGuest } from "./guest.ts";
import { createTelegramLeadAnnouncer } from "./lead-announcement.ts";
import { DEFAULT_API_ROOT, installLeanCalls } from "./lean-calls.ts";
import {
  ADMIN_CACHE_MS,
  CALLBACK_ANSWER_MS,
  CHAT_BURST,
  CHAT_SPACING_MARGIN_MS,
  CHAT_SPACING_MS,
  DELIVERED_REACTION,
  EPHEMERAL_REPLY_WINDOW_MS,
  GROUP_WINDOW_MS,
  POLL_TIMEOUT_SECONDS,
  WEBHOOK_SECRET_PATTERN,
  WINDOW_MARGIN_MS,
} from "./limits.ts";
import { detectMessageFormat, htmlFormat, type MessageFormat } from "./message-format.ts";
import { Poller } from "./polling.ts";
import { repliedDiscussion } from "./reply-context.ts";
import { readSavedMessage, type SurfaceDeps, TelegramSurface } from "./surface.ts";
import {
  allowedUpdates,
  type BotIdentity,
  ephemeralIdOf,
  leadingCommand,
  nameOf,
  originOf,
  type Place,
  placeOf,
  ReplyChains,
  readableMessage,
  readMessage,
  telegramChannelKey,
} from "./to-incoming.ts";
import { undiciFetch } from "./undici-fetch.ts";
import { webhookRoute } from "./webhook.ts";

// Each answer in flight holds some 50 KB (npm run bench): a thousand stay well within memory.
const MAX_UPDATES_IN_FLIGHT = 1_000;

// The HTTP client gives up on a call this long past the long-poll timeout: long enough for a
// slow answer, short enough that a dead connection is noticed.
export const CLIENT_MARGIN_SECONDS = 30;
// A getUpdates this long past its timeout has stalled, and /healthz says so: far enough below
// the client's margin that the stall shows while the call still hangs (issue 12: the two were
// equal, so a hung poll was cut and retried before it ever counted as stalled).
export const POLL_STALL_GRACE_MS = 5_000;

/**
 * What the channel needs of the bridge: one call per delivery (Bridge.receive), and a stop of
 * what streams or waits in a thread (a business account's owner writing there).
 */
export interface MessageHandler {
  receive(
    message: IncomingMessage,
    surface: ReplySurface,
  ): { accepted: Promise<boolean>; done: Promise<void> };
  stopInThread(threadKey: string, by: Stopper): Promise<unknown>;
  /** Keeps the chatbot out of a thread for a while (Bridge.keepQuiet), or no longer. */
  keepQuiet(threadKey: string, forMs: number): Promise<void>;
  endQuiet(threadKey: string): Promise<void>;
}

export interface TelegramChannelOptions {
  /** TELEGRAM_BOT_TOKEN. */
  botToken: string;
  /** TELEGRAM_API_ROOT: base of the Bot API, without a trailing slash. Default Telegram's. */
  apiRoot?: string | undefined;
  /** TELEGRAM_WEBHOOK_URL: webhook mode at POST /telegram/webhook; unset: long polling. */
  webhookUrl?: string | undefined;
  /** TELEGRAM_WEBHOOK_SECRET: required with webhookUrl. */
  webhookSecret?: string | undefined;
  /** TELEGRAM_ADMIN_USERS: user ids that administer every chat. */
  adminUsers?: readonly string[];
  bridge: MessageHandler;
  /** The menu offers `/chatbot`: the deployment has several chatbots to choose from. */
  chatbotMenu?: boolean | undefined;
  /** Where presses of the bot's buttons go (callback queries); without it every press is unknown. */
  buttons?: ButtonPresses | undefined;
  store: KeyValueStore & Coordination;
  /**
   * Where the reply chains this process answers in lately are written back from should the
   * store lose its data (src/coordination/store-mark.ts). None: no copy is kept.
   */
  writeBacks?: WriteBacks | undefined;
  /**
   * The language each chat speaks, for the texts the channel writes itself (the note on a
   * sticker). None: as with DEFAULT_LANGUAGE=auto.
   */
  languages?: ChannelLanguages;
  log: Logger;
  /** Counts every Bot API call, by method and status. */
  metrics?: Pick<Metrics, "countPlatformCall"> | undefined;
  /** TELEGRAM_EDIT_INTERVAL_MS: shortest time between two edits of an answer in a private chat. */
  privateEditIntervalMs?: number;
  /** TELEGRAM_GROUP_EDIT_INTERVAL_MS: the same in groups and forum topics. */
  groupEditIntervalMs?: number;
  /**
   * TELEGRAM_GROUP_MESSAGES_PER_MINUTE: Telegram's budget per group, calls in any minute,
   * shared by its answers.
   */
  groupMessagesPerMinute?: number;
  /** Test knobs: call budgets per private chat and per group (default from the limits above). */
  budgets?: { private?: RateBudgetOptions; group?: CallWindow };
  /** Test knobs: long polling. */
  polling?: {
    timeoutSeconds?: number;
    backoff?: { initialMs: number; maxMs: number };
    stallAfterMs?: number;
    concurrency?: number;
  };
  /**
   * Updates handled at once (default 1,000): past that, polling waits and the webhook answers
   * 503 so Telegram delivers the update again later (to another process, behind a balancer).
   */
  maxUpdatesInFlight?: number;
  /** How long a getChatMember answer is trusted (ADMIN_CACHE_MS). */
  adminCacheMs?: number;
  /**
   * TELEGRAM_DRAFTS: private chats stream as native drafts; off (the default), as one message
   * edited as it grows, with its buttons.
   */
  drafts?: boolean;
  /**
   * TELEGRAM_RICH_MESSAGES: answers, notes and drafts as Bot API 10.1 rich messages where the
   * server has them; off (the default), as HTML messages, which every client shows.
   */
  richMessages?: boolean;
  /**
   * TELEGRAM_BUSINESS on: the private chats of the Business accounts that connected the bot
   * are answered on their behalf; the owner's message in one keeps the chatbot quiet there for
   * `quietMs` (TELEGRAM_BUSINESS_QUIET_MINUTES). None: business updates are not asked for.
   */
  business?: { quietMs: number } | undefined;
  /**
   * TELEGRAM_GUEST on: a mention of the bot in a chat it is not in (guest mode) is answered
   * there, once. Off: guest messages are not asked for.
   */
  guest?: boolean | undefined;
  /** An unchanged draft is shown again after this long, before Telegram's 30 s lapse. */
  draftRefreshMs?: number;
  /** Attempts of each call at start before giving up (START_ATTEMPTS: 1, 2, 4, 8 s apart). */
  startAttempts?: number;
  /** TAKEOVER_MS: on Redis, how soon another process polls when the poller dies. */
  takeoverMs?: number;
  /** This process (src/coordination/process-presence.ts): it polls while its presence holds. */
  presence?: ProcessPresence | undefined;
}

/** The Telegram channel, plus what tests and a drain need to see. */
export interface TelegramChannel extends Channel {
  /** The bot's @username, known after start. */
  readonly username: string | undefined;
  /** Posts lead announcements into Telegram chats. */
  readonly leadAnnouncer: LeadAnnouncer;
  /** Resolves once every update taken so far is handled (answers complete). */
  settled(): Promise<void>;
}

const NO_TEXT_TTL_MS = 2 * 24 * 60 * 60 * 1000;

/**
 * Creates the Telegram channel: grammY against the Bot API, long polling with
 * @grammyjs/runner or a webhook on the shared HTTP server, each message turned into an
 * IncomingMessage for the bridge and answered on a TelegramSurface.
 */
/**
 * Longest a webhook delivery waits for its answer to line up (the bridge has it in its thread's
 * line) before Telegram gets its 200: a message sent after that is ordered behind it, whichever
 * process gets it.
 */
const ACCEPT_WITHIN_MS = 1_000;

export function createTelegramChannel(options: TelegramChannelOptions): TelegramChannel {
  const webhookMode = options.webhookUrl !== undefined;
  if (webhookMode && !options.webhookSecret) {
    throw new ConfigError(["TELEGRAM_WEBHOOK_SECRET is required when TELEGRAM_WEBHOOK_URL is set"]);
  }
  if (options.webhookSecret !== undefined && !WEBHOOK_SECRET_PATTERN.test(options.webhookSecret)) {
    throw new ConfigError([
      "TELEGRAM_WEBHOOK_SECRET must be 1-256 characters of A-Z, a-z, 0-9, _ and -",
    ]);
  }
  const log = options.log.child({ channel: "telegram" });
  const pollTimeoutSeconds = options.polling?.timeoutSeconds ?? POLL_TIMEOUT_SECONDS;
  const apiRoot = options.apiRoot ? options.apiRoot.replace(/\/+$/, "") : DEFAULT_API_ROOT;
  const timeoutSeconds = pollTimeoutSeconds + CLIENT_MARGIN_SECONDS;
  const bot = new Bot(options.botToken, {
    client: { apiRoot, fetch: undiciFetch as unknown as typeof fetch, timeoutSeconds },
  });
  // Innermost, so the metrics and the error boundary see the calls it makes too.
  installLeanCalls(bot.api, { apiRoot, token: options.botToken, timeoutSeconds });
  // Installed before the boundary, so it runs inside it and sees Telegram's own answer.
  if (options.metrics) installCallMetrics(bot.api, options.metrics);
  installErrorBoundary(bot.api);
  const store = options.store;
  const languages = options.languages ?? new ChannelLanguages(store, "auto");
  const chains = new ReplyChains(store, options.writeBacks);
  const drafts = new DraftSlots({
    enabled: options.drafts ?? DEFAULTS.telegramDrafts,
    refreshMs: options.draftRefreshMs,
  });
  const admins = new TelegramAdmins(
    bot.api,
    options.adminUsers ?? [],
    options.adminCacheMs ?? ADMIN_CACHE_MS,
  );
  // A private chat is one thread, answered by one process at a time: its budget needs no
  // sharing. A group's threads may be answered by several processes at once.
  const privateBudget = options.budgets?.private ?? {
    perMinute: 60_000 / (CHAT_SPACING_MS + CHAT_SPACING_MARGIN_MS),
    burst: CHAT_BURST,
  };
  const privateBudgets = new RateBudgets(() => new RateBudget(privateBudget));
  const groupWindow = options.budgets?.group ?? {
    limit: options.groupMessagesPerMinute ?? DEFAULTS.telegramGroupMessagesPerMinute,
    windowMs: GROUP_WINDOW_MS + WINDOW_MARGIN_MS,
    burst: CHAT_BURST,
    spacingMs: CHAT_SPACING_MS + CHAT_SPACING_MARGIN_MS,
  };
  const groupBudgets = new RateBudgets((chatId) =>
    createWindowBudget(groupWindow, { store, key: `budget:telegram:group-window:${chatId}` }),
  );
  const editIntervalMs = {
    private: options.privateEditIntervalMs ?? DEFAULTS.telegramEditIntervalMs,
    group: options.groupEditIntervalMs ?? DEFAULTS.telegramGroupEditIntervalMs,
  };
  // Telegram accepts rich messages that some clients cannot show, and no bot can learn a
  // person's client: HTML messages unless rich ones are asked for (docs/telegram.md, "Rich messages"),
  // and then only if the Bot API server has them (asked at start).
  const richMessages = options.richMessages ?? DEFAULTS.telegramRichMessages;
  let format: MessageFormat = htmlFormat;

  let me: BotIdentity | undefined;
  let state: "new" | "running" | "stopped" = "new";
  /** Updates being handled: what maxUpdatesInFlight counts. */
  const inFlight = new Set<Promise<void>>();
  let menuSync: Promise<void> = Promise.resolve();
  const order = new ChatOrder();

  const track = (task: Promise<void>): Promise<void> => {
    // grammY wraps a middleware's failure in BotError, whose `ctx.api` holds the bot token:
    // only the error inside is logged.
    const tracked = task.catch((error: unknown) =>
      log.error({ err: error instanceof BotError ? error.error : error }, "Telegram update failed"),
    );
    inFlight.add(tracked);
    void tracked.finally(() => inFlight.delete(tracked));
    return tracked;
  };

  const business = options.business && new BusinessAccounts({ store, api: bot.api, log });
  const quietMs = options.business?.quietMs ?? 0;
  const guestMode = options.guest === true;
  const updateKinds = allowedUpdates({ business: business !== undefined, guest: guestMode });
  /**
   * Connections being kept, by id: Telegram delivers updates in order, and handles them at
   * once here, so a chat's message waits for the change of its connection delivered before it.
   */
  const connecting = new Map<string, Promise<void>>();

  const surfaceFor = (place: Place, privateTo?: SurfaceDeps["privateTo"]) =>
    new TelegramSurface({
      api: bot.api,
      log,
      place,
      format,
      limits: {
        maxMessageLength: format.maxMessageLength,
        minEditIntervalMs: place.isPrivate ? editIntervalMs.private : editIntervalMs.group,
      },
      budget: place.isPrivate
        ? privateBudgets.for(place.business === undefined ? String(place.chatId) : place.threadKey)
        : groupBudgets.for(String(place.chatId)),
      drafts,
      chains,
      privateTo,
    });

  /**
   * In a group, whom a private notice to `message`'s author goes to alone, where the bot
   * administers the group (Bot API 10.2 ephemeral messages need that, or a press, which the
   * press's own alert answers). An anonymous admin writes as the group: nobody to single out.
   */
  const privateToAuthorOf = (message: Message, place: Place): SurfaceDeps["privateTo"] => {
    const author = message.from;
    const bot = me;
    // A message on a chat's behalf (an automatic forward from a linked channel) has no one to
    // single out either.
    if (place.isPrivate || !author || author.is_bot || message.sender_chat || !bot) {
      return undefined;
    }
    const chatId = place.chatId;
    const allowed = () => admins.isAdmin({ chatId, isPrivate: false, authorId: String(bot.id) });
    const ephemeral = ephemeralIdOf(message);
    const answering =
      ephemeral === undefined
        ? undefined
        : {
            ephemeralMessageId: ephemeral,
            until: message.date * 1000 + EPHEMERAL_REPLY_WINDOW_MS,
          };
    return { userId: author.id, allowed, answering };
  };

  /** Webhook updates waiting to be acknowledged, by update_id (see ACCEPT_WITHIN_MS). */
  const acceptors = new Map<number, () => void>();

  /**
   * One message: read in its chat's order, then handed to the bridge. `accepted` is called
   * once the bridge has it in its thread's line, or it is known to be none of the bot's.
   */
  const onMessage = (message: Message, accepted: () => void = () => {}): Promise<void> => {
    const identity = me;
    if (!identity) return Promise.resolve();
    const reading = readMessage(message, identity);
    if (!reading) {
      accepted();
      return Promise.resolve();
    }
    const chatId = message.chat.id;
    // The language the person set in Telegram (an IETF tag: `de`, `pt-br`, `zh-hans`).
    const authorLocale = async () => message.from?.language_code;
    return order
      .run(chatId, async () => {
        const place = await placeOf(message, chains, identity);
        const surface = surfaceFor(place, privateToAuthorOf(message, place));
        if (reading.kind === "no-text") {
          // With the store down, a re-sent sticker may get a second note: better than none.
          const first = await store
            .claim(`telegram:no-text:${chatId}:${message.message_id}`, "1", NO_TEXT_TTL_MS)
            .catch(() => true);
          if (!first) return undefined;
          const t = await languages.translatorFor(telegramChannelKey(chatId), authorLocale);
          return () => surface.notice(surface.renderer.note(t.t("onlyText")));
        }
        const discussion = repliedDiscussion(message, identity);
        const incoming: IncomingMessage = {
          channel: "telegram",
          // Stable across re-deliveries of the same update, by polling or webhook alike (an
          // ephemeral message's id may be used again once it is gone: its date goes with it).
          deliveryId:
            ephemeralIdOf(message) === undefined
              ? `${chatId}:${message.message_id}`
              : `${chatId}:e${ephemeralIdOf(message)}:${message.date}`,
          channelKey: telegramChannelKey(chatId),
          channelId: String(chatId),
          threadKey: place.threadKey,
          authorId: reading.authorId,
          authorName: reading.authorName,
          adminOfAll: place.isPrivate && admins.isListed(reading.authorId),
          direct: place.isPrivate,
          text: reading.text,
          // The place as persistRef saves it, with no message yet: reopen's reader reads it.
          replyPlace: { ...place },
          isAdmin: () =>
            admins.isAdmin({ chatId, isPrivate: place.isPrivate, authorId: reading.authorId }),
          isBotAdmin: async () => admins.isListed(reading.authorId),
          authorLocale,
          ...(discussion && { discussion: async () => discussion }),
          origin: originOf(message),
          // A seller's line in a hand-over reached the customer (src/handover/).
          markDelivered: async () => {
            await bot.api.setMessageReaction(chatId, message.message_id, [
              { type: "emoji", emoji: DELIVERED_REACTION },
            ]);
          },
        };
        return () => {
          const received = options.bridge.receive(incoming, surface);
          // A receive that failed is logged with its done; the webhook need not wait on it.
          void received.accepted.then(accepted, accepted);
          return received.done;
        };
      })
      .finally(accepted);
  };

  /**
   * A message in a Business account's private chat (`business_message`): a customer's is a
   * question, answered on the account's behalf; the owner's stops the chatbot there and keeps
   * it quiet for a while, unless it is one of the bot's commands, which acts on the chat
   * (docs/telegram.md, "Telegram Business"). The bot's own messages on the account's behalf come back
   * too, and are left alone.
   */
  const onBusinessMessage = (message: Message, accepted: () => void = () => {}): Promise<void> => {
    const connectionId = message.business_connection_id;
    const identity = me;
    if (
      !business ||
      !identity ||
      connectionId === undefined ||
      message.sender_business_bot !== undefined ||
      !readableMessage.safeParse(message).success
    ) {
      accepted();
      return Promise.resolve();
    }
    const place = businessPlace(connectionId, message.chat.id);
    const threadKey = place.threadKey;
    return order
      .run(threadKey, async () => {
        // A change of the connection delivered before the message counts for it.
        await connecting.get(connectionId);
        const reading = await business.read(message).catch((error: unknown) => {
          log[storeFailureLevel(error)]({ err: error }, "a business message is not answered");
          return undefined;
        });
        if (!reading || reading.kind === "leave") {
          if (reading) log.debug({ why: reading.why }, "a business message left alone");
          return undefined;
        }
        const text = message.text ?? message.caption;
        if (reading.kind === "owner") {
          const command = text === undefined ? undefined : ownerCommand(text, message, identity);
          if (command === undefined) {
            await ownerTookOver(threadKey, reading.connection);
            return undefined;
          }
          const incoming = ownerCommandMessage(message, command, place, reading.connection);
          // The owner's command is for the bot, not for the customer: gone where Telegram lets.
          if (reading.connection.canDelete) {
            await bot.api
              .deleteBusinessMessages(connectionId, [message.message_id])
              .catch((error: unknown) => log.debug({ err: error }, "an owner's command stays"));
          }
          // Its reply goes to the owner's own chat with the bot.
          const ownerChat = surfaceFor({
            ...place,
            chatId: reading.connection.ownerChat,
            business: undefined,
          });
          if (command === "/handback") {
            // The owner gives the chat back before the quiet time is over.
            await options.bridge.endQuiet(threadKey);
            const t = await languages.translatorFor(threadKey, incoming.authorLocale);
            return () => ownerChat.notice(ownerChat.renderer.note(t.t("handoverEnded")));
          }
          return () => options.bridge.receive(incoming, ownerChat).done;
        }
        // A sticker or a photo without words: the owner sees it and answers it.
        if (text === undefined) return undefined;
        const from = message.from;
        const incoming: IncomingMessage = {
          channel: "telegram",
          deliveryId: `${threadKey}:${message.message_id}`,
          channelKey: threadKey,
          // The account, as ALLOWED_CHANNELS names it: its owner's user id.
          channelId: String(reading.connection.owner),
          threadKey,
          authorId: String(from?.id),
          authorName: nameOf(message),
          direct: true,
          questionsOnly: true,
          text: text.trim(),
          replyPlace: { ...place },
          isAdmin: async () => false,
          authorLocale: async () => from?.language_code,
          origin: { ...originOf(message), business: true },
        };
        const surface = surfaceFor(place);
        return () => {
          const received = options.bridge.receive(incoming, surface);
          void received.accepted.then(accepted, accepted);
          return received.done;
        };
      })
      .finally(accepted);
  };

  /**
   * A mention of the bot in a chat it is not in (guest mode): one question, its one answer
   * posted by answerGuestQuery and grown by edits. Each query is a conversation of its own:
   * Telegram says the chat it names may not be the chat of the same id the bot knows, and the
   * next mention there may be another person's.
   */
  const onGuestMessage = async (message: Message, accepted: () => void = () => {}) => {
    const identity = me;
    const reading = guestMode && identity ? readGuestMessage(message, identity) : undefined;
    if (!reading) return accepted();
    const chatId = message.chat.id;
    const channelKey = `telegram:guest:${chatId}`;
    const threadKey = `${channelKey}:${reading.queryId}`;
    const surface = guestSurface({ id: reading.queryId }, threadKey);
    const incoming: IncomingMessage = {
      channel: "telegram",
      deliveryId: `guest:${reading.queryId}`,
      channelKey,
      channelId: String(chatId),
      threadKey,
      authorId: String(message.from?.id),
      authorName: nameOf(message),
      questionsOnly: true,
      oneReply: true,
      text: reading.text,
      isAdmin: async () => false,
      authorLocale: async () => message.from?.language_code,
    };
    const received = options.bridge.receive(incoming, surface);
    void received.accepted.then(accepted, accepted);
    await received.done;
  };

  const guestSurface = (query: GuestSurfaceDeps["query"], budgetKey: string) =>
    new GuestSurface({
      api: bot.api,
      log,
      query,
      budget: privateBudgets.for(budgetKey),
      minEditIntervalMs: editIntervalMs.group,
    });

  /**
   * The owner wrote to the customer: what the chatbot streams or has waiting there stops (its
   * note says "stopped", never finished over the owner's words), and it stays quiet there.
   */
  const ownerTookOver = async (threadKey: string, connection: KnownConnection): Promise<void> => {
    // Quiet first: a question waiting behind the answer stopped next finds the thread taken.
    await options.bridge
      .keepQuiet(threadKey, quietMs)
      .catch((error: unknown) =>
        log[storeFailureLevel(error)]({ err: error }, "the owner's quiet time is not kept"),
      );
    const owner: Stopper = {
      id: String(connection.owner),
      name: undefined,
      isAdmin: async () => true,
    };
    await options.bridge
      .stopInThread(threadKey, owner)
      .catch((error: unknown) => log.warn({ err: error }, "the owner's message stopped nothing"));
  };

  /**
   * One press of a button. Every press is answered (answerCallbackQuery), so the client's
   * spinner stops: by the handler's private reply, else when the handler ends or fails, or
   * after CALLBACK_ANSWER_MS, whichever comes first; data not of ours is answered too.
   */
  const onPress = async (query: CallbackQuery): Promise<void> => {
    let answered: Promise<void> | undefined;
    const answer = (text?: string, brief = false): Promise<void> => {
      // A failed answer is tried again by the next call (the deadline's, the final one):
      // kept, it would leave the spinner turning.
      answered ??= bot.api
        .answerCallbackQuery(query.id, text ? { text, show_alert: !brief } : {})
        .then(
          () => undefined,
          (error: unknown) => {
            answered = undefined;
            throw error;
          },
        );
      return answered;
    };
    const deadline = setTimeout(() => {
      answer().catch(() => undefined);
    }, CALLBACK_ANSWER_MS);
    try {
      const pressed = telegramPress(query, {
        api: bot.api,
        isAdmin: (check) => admins.isAdmin(check),
        isListed: (authorId) => admins.isListed(authorId),
        answer,
      });
      const known = pressed !== undefined && (await options.buttons?.handle(pressed)) === true;
      if (!known) log.debug({ action: pressed?.action }, "Telegram button press with no handler");
    } catch (error) {
      log.error({ err: error }, "Telegram button press failed");
    } finally {
      clearTimeout(deadline);
      await answer().catch((error: unknown) =>
        log.debug({ err: error }, "Telegram button press not answered"),
      );
    }
  };

  /** Telegram's own stop button on a draft: the Stop button of the answer it shows, pressed. */
  const onDraftStopped = async (stopped: MessageGenerationStopped): Promise<void> => {
    if (!isWholeDraftStop(stopped)) {
      log.debug("a draft's stop button press without its chat dropped");
      return;
    }
    const stop = drafts.stopFor(stopped.chat.id, stopped.draft_id);
    if (!stop) {
      log.debug("a draft's stop button pressed after its answer ended");
      return;
    }
    const pressed = telegramDraftStop(stopped, stop, {
      api: bot.api,
      isAdmin: (check) => admins.isAdmin(check),
      isListed: (authorId) => admins.isListed(authorId),
    });
    await options.buttons?.handle(pressed);
  };

  bot.on("message", (ctx) => onMessage(ctx.message, () => acceptors.get(ctx.update.update_id)?.()));
  bot.on("callback_query", (ctx) => onPress(ctx.callbackQuery));
  bot.on("guest_message", (ctx) =>
    onGuestMessage(ctx.update.guest_message, () => acceptors.get(ctx.update.update_id)?.()),
  );
  bot.on("business_message", (ctx) =>
    onBusinessMessage(ctx.businessMessage, () => acceptors.get(ctx.update.update_id)?.()),
  );
  bot.on("business_connection", (ctx) =>
    business
      ?.connected(ctx.businessConnection)
      .catch((error: unknown) =>
        log[storeFailureLevel(error)]({ err: error }, "a business connection is not kept"),
      ),
  );

  /**
   * Hands one update to grammY. Updates are handled at once, so a change of a business
   * connection is noted before the next update starts: a chat's message delivered after it
   * waits for it (onBusinessMessage).
   */
  const handleUpdate = (update: Update): Promise<void> => {
    const handled = bot.handleUpdate(update);
    const id = update.business_connection?.id;
    if (id !== undefined) {
      const kept = handled.catch(() => undefined);
      connecting.set(id, kept);
      void kept.then(() => {
        if (connecting.get(id) === kept) connecting.delete(id);
      });
    }
    return handled;
  };
  bot.on("stopped_message_generation", (ctx) =>
    onDraftStopped(ctx.update.stopped_message_generation),
  );
  bot.catch((error) => log.error({ err: error.error }, "Telegram update failed"));

  const maxInFlight = options.maxUpdatesInFlight ?? MAX_UPDATES_IN_FLIGHT;
  const poller = webhookMode
    ? undefined
    : new Poller({
        bot,
        log,
        handle: (update) => track(handleUpdate(update)),
        timeoutSeconds: pollTimeoutSeconds,
        backoff: options.polling?.backoff ?? { initialMs: 1_000, maxMs: 30_000 },
        stallAfterMs: options.polling?.stallAfterMs ?? POLL_STALL_GRACE_MS,
        concurrency: options.polling?.concurrency ?? maxInFlight,
        allowedUpdates: updateKinds,
      });
  const polling =
    poller &&
    new ElectedPolling({
      poller,
      store,
      log,
      presence: options.presence,
      takeoverMs: options.takeoverMs,
    });

  const routes: HttpRoute[] = [];
  if (webhookMode && options.webhookSecret) {
    routes.push(
      webhookRoute({
        secret: options.webhookSecret,
        log,
        accepting: () => state === "running",
        busy: () => inFlight.size >= maxInFlight,
        dispatch: (update) => {
          const accepted = new Promise<void>((resolve) => {
            acceptors.set(update.update_id, resolve);
            setTimeout(resolve, ACCEPT_WITHIN_MS).unref();
          });
          void track(handleUpdate(update)).finally(() => acceptors.get(update.update_id)?.());
          return accepted.finally(() => acceptors.delete(update.update_id));
        },
      }),
    );
  }

  // The process's stop signal, while start() runs: no more waiting to try again then.
  let starting: AbortSignal | undefined;
  const atStart = <T>(method: string, call: () => Promise<T>): Promise<T> =>
    retryAtStart(call, {
      what: `Telegram ${method}`,
      address: "TELEGRAM_API_ROOT",
      log,
      attempts: Math.max(1, options.startAttempts ?? START_ATTEMPTS),
      isPassing,
      retryAfterMs,
      signal: starting,
    });

  async function identify(): Promise<BotIdentity> {
    const info = await atStart("getMe", () => bot.api.getMe()).catch((error: unknown) => {
      // 401: a token Telegram does not know; 404: not a token's shape at all.
      if (
        error instanceof TelegramApiError &&
        (error.errorCode === 401 || error.errorCode === 404)
      ) {
        throw new StartupError(
          "TELEGRAM_BOT_TOKEN",
          `TELEGRAM_BOT_TOKEN was refused by Telegram (${error.errorCode} ${error.description}): use the token @BotFather gave for this bot`,
          error,
        );
      }
      throw error;
    });
    bot.botInfo = info;
    if (guestMode && info.supports_guest_queries !== true) {
      log.warn(
        "TELEGRAM_GUEST is on, but the bot takes no guest queries: turn on Guest Mode in @BotFather",
      );
    }
    return { id: info.id, username: info.username };
  }

  return {
    name: "telegram",
    routes,
    leadAnnouncer: createTelegramLeadAnnouncer(bot.api, groupBudgets, chains),
    get username() {
      return me?.username;
    },
    async start(signal) {
      starting = signal;
      me = await identify();
      if (richMessages) format = await detectMessageFormat(bot.api, me.id, log);
      if (webhookMode && options.webhookUrl) {
        const url = options.webhookUrl;
        await atStart("setWebhook", () =>
          bot.api.setWebhook(url, {
            secret_token: options.webhookSecret,
            allowed_updates: updateKinds,
          }),
        ).catch((error: unknown) => {
          throw webhookRefusal(error);
        });
        log.info({ bot: me.username }, "Telegram webhook registered");
      } else {
        // A webhook left by an earlier webhook deployment would make getUpdates fail (409).
        await atStart("deleteWebhook", () =>
          bot.api.deleteWebhook({ drop_pending_updates: false }),
        );
        await polling?.start(me);
      }
      state = "running";
      // In the background: the bot answers before the menu is registered. Not an update, so
      // the webhook does not count it against the updates it takes at once.
      menuSync = syncCommandMenu(bot.api, store, me.id, log, options.chatbotMenu).then(
        () => undefined,
        // A store outage is logged once, by the store (a menu of every language takes a few
        // seconds to register, long enough to meet one); it is registered at the next start.
        (error: unknown) =>
          log[storeFailureLevel(error)]({ err: error }, "Telegram command menu not registered"),
      );
      return { mode: webhookMode ? "webhook" : "polling", bot: me.username };
    },
    async stop() {
      state = "stopped";
      await polling?.stop();
    },
    reopen(saved) {
      const found = readSavedMessage(saved);
      if (found) return { surface: surfaceFor(found.place), ref: found.ref, streaming: false };
      // A guest answer is finished by editing its inline message, guest mode on or not.
      const guest = readSavedGuest(saved);
      if (!guest) return undefined;
      const { ref, above } = guest;
      const surface = guestSurface({ answered: ref, above }, `guest:${ref.inlineMessageId}`);
      return { surface, ref, streaming: false };
    },
    surfaceFor(replyPlace) {
      const found = readSavedMessage(replyPlace);
      return found && surfaceFor(found.place);
    },
    unhealthyReason() {
      if (state === "new") return "Telegram channel not started";
      if (state === "stopped") return "Telegram channel stopped";
      return polling?.unhealthyReason();
    },
    async settled() {
      await menuSync;
      while (inFlight.size > 0 || order.pending().length > 0) {
        await Promise.all([...inFlight, ...order.pending()]);
      }
    },
  };
}

/**
 * The bot's command an account's owner typed in a customer's chat (`/new`, `/language de`,
 * `/stop`: a command with no bot named, or this one), as the bridge reads commands; undefined
 * for anything else the owner writes.
 */
function ownerCommand(text: string, message: Message, me: BotIdentity): string | undefined {
  const command = leadingCommand(text, message.entities ?? message.caption_entities ?? []);
  if (!command || !COMMAND_WORDS.has(command.name)) return undefined;
  if (command.target && command.target.toLowerCase() !== me.username.toLowerCase()) {
    return undefined;
  }
  return `/${command.name}${text.slice(command.length)}`.trim();
}

/** The owner's command, acting on the customer's chat (its channel and thread). */
function ownerCommandMessage(
  message: Message,
  text: string,
  place: Place,
  connection: KnownConnection,
): IncomingMessage {
  return {
    channel: "telegram",
    deliveryId: `${place.threadKey}:${message.message_id}`,
    channelKey: place.threadKey,
    channelId: String(connection.owner),
    threadKey: place.threadKey,
    authorId: String(connection.owner),
    authorName: nameOf(message),
    text,
    isAdmin: async () => true,
    authorLocale: async () => message.from?.language_code,
  };
}

/**
 * setWebhook's 400 names what it refused: the secret ("secret token contains unallowed
 * characters") or else the URL ("bad webhook: Failed to resolve host", "HTTPS url must be
 * provided"). Either is a setting to fix, not a passing trouble.
 */
function webhookRefusal(error: unknown): unknown {
  if (!(error instanceof TelegramApiError) || error.errorCode !== 400) return error;
  const variable = /secret/i.test(error.description)
    ? "TELEGRAM_WEBHOOK_SECRET"
    : "TELEGRAM_WEBHOOK_URL";
  return new StartupError(
    variable,
    `${variable} was refused by Telegram's setWebhook (${error.description})`,
    error,
  );
}

/** Errors that say "later", not "never": the network, a 429, Telegram's own 5xx. */
function isPassing(error: unknown): boolean {
  if (error instanceof TelegramNetworkError) return true;
  return error instanceof TelegramApiError && (error.errorCode === 429 || error.errorCode >= 500);
}
