import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { request } from "undici";
import {
  createSlackChannel,
  type SlackChannel,
  type SlackChannelOptions,
} from "../../adapters/slack/index.ts";
import { Chatbots } from "../../src/backend/chatbots.ts";
import { createBackendClient } from "../../src/backend/client.ts";
import type { BackendClient } from "../../src/backend/types.ts";
import { Bridge, type BridgeOptions } from "../../src/bridge/bridge.ts";
import { ButtonHandlers } from "../../src/bridge/button-handlers.ts";
import type { ChatbotSpec } from "../../src/config.ts";
import { ProcessPresence } from "../../src/coordination/process-presence.ts";
import { type RunningHttpServer, startHttpServer } from "../../src/http-server.ts";
import type { AnswerJournal } from "../../src/journal/answer-journal.ts";
import { createLogger, type Logger } from "../../src/log.ts";
import { Metrics } from "../../src/metrics.ts";
import {
  type SimLeadInput,
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from "../../src/simulator/index.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { Store } from "../../src/store/types.ts";
import { OPEN_BRIDGE } from "./bridge-harness.ts";
import { FakeSlack, type FakeSlackOptions } from "./fake-slack.ts";
import { announceOneLead } from "./lead-cards.ts";
import { cleanupAfterEach } from "./process-test.ts";
import {
  BOT,
  eventEnvelope,
  postSignedForm,
  SIGNING_SECRET,
  sign,
  signedJsonHeaders,
  TEAM,
} from "./slack-events.ts";

export {
  BOT,
  blockActions,
  eventEnvelope,
  SIGNING_SECRET,
  sign,
  signedJsonHeaders,
  TEAM,
} from "./slack-events.ts";

/** The harness's shortest time between two changes of one answer's message. */
export const SLACK_EDIT_INTERVAL_MS = 20;

export interface SlackHarnessOptions {
  simulator?: SimulatorOptions;
  /** Another backend than the simulator (a scripted raw backend). */
  backend?: { url: string; apiKey: string; botUid: string };
  /**
   * Several chatbots of one account (CHATBOTS), on the simulator; it serves each bot_uid
   * unless `simulator.bots` says which (a bot_uid it does not serve is refused with 404).
   */
  chatbots?: readonly ChatbotSpec[];
  fake?: FakeSlackOptions;
  slack?: Partial<SlackChannelOptions>;
  /** Socket Mode instead of HTTP. */
  socketMode?: boolean;
  /** A journal of answers in flight for the bridge, on the harness's store. */
  journal?: (store: Store, presence: ProcessPresence) => AnswerJournal;
  /** MAX_ACTIVE_ANSWERS and MAX_QUEUED_QUESTIONS; default: no cap. */
  answerQueue?: { maxActive: number; maxQueued: number };
  /** How long the backend may be silent before the status shows; default 0 (at once). */
  typingDelayMs?: number;
  /** Lowest level of the lines kept in `logs` (default warn). */
  logLevel?: "debug" | "info" | "warn";
  /** What a first question carries of its thread, and how long it waits for it. */
  context?: BridgeOptions["context"];
}

/** Log lines (JSON) written while the harness runs, level warn and up. */
export type LogLines = { level: number; msg: string; err?: { message?: string }; kind?: string }[];

export interface Ack {
  status: number;
  /** From sending the request to its complete response. */
  ms: number;
  body: string;
}

export interface SlackHarness {
  fake: FakeSlack;
  bridge: Bridge;
  channel: SlackChannel;
  http: RunningHttpServer;
  simulator: Simulator;
  backend: BackendClient;
  store: Store;
  eventsUrl: string;
  logs: LogLines;
  /** The logger whose lines land in `logs`, for what a test wires up beside the channel. */
  log: Logger;
  /** Delivers an Events API envelope (signed HTTP request, or a Socket Mode envelope). */
  sendEvent(event: Record<string, unknown>, options?: SendOptions): Promise<Ack>;
  /** POSTs a body exactly as given (a recorded envelope, a form), signed unless told not to. */
  sendRaw(body: string, contentType: string, options?: SendOptions): Promise<Ack>;
  /** Delivers an interactivity payload (a button press), signed and form-encoded as Slack does. */
  sendAction(payload: Record<string, unknown>, options?: SendOptions): Promise<Ack>;
  /** Delivers a slash command. */
  sendCommand(command: string, text: string, options?: CommandOptions): Promise<Ack>;
  /** Waits until every delivery so far has been handled. */
  settle(): Promise<void>;
  nextTs(): string;
  close(): Promise<void>;
}

export interface SendOptions {
  eventId?: string;
  /** The workspace the event comes from (default TEAM). */
  team?: string;
  retryNum?: number;
  /** Seconds since the epoch in the signature (default: now). */
  timestamp?: number;
  /** false: no signature headers; a string: that signature. */
  signature?: false | string;
}

export interface CommandOptions {
  user?: string;
  channel?: string;
}

/** The Slack channel for real: Bolt on the shared HTTP server, a fake Slack, the simulator. */
export async function startSlackHarness(options: SlackHarnessOptions = {}): Promise<SlackHarness> {
  // Slack's tiers scaled up (Tier 3 is about 50 a minute) so tests run at test speed; tests of
  // the budget itself set their own.
  const fake = await FakeSlack.start({
    users: { U1: {}, UADMIN: { isAdmin: true } },
    tiers: {
      "chat.update": { perMinute: 6_000, burst: 10 },
      "chat.appendStream": { perMinute: 12_000, burst: 10 },
    },
    ...options.fake,
  });
  const bots = options.chatbots?.map((chatbot) => chatbot.botUid);
  const simulator = await startSimulator({
    chunkDelayMs: 0,
    ...(bots && { bots }),
    ...options.simulator,
  });
  const target = options.backend ?? {
    url: simulator.url,
    apiKey: simulator.apiKey,
    botUid: simulator.botUid,
  };
  const account = { baseUrl: target.url, apiKey: target.apiKey };
  const dataDir = await mkdtemp(join(tmpdir(), "slack-test-"));
  const store = await openStore({ dataDir });
  const logs: LogLines = [];
  const log = createLogger({
    level: options.logLevel ?? "warn",
    secrets: [],
    pretty: false,
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString("utf8").split("\n").filter(Boolean))
          logs.push(JSON.parse(line));
        done();
      },
    }),
  });
  const chatbots = options.chatbots
    ? Chatbots.open(account, options.chatbots, "CHATBOTS", log)
    : Chatbots.single(createBackendClient({ ...account, botUid: target.botUid }), undefined, log);
  const backend = chatbots.default.client;
  // One registry for the bridge and /metrics, as in the process.
  const metrics = new Metrics();
  const presence = new ProcessPresence({ store, log });
  const bridge = new Bridge({
    backend: chatbots,
    store,
    log,
    metrics,
    presence,
    ...OPEN_BRIDGE,
    ...(options.typingDelayMs !== undefined && { typingDelayMs: options.typingDelayMs }),
    journal: options.journal?.(store, presence),
    context: options.context,
    ...(options.answerQueue && {
      maxActive: options.answerQueue.maxActive,
      maxQueued: options.answerQueue.maxQueued,
    }),
  });
  // The answers' Stop and 👍/👎 buttons, as main.ts registers them.
  const buttons = new ButtonHandlers();
  bridge.registerButtons(buttons);
  const channel = createSlackChannel({
    buttons,
    botToken: fake.options.botToken,
    signingSecret: SIGNING_SECRET,
    appToken: options.socketMode ? fake.options.appToken : undefined,
    apiUrl: fake.apiUrl,
    adminUsers: [],
    bridge,
    store,
    log,
    editIntervalMs: SLACK_EDIT_INTERVAL_MS,
    updatesPerMinute: 6_000,
    appendsPerMinute: 12_000,
    budgetBurst: 5,
    ...options.slack,
  });
  const http = await startHttpServer({
    port: 0,
    host: "127.0.0.1",
    routes: channel.routes,
    readiness: async () => ({ problems: [] }),
    metrics,
    log,
  });
  await channel.start();
  await bridge.start([channel]);
  if (options.socketMode) await fake.socket.connected();
  const eventsUrl = `http://127.0.0.1:${http.port}/slack/events`;
  let seq = 0;

  const post = async (body: string, contentType: string, send: SendOptions = {}): Promise<Ack> => {
    const timestamp = send.timestamp ?? Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = { "content-type": contentType };
    if (send.signature !== false) {
      headers["x-slack-request-timestamp"] = String(timestamp);
      headers["x-slack-signature"] = send.signature ?? sign(timestamp, body);
    }
    if (send.retryNum !== undefined) {
      headers["x-slack-retry-num"] = String(send.retryNum);
      headers["x-slack-retry-reason"] = "http_timeout";
    }
    const started = performance.now();
    const response = await request(eventsUrl, { method: "POST", headers, body });
    const text = await response.body.text();
    return { status: response.statusCode, ms: performance.now() - started, body: text };
  };

  return {
    fake,
    bridge,
    channel,
    http,
    simulator,
    backend,
    store,
    eventsUrl,
    logs,
    log,
    async sendEvent(event, send = {}) {
      const envelope = eventEnvelope(event, send);
      if (!options.socketMode) return post(JSON.stringify(envelope), "application/json", send);
      const started = performance.now();
      await fake.socket.deliver("events_api", envelope, { retryAttempt: send.retryNum ?? 0 });
      return { status: 200, ms: performance.now() - started, body: "" };
    },
    sendRaw: post,
    async sendAction(payload, send = {}) {
      if (!options.socketMode) {
        const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
        return post(body, "application/x-www-form-urlencoded", send);
      }
      const started = performance.now();
      await fake.socket.deliver("interactive", payload);
      return { status: 200, ms: performance.now() - started, body: "" };
    },
    async sendCommand(command, text, send = {}) {
      const payload = {
        command,
        text,
        team_id: TEAM,
        team_domain: "fake",
        channel_id: send.channel ?? "C1",
        channel_name: "general",
        user_id: send.user ?? "U1",
        user_name: "someone",
        api_app_id: "A0FAKE",
        trigger_id: `trigger-${++seq}`,
        response_url: fake.responseUrl(String(seq)),
      };
      if (!options.socketMode) {
        return post(new URLSearchParams(payload).toString(), "application/x-www-form-urlencoded");
      }
      const started = performance.now();
      await fake.socket.deliver("slash_commands", payload);
      return { status: 200, ms: performance.now() - started, body: "" };
    },
    async settle() {
      // The listener runs right after the ack: give it a moment to take the delivery.
      await sleep(30);
      await channel.idle();
    },
    nextTs() {
      return `1700000100.${String(++seq).padStart(6, "0")}`;
    },
    async close() {
      await channel.stop();
      await bridge.drain(0);
      await presence.close();
      await http.close();
      await fake.close();
      await chatbots.close();
      await simulator.close();
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * startSlackHarness for one test file: a test's options over the file's `defaults` (simulator,
 * fake and slack merged key by key), each harness closed after the test that started it.
 */
export function slackHarnessPerTest(
  defaults: SlackHarnessOptions = {},
): (options?: SlackHarnessOptions) => Promise<SlackHarness> {
  const track = cleanupAfterEach();
  return async (options = {}) =>
    track(
      await startSlackHarness({
        ...defaults,
        ...options,
        simulator: { ...defaults.simulator, ...options.simulator },
        fake: { ...defaults.fake, ...options.fake },
        slack: { ...defaults.slack, ...options.slack },
      }),
      (harness) => harness.close(),
    );
}

/** announceOneLead in channel C1 of this harness, with the claim buttons on `buttons`. */
export function announceOneLeadInC1(
  harness: SlackHarness,
  buttons: ButtonHandlers,
  lead: SimLeadInput,
): Promise<void> {
  return announceOneLead({
    buttons,
    store: harness.store,
    backend: harness.backend,
    simulator: harness.simulator,
    channel: { platform: "slack", id: "C1" },
    announcer: harness.channel.leadAnnouncer,
    lead,
    log: harness.log,
  });
}

/** `@bot text` in a channel: the `app_mention` event (its `message` twin: `asMessage`). */
export function mention(
  text: string,
  at: { ts: string; channel?: string; user?: string; threadTs?: string },
): Record<string, unknown> {
  return {
    type: "app_mention",
    user: at.user ?? "U1",
    text: `<@${BOT}> ${text}`,
    ts: at.ts,
    channel: at.channel ?? "C1",
    ...(at.threadTs ? { thread_ts: at.threadTs } : {}),
    team: TEAM,
    event_ts: at.ts,
  };
}

/** The `message` event Slack sends for the same message as an `app_mention`. */
export function asMessage(event: Record<string, unknown>): Record<string, unknown> {
  return { ...event, type: "message", channel_type: "channel" };
}

/** A person's message: in a DM (`channel` D…) or a channel thread. */
export function message(
  text: string,
  at: { ts: string; channel?: string; user?: string; threadTs?: string; im?: boolean },
): Record<string, unknown> {
  const im = at.im ?? (at.channel ?? "C1").startsWith("D");
  return {
    type: "message",
    channel_type: im ? "im" : "channel",
    user: at.user ?? "U1",
    text,
    ts: at.ts,
    channel: at.channel ?? "C1",
    ...(at.threadTs ? { thread_ts: at.threadTs } : {}),
    team: TEAM,
    event_ts: at.ts,
  };
}

/**
 * A person opens the bot's DM (its Messages tab): `app_home_opened` with `tab: "messages"`, how
 * an app in the agent view learns of it. https://docs.slack.dev/reference/events/app_home_opened
 */
export function dmOpened(at: {
  eventTs: string;
  channel?: string;
  user?: string;
  tab?: "messages" | "home";
}): Record<string, unknown> {
  return {
    type: "app_home_opened",
    user: at.user ?? "U1",
    channel: at.channel ?? "D1",
    tab: at.tab ?? "messages",
    event_ts: at.eventTs,
  };
}

let trigger = 0;
/**
 * An admin's (UADMIN, of workspace T0FAKE) slash command in `channel`, posted to a bot
 * process's `events` URL; the reply goes to `fake`'s response_url.
 */
export function adminCommand(
  events: string,
  fake: FakeSlack,
  name: string,
  text: string,
  channel: string,
): Promise<number> {
  trigger++;
  return postSignedForm(events, {
    command: name,
    text,
    team_id: "T0FAKE",
    channel_id: channel,
    user_id: "UADMIN",
    user_name: "admin",
    api_app_id: "A0FAKE",
    trigger_id: `trigger-${trigger}`,
    response_url: fake.responseUrl(String(trigger)),
  });
}

/** Posts an event to a bot process's `events` URL, signed; resolves with the HTTP status. */
export async function deliverEvent(
  events: string,
  event: Record<string, unknown>,
): Promise<number> {
  const body = JSON.stringify(eventEnvelope(event));
  const response = await fetch(events, { method: "POST", headers: signedJsonHeaders(body), body });
  await response.arrayBuffer();
  return response.status;
}
