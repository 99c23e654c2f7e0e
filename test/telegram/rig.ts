import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { Api } from "grammy";
import { DraftSlots } from "../../adapters/telegram/drafts.ts";
import { installErrorBoundary } from "../../adapters/telegram/errors.ts";
import {
  createTelegramChannel,
  type TelegramChannel,
  type TelegramChannelOptions,
} from "../../adapters/telegram/index.ts";
import { htmlFormat, type MessageFormat } from "../../adapters/telegram/message-format.ts";
import { TelegramSurface } from "../../adapters/telegram/surface.ts";
import { ReplyChains } from "../../adapters/telegram/to-incoming.ts";
import { createBackendClient } from "../../src/backend/client.ts";
import { STREAM_DELIMITER } from "../../src/backend/stream-parser.ts";
import { ButtonHandlers } from "../../src/bridge/button-handlers.ts";
import type { Budget } from "../../src/coordination/call-budget.ts";
import { type RunningHttpServer, startHttpServer } from "../../src/http-server.ts";
import { createLogger } from "../../src/log.ts";
import { Metrics } from "../../src/metrics.ts";
import { composeAnswer } from "../../src/simulator/answers.ts";
import type { SimulatorOptions } from "../../src/simulator/index.ts";
import { resolveLanguage } from "../../src/simulator/languages.ts";
import type { Store } from "../../src/store/types.ts";
import {
  type Harness,
  type HarnessOptions,
  OPEN_BRIDGE,
  startBridge,
  startHarness,
} from "../support/bridge-harness.ts";
import {
  type Chat,
  type FakeTelegram,
  type FakeTelegramOptions,
  type RecordedCall,
  startFakeTelegram,
  type User,
} from "../support/fake-telegram.ts";
import { type RawBackend, startRawBackend } from "../support/raw-backend.ts";

/**
 * Time in these tests runs 20 times faster than on Telegram: edit intervals, the fake's flood
 * limits and the bot's budgets are all scaled by the same factor, so the rules keep their
 * proportions and a suite finishes in seconds.
 */
export const SCALE = 20;

/** The command menu for a chat's administrators, in its order. */
export const ADMIN_COMMANDS = ["help", "new", "language", "stop", "leads", "feedback", "handback"];

/** A group message's shortest time between two edits, in the rig's time. */
export const GROUP_EDIT_INTERVAL_MS = 3_000 / SCALE;

export interface Rig {
  fake: FakeTelegram;
  harness: Harness;
  channel: TelegramChannel;
  /** Every log line the channel wrote (JSON), secrets not masked: tests check for leaks. */
  logs: string[];
  alice: User;
  bob: User;
  carol: User;
  /** Alice's private chat with the bot. */
  dm: Chat;
  /** A supergroup without topics: bob is its creator, alice a member. */
  group: Chat;
  /** A forum supergroup: bob is an administrator. */
  forum: Chat;
  /** The scripted backend, when `answer` was given: the chat requests it received. */
  scripted: RawBackend | undefined;
  close(): Promise<void>;
}

export interface RigOptions {
  fake?: FakeTelegramOptions;
  simulator?: SimulatorOptions;
  channel?: Partial<TelegramChannelOptions>;
  /** Start the channel (default true). */
  start?: boolean;
  /** Share a store with an earlier rig (a restart). */
  harness?: Harness;
  /** Settings of the rig's own bridge (an answer cap, say). */
  bridge?: HarnessOptions["bridge"];
  /** Several chatbots (CHATBOTS) on the simulator; the menu then offers `/chatbot`. */
  chatbots?: HarnessOptions["chatbots"];
  /** Every question gets exactly this Markdown answer, streamed by a scripted backend. */
  answer?: string;
  /** Another backend than the simulator (a scripted raw backend). */
  backend?: { url: string; apiKey: string; botUid: string };
  /**
   * With `answer`: the scripted backend sends nothing before this resolves, so answers stay
   * in flight until the test lets them go, however slow the machine.
   */
  answerAfter?: Promise<unknown>;
}

export async function startRig(options: RigOptions = {}): Promise<Rig> {
  const fake = await startFakeTelegram({
    exactRetryAfter: true,
    limits: {
      chat: { perMinute: 60 * SCALE, burst: 3 },
      group: { limit: 20, windowMs: 60_000 / SCALE },
    },
    ...options.fake,
  });
  const harness =
    options.harness ??
    (await startHarness({
      simulator: { chunkDelayMs: 0, ...options.simulator },
      bridge: options.bridge,
      chatbots: options.chatbots,
    }));
  const raw =
    options.answer === undefined
      ? undefined
      : await scriptedBackend(options.answer, options.answerAfter);
  const target = options.backend ?? (raw && { url: raw.url, apiKey: "key", botUid: "bot" });
  const backend =
    target &&
    createBackendClient({ baseUrl: target.url, apiKey: target.apiKey, botUid: target.botUid });
  const bridge = backend
    ? await startBridge({
        backend,
        store: harness.store,
        log: createLogger({ level: "silent", secrets: [] }),
        ...OPEN_BRIDGE,
      })
    : harness.bridge;
  const logs: string[] = [];
  const log = createLogger({
    level: "debug",
    secrets: [],
    pretty: false,
    destination: new Writable({
      write(chunk, _encoding, done) {
        logs.push(String(chunk));
        done();
      },
    }),
  });
  // The answers' Stop and 👍/👎 buttons, as main.ts registers them.
  const buttons = new ButtonHandlers();
  bridge.registerButtons(buttons);
  const channel = createTelegramChannel({
    buttons,
    botToken: fake.token,
    apiRoot: fake.url,
    adminUsers: [],
    bridge,
    store: harness.store,
    log,
    privateEditIntervalMs: 1_000 / SCALE,
    groupEditIntervalMs: GROUP_EDIT_INTERVAL_MS,
    budgets: {
      private: { perMinute: 55 * SCALE, burst: 2 },
      // A burst below the fake's and a window a little longer, as in production: timing
      // jitter must not tip it over.
      group: { limit: 20, windowMs: 61_000 / SCALE, burst: 2, spacingMs: 1_100 / SCALE },
    },
    polling: { timeoutSeconds: 1, backoff: { initialMs: 50, maxMs: 400 }, stallAfterMs: 300 },
    startAttempts: 1,
    chatbotMenu: bridge.chatbots.several,
    ...options.channel,
  });
  const alice = fake.user(1001, "Alice", "alice_example");
  const bob = fake.user(1002, "Bob", "bob_example");
  const carol = fake.user(1003, "Carol");
  const dm = fake.addChat({
    id: alice.id,
    type: "private",
    first_name: "Alice",
    username: "alice_example",
  });
  const group = fake.addChat(
    { id: -1001, type: "supergroup", title: "Team" },
    { [bob.id]: "creator", [alice.id]: "member", [carol.id]: "member" },
  );
  const forum = fake.addChat(
    { id: -1002, type: "supergroup", title: "Forum", is_forum: true },
    { [bob.id]: "administrator", [alice.id]: "member" },
  );
  if (options.start !== false) await channel.start();
  return {
    fake,
    harness,
    channel,
    logs,
    alice,
    bob,
    carol,
    dm,
    group,
    forum,
    scripted: raw,
    async close() {
      await channel.stop();
      await channel.settled();
      await fake.close();
      await backend?.close();
      await raw?.close();
      if (!options.harness) await harness.close();
    },
  };
}

/** A webhook rig's channel routes served over real HTTP, as Telegram reaches them. */
export interface WebhookEndpoint {
  /**
   * Delivers an update as Telegram would, with `secret` in its secret-token header (none: no
   * header); resolves with the HTTP status.
   */
  post(update: unknown, secret?: string): Promise<number>;
  /** The HTTP server only: the rig closes itself. */
  close(): Promise<void>;
}

/** Serves the routes of a rig started in webhook mode on a free port of 127.0.0.1. */
export async function openWebhook(rig: Rig): Promise<WebhookEndpoint> {
  const server: RunningHttpServer = await startHttpServer({
    port: 0,
    host: "127.0.0.1",
    routes: rig.channel.routes,
    readiness: async () => ({ problems: [] }),
    metrics: new Metrics(),
    log: createLogger({ level: "silent", secrets: [] }),
  });
  const url = `http://127.0.0.1:${server.port}/telegram/webhook`;
  return {
    async post(update, secret) {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(secret === undefined ? {} : { "x-telegram-bot-api-secret-token": secret }),
        },
        body: JSON.stringify(update),
      });
      await response.arrayBuffer();
      return response.status;
    },
    close: () => server.close(),
  };
}

/** Waits until `check` holds, polling every few ms. */
export async function until(
  check: () => boolean,
  timeoutMs = 5_000,
  what = "condition",
): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Waits until the bot has polled `update` and finished handling everything it took. */
export async function answered(rig: Rig, update: { update_id: number }): Promise<void> {
  await until(
    () =>
      rig.fake
        .callsTo("getUpdates")
        .some((call) => Number(call.params.offset ?? 0) > update.update_id),
    5_000,
    `update ${update.update_id} to be polled`,
  );
  await rig.channel.settled();
}

/** The simulated chatbot's Markdown answer to the first question of a conversation. */
export function firstAnswer(question: string): string {
  return composeAnswer({
    question,
    language: resolveLanguage("auto", question),
    memory: { turn: 1, firstQuestion: undefined, previousQuestion: undefined, forgotten: false },
  });
}

/**
 * A backend that streams `answer` (in pieces of whole characters) to every chat request,
 * each once `after` has resolved.
 */
function scriptedBackend(answer: string, after?: Promise<unknown>): Promise<RawBackend> {
  const header = {
    answer: "",
    question: "",
    related_docs: [],
    conversation_uid: "scripted",
    is_qa_mode: false,
    system_message: "",
  };
  const characters = Array.from(answer);
  return startRawBackend(async (ctx) => {
    await after;
    ctx.res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    await ctx.write(`${JSON.stringify(header)}${STREAM_DELIMITER}`, 0);
    for (let at = 0; at < characters.length; at += 400) {
      await ctx.write(characters.slice(at, at + 400).join(""), 2);
    }
    ctx.res.end();
  });
}

/**
 * The calls the fake refused, but for the one with which the channel asks at start whether the
 * Bot API server has rich messages (detectMessageFormat, with TELEGRAM_RICH_MESSAGES on): a
 * draft to the bot itself, refused by design.
 */
export function refusedCalls(fake: FakeTelegram): RecordedCall[] {
  return fake.calls.filter(
    (c) =>
      c.errorCode !== undefined &&
      !(c.method === "sendRichMessageDraft" && c.params.chat_id === fake.bot.id),
  );
}

/**
 * A surface for one answer in a group over the fake, as the channel makes it (no reply chain),
 * with HTML messages unless `format` says otherwise.
 */
export function groupSurface(
  fake: FakeTelegram,
  chatId: number,
  options: {
    budget: Budget;
    store: Store;
    minEditIntervalMs?: number;
    format?: MessageFormat;
  },
): TelegramSurface {
  const format = options.format ?? htmlFormat;
  const api = new Api(fake.token, { apiRoot: fake.url });
  installErrorBoundary(api);
  return new TelegramSurface({
    api,
    log: createLogger({ level: "silent", secrets: [] }),
    place: {
      chatId,
      isPrivate: false,
      topicId: undefined,
      replyTo: undefined,
      threadKey: "t",
      chained: false,
    },
    format,
    limits: {
      maxMessageLength: format.maxMessageLength,
      minEditIntervalMs: options.minEditIntervalMs ?? 0,
    },
    budget: options.budget,
    drafts: new DraftSlots({ enabled: false }),
    chains: new ReplyChains(options.store),
  });
}
