import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { parse as parseQuery } from "node:querystring";
import {
  type Ephemeral,
  FakeConversations,
  type FakeMessage,
  type WrittenMessage,
} from "./fake-slack-conversations.ts";
import { type AgentSessions, FakeSessions } from "./fake-slack-sessions.ts";
import { FakeSocketServer } from "./fake-slack-socket.ts";
import { FloodLimits, type Limit } from "./flood-limits.ts";

export type { Ephemeral, FakeMessage } from "./fake-slack-conversations.ts";

import { type View, viewMarkdown, viewMarkdownBlock, viewMrkdwn } from "./fake-slack-view.ts";
import { agentSessionStopped } from "./slack-events.ts";
import { slackTiers } from "./slack-tiers.ts";

/**
 * A rate tier of one method in a workspace: Slack's calls per minute (slack-tiers.ts), or a
 * bucket of `burst` calls refilled at `perMinute` where a test wants one.
 */
export type Tier = Limit;

export interface FakeSlackOptions {
  botToken?: string;
  appToken?: string;
  team?: string;
  botUserId?: string;
  botId?: string;
  /** Users and whether they administer the workspace. */
  /** `locale`: what users.info says with include_locale (`fr-FR`, `ja-JP`). */
  /** `name`: their display name (users.info's profile.display_name). */
  users?: Record<
    string,
    { isAdmin?: boolean; isOwner?: boolean; team?: string; locale?: string; name?: string }
  >;
  /** Channels the bot may post in, by id; "im" channels are DMs. Unknown ids: channel_not_found. */
  channels?: Record<string, { type: "channel" | "im"; member?: boolean; name?: string }>;
  /** Per-workspace limits by method; default Slack's own (slackTiers: Tier 3 and 4 per minute). */
  tiers?: Partial<Record<string, Tier>>;
  /** false: the streaming methods answer feature_not_enabled. Default true. */
  streaming?: boolean;
  /** A stream stops accepting appends this long after it started (Slack: about 5 minutes). */
  streamLifetimeMs?: number;
  /** The port to listen on (a Slack that comes back where it was); default any free one. */
  port?: number;
  /**
   * Most messages a conversations.replies page holds: Slack's 1,000 (the default), or 15 as
   * for an app not approved for the Slack Marketplace.
   */
  repliesPageMax?: number;
  /**
   * How the app's manifest shows it in DMs: "agent" (`agent_view`, as adapters/slack/manifest.yml
   * has it; the default) or "assistant" (`assistant_view`, an app made from an older manifest).
   */
  view?: "agent" | "assistant";
  /**
   * Whether the app is declared an agent, so it has agent sessions: "agent" (the default, as
   * the manifest's agent_view makes it), or what agents.sessions.setStatus answers in a
   * workspace where it is not: "not_authorized", or "missing_scope" (no assistant:write).
   */
  agentSessions?: AgentSessions;
}

/** One Web API call as the fake received it. */
export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  at: number;
  /** "ok", or the error the fake answered ("ratelimited" for a 429). */
  outcome: string;
}

/** A forced answer for a coming call: a Slack error, or a 429 with Retry-After seconds. */
type Fault = { error: string } | { retryAfter: number };

/**
 * A fake Slack Web API on 127.0.0.1 that keeps the rules an app lives by: bot-token auth,
 * thread replies, chat.update on the bot's own messages only, the streaming methods'
 * recipient rules, states and lifetime, the loading status under a thread (cleared by the
 * app's next reply), suggested prompts as the app's view (agent or assistant) shows them,
 * conversations.history, agent sessions (agents.sessions.setStatus, opened by streams too, and
 * Slack's own Stop on a processing one), per-workspace rate tiers answered with 429 and
 * Retry-After, and Socket Mode (`apps.connections.open` plus a WebSocket). It records every
 * call and keeps each conversation as a person would see it.
 */
export class FakeSlack {
  readonly calls: SlackCall[] = [];
  /** Replies sent to a slash command's response_url. */
  readonly responses: { type: string; text: string }[] = [];
  /** Every status the app set (assistant.threads.setStatus), in order. */
  readonly statuses: { channel: string; threadTs: string; status: string }[] = [];
  /** The reactions the bot added (reactions.add), in order. */
  readonly reactions: { channel: string; ts: string; name: string }[] = [];
  /**
   * Every set of suggested prompts a person was shown (assistant.threads.setSuggestedPrompts),
   * in order, with the message they show under; a call that failed silently is not here.
   */
  readonly prompts: {
    channel: string;
    threadTs: string | undefined;
    shownUnder: string | undefined;
    prompts: unknown;
  }[] = [];
  readonly socket = new FakeSocketServer();
  readonly options: Required<Omit<FakeSlackOptions, "tiers">> & {
    tiers: Partial<Record<string, Tier>>;
  };
  #server!: Server;
  readonly #sockets = new Set<Socket>();
  readonly conversations: FakeConversations;
  readonly #sessions: FakeSessions;
  #port = 0;
  readonly #floodLimits = new FloodLimits();
  readonly #delays = new Map<string, number>();
  readonly #faults = new Map<string, Fault[]>();

  constructor(options: FakeSlackOptions = {}) {
    this.options = {
      botToken: options.botToken ?? "xoxb-fake-bot-token",
      appToken: options.appToken ?? "xapp-fake-app-token",
      team: options.team ?? "T0FAKE",
      botUserId: options.botUserId ?? "UBOT",
      botId: options.botId ?? "BBOT",
      users: options.users ?? {},
      channels: options.channels ?? { C1: { type: "channel" }, D1: { type: "im" } },
      tiers: options.tiers ?? slackTiers(),
      streaming: options.streaming ?? true,
      streamLifetimeMs: options.streamLifetimeMs ?? 5 * 60_000,
      port: options.port ?? 0,
      view: options.view ?? "agent",
      repliesPageMax: options.repliesPageMax ?? 1_000,
      agentSessions: options.agentSessions ?? "agent",
    };
    this.conversations = new FakeConversations(this.options);
    this.#sessions = new FakeSessions(
      () => this.options.agentSessions,
      (channel) => this.conversations.channelError(channel),
    );
  }

  /** Every message the bot posted or streamed, by ts. */
  get messages(): Map<string, FakeMessage> {
    return this.conversations.messages;
  }

  get ephemerals(): Ephemeral[] {
    return this.conversations.ephemerals;
  }

  static async start(options: FakeSlackOptions = {}): Promise<FakeSlack> {
    const fake = new FakeSlack(options);
    await fake.#listen();
    return fake;
  }

  /** The Web API base, ending in /api/ (SLACK_API_URL). */
  get apiUrl(): string {
    return `http://127.0.0.1:${this.#port}/api/`;
  }

  /** Where the fake listens, without a path: what stands for `https://hooks.slack.com`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /** A response_url for a slash command. */
  responseUrl(id = "1"): string {
    return `${this.baseUrl}/respond/${id}`;
  }

  /** The next `times` calls of `method` fail with `error` (e.g. message_not_in_streaming_state). */
  failNext(method: string, error: string, times = 1): void {
    this.#queue(
      method,
      Array.from({ length: times }, () => ({ error })),
    );
  }

  /** Every later call of `method` is handled `ms` late, its effect too (a slow Slack). */
  slowDown(method: string, ms: number): void {
    this.#delays.set(method, ms);
  }

  /** The next call of `method` answers 429 with `Retry-After: seconds`. */
  rateLimitNext(method: string, seconds: number): void {
    this.#queue(method, [{ retryAfter: seconds }]);
  }

  setStreaming(on: boolean): void {
    this.options.streaming = on;
  }

  /**
   * A person (U1 unless `user` says) or another app wrote `text` in a conversation: Slack keeps
   * it, and conversations.history and conversations.replies list it. The event that tells the
   * bot is the test's to send.
   */
  personWrote(at: WrittenMessage): void {
    this.conversations.addPersonMessage(at);
  }

  /** The bot's messages in a thread, oldest first, deleted ones left out. */
  thread(channel: string, threadTs: string): FakeMessage[] {
    return this.conversations.thread(channel, threadTs);
  }

  /** The loading status a thread shows now ("" for none): set by setStatus, cleared by a reply. */
  statusOf(channel: string, threadTs: string): string {
    return this.conversations.status(channel, threadTs);
  }

  /** The thread's agent session status now (processing, active…); undefined without one. */
  sessionOf(channel: string, threadTs: string): string | undefined {
    return this.#sessions.status(channel, threadTs);
  }

  /** Every status the thread's agent session had, oldest first. */
  sessionHistory(channel: string, threadTs: string): string[] {
    return this.#sessions.history(channel, threadTs);
  }

  /** Puts the thread's session in `status`, as a process killed mid-answer leaves it. */
  setSession(channel: string, threadTs: string, status: string): void {
    this.#sessions.set(channel, threadTs, status);
  }

  /**
   * `user` presses Slack's own Stop in the thread, shown while its session is processing:
   * Slack stops the bot's live streams there, leaves the session processing (the app moves
   * it), and sends the `agent_session_stopped` event returned here, for the test to deliver.
   * https://docs.slack.dev/reference/events/agent_session_stopped
   */
  pressStop(channel: string, threadTs: string, user: string): Record<string, unknown> {
    if (this.sessionOf(channel, threadTs) !== "processing") {
      throw new Error(
        `Slack shows no Stop in ${channel} ${threadTs}: its session is not processing`,
      );
    }
    const streamingMessageTs = this.conversations.stopStreams(channel, threadTs);
    return agentSessionStopped({ channel, threadTs, user, streamingMessageTs });
  }

  /** What a person sees of a message: its markdown blocks where it has any, else its text. */
  view(message: FakeMessage): View {
    if (message.markdown !== undefined) return viewMarkdownBlock(message.markdown);
    return message.format === "markdown" ? viewMarkdown(message.text) : viewMrkdwn(message.text);
  }

  /**
   * Every state a person saw of a message, oldest first: each text it showed, then each text
   * of its markdown blocks.
   */
  views(message: FakeMessage): View[] {
    const texts = message.history.map((text, i) =>
      (message.historyFormats[i] === "markdown" ? viewMarkdown : viewMrkdwn)(text),
    );
    return [...texts, ...message.markdownHistory.map(viewMarkdownBlock)];
  }

  /** The tables a message shows as tables (each a list of rows of cell texts). */
  tablesOf(message: FakeMessage): string[][][] {
    return this.view(message).tables;
  }

  /** The buttons a message shows now (its actions blocks): what each says and sends back. */
  buttonsOf(message: FakeMessage): { actionId: string; value: string; label: string }[] {
    return (message.blocks ?? []).flatMap((block) => {
      const { type, elements } = block as { type?: string; elements?: unknown[] };
      if (type === "context_actions" && Array.isArray(elements)) return feedbackButtons(elements);
      if (type !== "actions" || !Array.isArray(elements)) return [];
      return elements.map((element) => {
        const button = element as { action_id?: string; value?: string; text?: { text?: string } };
        return {
          actionId: String(button.action_id),
          value: String(button.value ?? ""),
          label: String(button.text?.text ?? ""),
        };
      });
    });
  }

  callsTo(method: string): SlackCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** Calls Slack refused with a 429. */
  get rateLimited(): SlackCall[] {
    return this.calls.filter((c) => c.outcome === "ratelimited");
  }

  async close(): Promise<void> {
    this.socket.close();
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #listen(): Promise<void> {
    this.#server = createServer((req, res) => {
      void this.#handle(req, res);
    });
    this.#server.on("connection", (socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
    this.#server.on("upgrade", (req, socket) => this.socket.handleUpgrade(req, socket));
    this.#server.listen(this.options.port, "127.0.0.1");
    await once(this.#server, "listening");
    this.#port = (this.#server.address() as AddressInfo).port;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const url = req.url ?? "/";
    // Slack's own response_urls are hooks.slack.com/commands/… and /actions/….
    if (RESPONSE_URL_PATHS.some((path) => url.startsWith(path))) {
      const body = JSON.parse(raw || "{}") as { response_type?: string; text?: string };
      this.responses.push({ type: body.response_type ?? "ephemeral", text: body.text ?? "" });
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      return;
    }
    const method = url.replace(/^\/api\//, "").split("?")[0] ?? "";
    const args = parseArgs(raw, req.headers["content-type"]);
    const token =
      (req.headers.authorization ?? "").replace(/^Bearer /, "") || String(args.token ?? "");
    const call: SlackCall = { method, args, at: performance.now(), outcome: "ok" };
    this.calls.push(call);
    const delay = this.#delays.get(method);
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    const reply = (
      status: number,
      body: Record<string, unknown>,
      headers: Record<string, string> = {},
    ) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    };
    const wantApp = method === "apps.connections.open";
    if (token !== (wantApp ? this.options.appToken : this.options.botToken)) {
      call.outcome = "invalid_auth";
      reply(200, { ok: false, error: "invalid_auth" });
      return;
    }
    const limited = this.#limit(method);
    if (limited !== undefined) {
      call.outcome = "ratelimited";
      reply(429, { ok: false, error: "ratelimited" }, { "retry-after": String(limited) });
      return;
    }
    const fault = this.#faults.get(method)?.shift();
    if (fault) {
      if ("retryAfter" in fault) {
        call.outcome = "ratelimited";
        reply(
          429,
          { ok: false, error: "ratelimited" },
          { "retry-after": String(fault.retryAfter) },
        );
      } else {
        call.outcome = fault.error;
        if (fault.error === "message_not_in_streaming_state") this.conversations.expireStream(args);
        reply(200, { ok: false, error: fault.error });
      }
      return;
    }
    const result = this.#dispatch(method, args);
    call.outcome = result.ok ? "ok" : String(result.error);
    reply(200, result);
  }

  #dispatch(method: string, args: Record<string, unknown>): Record<string, unknown> {
    switch (method) {
      case "auth.test":
        return {
          ok: true,
          url: "https://fake.slack.com/",
          team: "Fake",
          user: "chatbot",
          team_id: this.options.team,
          user_id: this.options.botUserId,
          bot_id: this.options.botId,
        };
      case "apps.connections.open":
        return { ok: true, url: `ws://127.0.0.1:${this.#port}/socket` };
      case "users.info":
        return this.#usersInfo(args);
      case "chat.getPermalink":
        return this.#permalink(args);
      case "reactions.add":
        return this.#react(args);
      case "conversations.info":
        return this.#conversationInfo(args);
      case "assistant.threads.setStatus": {
        const result = this.conversations.setStatus(args);
        if (result.ok) {
          this.statuses.push({
            channel: String(args.channel_id),
            threadTs: String(args.thread_ts),
            status: String(args.status),
          });
        }
        return result;
      }
      case "assistant.threads.setSuggestedPrompts": {
        const result = this.conversations.suggestPrompts(args, this.options.view);
        if (!result.ok) return result;
        if (result.shownUnder !== undefined) {
          this.prompts.push({
            channel: String(args.channel_id),
            threadTs: args.thread_ts === undefined ? undefined : String(args.thread_ts),
            shownUnder: result.shownUnder,
            prompts: args.prompts,
          });
        }
        return { ok: true };
      }
      case "agents.sessions.setStatus":
        return this.#sessions.setStatus(args);
      default: {
        const result = this.conversations.handle(method, args);
        if (result?.ok) this.#streamSession(method, args);
        return result ?? { ok: false, error: "unknown_method" };
      }
    }
  }

  /** A stream that started or stopped moves its thread's session, as Slack's bridge does. */
  #streamSession(method: string, args: Record<string, unknown>): void {
    const channel = String(args.channel);
    if (method === "chat.startStream")
      this.#sessions.streamStarted(channel, String(args.thread_ts));
    const threadTs = this.messages.get(String(args.ts))?.threadTs;
    if (method === "chat.stopStream" && threadTs !== undefined) {
      this.#sessions.streamStopped(channel, threadTs, args.session_status);
    }
  }

  /**
   * A message's link, as Slack makes it (a reply's carries its thread).
   * https://docs.slack.dev/reference/methods/chat.getPermalink
   */
  #permalink(args: Record<string, unknown>): Record<string, unknown> {
    const channel = String(args.channel ?? "");
    const ts = String(args.message_ts ?? "");
    if (!this.options.channels[channel]) return { ok: false, error: "channel_not_found" };
    if (!/^\d+\.\d+$/.test(ts)) return { ok: false, error: "message_not_found" };
    const permalink = `https://fake.slack.com/archives/${channel}/p${ts.replace(".", "")}`;
    return { ok: true, channel, permalink };
  }

  /**
   * The bot reacts to a message Slack keeps (personWrote, or the bot's own), once per emoji.
   * https://docs.slack.dev/reference/methods/reactions.add
   */
  #react(args: Record<string, unknown>): Record<string, unknown> {
    const channel = String(args.channel ?? "");
    const ts = String(args.timestamp ?? "");
    const name = String(args.name ?? "");
    if (!this.options.channels[channel]) return { ok: false, error: "channel_not_found" };
    const message = this.messages.get(ts);
    if (!message || message.channel !== channel || message.deleted) {
      return { ok: false, error: "message_not_found" };
    }
    if (!/^[a-z0-9_+-]+$/.test(name)) return { ok: false, error: "invalid_name" };
    if (this.reactions.some((r) => r.channel === channel && r.ts === ts && r.name === name)) {
      return { ok: false, error: "already_reacted" };
    }
    this.reactions.push({ channel, ts, name });
    return { ok: true };
  }

  /** A channel's name (channels:read). https://docs.slack.dev/reference/methods/conversations.info */
  #conversationInfo(args: Record<string, unknown>): Record<string, unknown> {
    const id = String(args.channel ?? "");
    const channel = this.options.channels[id];
    if (!channel) return { ok: false, error: "channel_not_found" };
    const im = channel.type === "im";
    return {
      ok: true,
      channel: { id, is_im: im, ...(im ? {} : { name: channel.name ?? id.toLowerCase() }) },
    };
  }

  #usersInfo(args: Record<string, unknown>): Record<string, unknown> {
    const id = String(args.user ?? "");
    const user = this.options.users[id];
    if (!user) return { ok: false, error: "user_not_found" };
    return {
      ok: true,
      user: {
        id,
        team_id: user.team ?? this.options.team,
        is_admin: Boolean(user.isAdmin),
        is_owner: Boolean(user.isOwner),
        // Slack sends the locale only when asked for it.
        // https://docs.slack.dev/reference/methods/users.info#arg_include_locale
        ...(String(args.include_locale) === "true" && user.locale ? { locale: user.locale } : {}),
        name: id.toLowerCase(),
        real_name: user.name ?? id,
        profile: { display_name: user.name ?? "", real_name: user.name ?? id },
      },
    };
  }

  /** Seconds to wait when `method` is over its tier now, else undefined (and a token is taken). */
  #limit(method: string): number | undefined {
    const tier = this.options.tiers[method];
    if (!tier) return undefined;
    const waitMs = this.#floodLimits.take(method, tier);
    return waitMs === 0 ? undefined : Math.max(1, Math.ceil(waitMs / 1_000));
  }

  #queue(method: string, faults: Fault[]): void {
    const queue = this.#faults.get(method) ?? [];
    queue.push(...faults);
    this.#faults.set(method, queue);
  }
}

const RESPONSE_URL_PATHS = ["/respond/", "/commands/", "/actions/"];

/** The two sides of each feedback buttons element, as buttons that send their own value. */
function feedbackButtons(
  elements: unknown[],
): { actionId: string; value: string; label: string }[] {
  type Side = { value?: string; text?: { text?: string } };
  return elements.flatMap((element) => {
    const pair = element as {
      type?: string;
      action_id?: string;
      positive_button?: Side;
      negative_button?: Side;
    };
    if (pair.type !== "feedback_buttons") return [];
    return [pair.positive_button, pair.negative_button].map((side) => ({
      actionId: String(pair.action_id),
      value: String(side?.value ?? ""),
      label: String(side?.text?.text ?? ""),
    }));
  });
}

const JSON_FIELDS = new Set(["chunks", "prompts", "blocks", "attachments", "metadata"]);

/** The Web API takes form-encoded arguments (objects as JSON strings) or a JSON body. */
function parseArgs(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (!raw) return {};
  if (contentType?.includes("application/json")) return JSON.parse(raw) as Record<string, unknown>;
  const form = parseQuery(raw);
  const args: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(form)) {
    const text = Array.isArray(value) ? value[0] : value;
    args[key] = text !== undefined && JSON_FIELDS.has(key) ? safeJson(text) : text;
  }
  return args;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
