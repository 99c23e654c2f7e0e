/** A fake Slack's conversations: the messages the bot posted, edited and streamed. */

/** A message in a conversation, as it stands now. */
export interface FakeMessage {
  ts: string;
  channel: string;
  threadTs: string | undefined;
  /** mrkdwn for posted messages; Markdown for streamed ones until a chat.update replaced it. */
  format: "mrkdwn" | "markdown";
  /** Its `text`: what it shows, or with a markdown block only its notifications' text. */
  text: string;
  /**
   * The text of its markdown blocks (standard Markdown), which Slack shows in place of `text`
   * (then the notifications' and screen readers' copy); undefined without one.
   */
  markdown: string | undefined;
  byBot: boolean;
  /** Who wrote it: the bot's user id for the bot's own messages. */
  user: string | undefined;
  /** Another app's message (conversations.replies shows its bot_id and name). */
  app?: { botId: string; name: string } | undefined;
  /** What kind of message Slack says it is (`channel_join`…); undefined for a plain one. */
  subtype?: string | undefined;
  deleted: boolean;
  /** chat.update calls that changed it; chat.appendStream calls that grew it. */
  updates: number;
  appends: number;
  stream: "none" | "streaming" | "stopped";
  streamStartedAt: number;
  /** Every text it showed, in order. */
  history: string[];
  /** The format of each text of `history`. */
  historyFormats: FakeMessage["format"][];
  /** Every `markdown` it showed, in order. */
  markdownHistory: string[];
  /** The Block Kit blocks it carries now (lead cards, buttons), as the bot last sent them. */
  blocks: unknown[] | undefined;
}

export interface Ephemeral {
  channel: string;
  user: string;
  threadTs: string | undefined;
  text: string;
}

/** What decides how the streaming methods answer (the fake's options, live). */
export interface ConversationRules {
  channels: Record<string, { type: "channel" | "im"; member?: boolean }>;
  streaming: boolean;
  streamLifetimeMs: number;
  botUserId: string;
  botId: string;
  /**
   * Most messages one conversations.replies page holds, whatever `limit` asks: Slack's 1,000,
   * or 15 for an app not approved for the Slack Marketplace (since May 2025).
   */
  repliesPageMax: number;
}

/** A message someone other than the bot wrote in a conversation (FakeSlack.personWrote). */
export interface WrittenMessage {
  channel: string;
  ts: string;
  text: string;
  threadTs?: string;
  /** The person who wrote it (default U1). */
  user?: string;
  /** Another app wrote it, not a person. */
  app?: { botId: string; name: string };
  subtype?: string;
}

const STREAM_MAX_MARKDOWN = 12_000;
const MAX_TEXT = 40_000;
// Block Kit's bounds: 50 blocks a message, 3,000 characters in a section's text, 12,000 in all
// the markdown blocks of one payload. https://docs.slack.dev/reference/block-kit/blocks
// https://docs.slack.dev/reference/block-kit/blocks/markdown-block
const MAX_BLOCKS = 50;
const MAX_SECTION_TEXT = 3_000;
const MAX_MARKDOWN_BLOCKS = 12_000;

/**
 * The chat.* methods as Slack keeps them: replies in threads, chat.update on the bot's own
 * messages only (not on a live stream), the streaming methods' recipient rules, states and
 * lifetime, and the limits on text length.
 */
export class FakeConversations {
  readonly messages = new Map<string, FakeMessage>();
  readonly ephemerals: Ephemeral[] = [];
  readonly #options: ConversationRules;
  /** The loading status each thread shows now, by "channel thread_ts". */
  readonly #statuses = new Map<string, string>();
  readonly #clock = 1_700_000_000;
  #seq = 0;

  constructor(options: ConversationRules) {
    this.#options = options;
  }

  /** Answers a chat.* call, or undefined for another method. */
  handle(method: string, args: Record<string, unknown>): Record<string, unknown> | undefined {
    switch (method) {
      case "chat.postMessage":
        return this.#post(args);
      case "chat.update":
        return this.#update(args);
      case "chat.delete":
        return this.#delete(args);
      case "chat.postEphemeral":
        return this.#postEphemeral(args);
      case "chat.startStream":
        return this.#startStream(args);
      case "chat.appendStream":
        return this.#appendStream(args);
      case "chat.stopStream":
        return this.#stopStream(args);
      case "conversations.history":
        return this.#history(args);
      case "conversations.replies":
        return this.#replies(args);
      default:
        return undefined;
    }
  }

  /**
   * assistant.threads.setStatus: the app's loading status under a thread, in a DM or (since
   * Slack's changelog of 2026-03-05, with chat:write) a channel. "" clears it; so does the
   * app's next reply in the thread, as Slack does.
   * https://docs.slack.dev/reference/methods/assistant.threads.setStatus
   * https://docs.slack.dev/changelog/2026/03/05/set-status-scope-update
   */
  setStatus(args: Record<string, unknown>): Record<string, unknown> {
    const error = this.channelError(args.channel_id);
    if (error) return { ok: false, error };
    if (args.thread_ts === undefined || args.status === undefined) {
      return { ok: false, error: "invalid_arguments" };
    }
    this.#statuses.set(threadKey(args.channel_id, args.thread_ts), String(args.status));
    return { ok: true };
  }

  /**
   * assistant.threads.setSuggestedPrompts: the message the prompts show under, or "silent" when
   * the call answers ok and shows nothing. In the agent view (`agent_view`) a `thread_ts` makes
   * the call fail silently; without one the prompts go to the channel's latest message.
   * https://docs.slack.dev/reference/methods/assistant.threads.setSuggestedPrompts
   */
  suggestPrompts(
    args: Record<string, unknown>,
    view: "agent" | "assistant",
  ): { ok: true; shownUnder: string | undefined } | { ok: false; error: string } {
    const error = this.channelError(args.channel_id);
    if (error) return { ok: false, error };
    if (!Array.isArray(args.prompts)) return { ok: false, error: "invalid_arguments" };
    if (args.thread_ts === undefined) {
      return { ok: true, shownUnder: this.#topLevel(String(args.channel_id))[0]?.ts };
    }
    return { ok: true, shownUnder: view === "agent" ? undefined : String(args.thread_ts) };
  }

  /** A person's (or another app's) message, as Slack keeps it (the bot cannot edit it). */
  addPersonMessage(at: WrittenMessage): void {
    this.messages.set(at.ts, {
      ...this.#blank(at.ts, at.channel, at.threadTs, at.text),
      byBot: false,
      user: at.app ? undefined : (at.user ?? "U1"),
      app: at.app,
      subtype: at.subtype ?? (at.app ? "bot_message" : undefined),
    });
  }

  /** The loading status a thread shows now ("" for none). */
  status(channel: string, threadTs: string): string {
    return this.#statuses.get(threadKey(channel, threadTs)) ?? "";
  }

  /** The bot's messages in a thread, oldest first, deleted ones left out. */
  thread(channel: string, threadTs: string): FakeMessage[] {
    return [...this.messages.values()].filter(
      (m) => m.channel === channel && m.threadTs === threadTs && m.byBot && !m.deleted,
    );
  }

  /** What Slack answers a call in `channel` the bot cannot use; undefined for one it can. */
  channelError(channel: unknown): string | undefined {
    const known = this.#options.channels[String(channel)];
    if (!known) return "channel_not_found";
    if (known.member === false) return "not_in_channel";
    return undefined;
  }

  /** The channel's top-level messages (thread replies left out), newest first. */
  #topLevel(channel: string): FakeMessage[] {
    return [...this.messages.values()]
      .filter(
        (m) =>
          m.channel === channel && !m.deleted && (m.threadTs === undefined || m.threadTs === m.ts),
      )
      .sort((a, b) => Number(b.ts) - Number(a.ts));
  }

  /**
   * conversations.history: the channel's top-level messages, newest first, `limit` of them
   * (Slack's default 100). https://docs.slack.dev/reference/methods/conversations.history
   */
  #history(args: Record<string, unknown>): Record<string, unknown> {
    const error = this.channelError(args.channel);
    if (error) return { ok: false, error };
    const limit = args.limit === undefined ? 100 : Number(args.limit);
    const found = this.#topLevel(String(args.channel));
    return {
      ok: true,
      messages: found.slice(0, limit).map((m) => ({ type: "message", ts: m.ts, text: m.text })),
      has_more: found.length > limit,
    };
  }

  /**
   * conversations.replies: a thread's parent and replies, oldest first, those before `latest`
   * (and after `oldest`; either end taken only with `inclusive`), `limit` a page (at most
   * repliesPageMax), the next page named by `response_metadata.next_cursor`.
   * https://docs.slack.dev/reference/methods/conversations.replies
   */
  #replies(args: Record<string, unknown>): Record<string, unknown> {
    const error = this.channelError(args.channel);
    if (error) return { ok: false, error };
    const channel = String(args.channel);
    const ts = String(args.ts ?? "");
    const parent = this.messages.get(ts);
    if (!parent || parent.channel !== channel || parent.deleted) {
      return { ok: false, error: "thread_not_found" };
    }
    const inclusive = String(args.inclusive) === "true" || args.inclusive === true;
    const within = (m: FakeMessage) =>
      (args.latest === undefined ||
        (inclusive ? compareTs(m.ts, args.latest) <= 0 : compareTs(m.ts, args.latest) < 0)) &&
      (args.oldest === undefined ||
        (inclusive ? compareTs(m.ts, args.oldest) >= 0 : compareTs(m.ts, args.oldest) > 0));
    const thread = [...this.messages.values()]
      .filter(
        (m) =>
          m.channel === channel && !m.deleted && (m.ts === ts || m.threadTs === ts) && within(m),
      )
      .sort((a, b) => compareTs(a.ts, b.ts));
    const limit = Math.min(
      args.limit === undefined ? 1_000 : Number(args.limit),
      this.#options.repliesPageMax,
    );
    const from =
      args.cursor === undefined
        ? 0
        : Number(Buffer.from(String(args.cursor), "base64url").toString());
    const page = thread.slice(from, from + limit);
    const more = from + limit < thread.length;
    return {
      ok: true,
      messages: page.map((m) => this.#asListed(m, ts)),
      has_more: more,
      response_metadata: {
        next_cursor: more ? Buffer.from(String(from + limit)).toString("base64url") : "",
      },
    };
  }

  /** A message as the conversations.* methods list it. */
  #asListed(m: FakeMessage, threadTs: string): Record<string, unknown> {
    const by = m.byBot
      ? { user: this.#options.botUserId, bot_id: this.#options.botId }
      : m.app
        ? { bot_id: m.app.botId, username: m.app.name, bot_profile: { name: m.app.name } }
        : { user: m.user };
    return {
      type: "message",
      ...(m.subtype ? { subtype: m.subtype } : {}),
      ts: m.ts,
      thread_ts: threadTs,
      text: m.text,
      ...by,
    };
  }

  #post(args: Record<string, unknown>): Record<string, unknown> {
    const error = this.channelError(args.channel) ?? contentError(args);
    if (error) return { ok: false, error };
    const text = String(args.text ?? "");
    const message = this.#add(args, "mrkdwn", text);
    return {
      ok: true,
      channel: message.channel,
      ts: message.ts,
      message: { text, ts: message.ts },
    };
  }

  #update(args: Record<string, unknown>): Record<string, unknown> {
    const message = this.messages.get(String(args.ts));
    if (!message || message.deleted || message.channel !== args.channel) {
      return { ok: false, error: "message_not_found" };
    }
    if (!message.byBot) return { ok: false, error: "cant_update_message" };
    // A live stream belongs to the streaming methods until it is stopped (or expired).
    if (message.stream === "streaming" && !this.#expired(message)) {
      return { ok: false, error: "cant_update_message" };
    }
    const error = contentError(args);
    if (error) return { ok: false, error };
    const text = String(args.text ?? "");
    message.updates++;
    if (Array.isArray(args.blocks)) {
      message.blocks = args.blocks;
      this.#showBlocks(message, args.blocks);
    } else if (message.format === "markdown") {
      // As Slack does: without `blocks`, a message made of blocks (a stream) keeps them, and
      // what a person sees does not change.
      return { ok: true, channel: message.channel, ts: message.ts, text };
    }
    message.format = "mrkdwn";
    message.text = text;
    showText(message);
    return { ok: true, channel: message.channel, ts: message.ts, text };
  }

  #delete(args: Record<string, unknown>): Record<string, unknown> {
    const message = this.messages.get(String(args.ts));
    if (!message || message.deleted) return { ok: false, error: "message_not_found" };
    if (!message.byBot) return { ok: false, error: "cant_delete_message" };
    message.deleted = true;
    return { ok: true, channel: message.channel, ts: message.ts };
  }

  #postEphemeral(args: Record<string, unknown>): Record<string, unknown> {
    const error = this.channelError(args.channel);
    if (error) return { ok: false, error };
    this.ephemerals.push({
      channel: String(args.channel),
      user: String(args.user),
      threadTs: args.thread_ts === undefined ? undefined : String(args.thread_ts),
      text: String(args.text ?? ""),
    });
    return { ok: true, message_ts: this.#nextTs() };
  }

  #startStream(args: Record<string, unknown>): Record<string, unknown> {
    if (!this.#options.streaming) return { ok: false, error: "feature_not_enabled" };
    const error = this.channelError(args.channel);
    if (error) return { ok: false, error };
    if (args.thread_ts === undefined) return { ok: false, error: "invalid_arguments" };
    const im = this.#options.channels[String(args.channel)]?.type === "im";
    // Slack requires both recipients when streaming outside a DM.
    if (!im && args.recipient_team_id === undefined)
      return { ok: false, error: "missing_recipient_team_id" };
    if (!im && args.recipient_user_id === undefined)
      return { ok: false, error: "missing_recipient_user_id" };
    const text = String(args.markdown_text ?? "");
    if (!text && args.chunks === undefined) return { ok: false, error: "invalid_arguments" };
    if (text.length > STREAM_MAX_MARKDOWN) return { ok: false, error: "msg_too_long" };
    const message = this.#add(args, "markdown", text);
    message.stream = "streaming";
    message.streamStartedAt = performance.now();
    return { ok: true, channel: message.channel, ts: message.ts };
  }

  #appendStream(args: Record<string, unknown>): Record<string, unknown> {
    const message = this.#liveStream(args);
    if (typeof message === "string") return { ok: false, error: message };
    const text = String(args.markdown_text ?? "");
    if (!text) return { ok: false, error: "invalid_arguments" };
    if (message.text.length + text.length > STREAM_MAX_MARKDOWN)
      return { ok: false, error: "msg_too_long" };
    message.text += text;
    message.appends++;
    showText(message);
    return { ok: true, channel: message.channel, ts: message.ts };
  }

  #stopStream(args: Record<string, unknown>): Record<string, unknown> {
    const message = this.#liveStream(args);
    if (typeof message === "string") return { ok: false, error: message };
    const text = String(args.markdown_text ?? "");
    if (text) {
      message.text += text;
      showText(message);
    }
    // Rendered under the streamed text.
    if (Array.isArray(args.blocks)) message.blocks = [...(message.blocks ?? []), ...args.blocks];
    message.stream = "stopped";
    return { ok: true, channel: message.channel, ts: message.ts, message: { text: message.text } };
  }

  #liveStream(args: Record<string, unknown>): FakeMessage | string {
    const message = this.messages.get(String(args.ts));
    if (!message || message.deleted || message.channel !== args.channel) return "message_not_found";
    if (message.stream !== "streaming" || this.#expired(message)) {
      message.stream = message.stream === "none" ? "none" : "stopped";
      return "message_not_in_streaming_state";
    }
    return message;
  }

  #expired(message: FakeMessage): boolean {
    return performance.now() - message.streamStartedAt > this.#options.streamLifetimeMs;
  }

  /**
   * Slack's own Stop pressed in a thread: the bot's live streams there stop, as Slack stops
   * them (https://docs.slack.dev/reference/events/agent_session_stopped); returns their ts.
   */
  stopStreams(channel: string, threadTs: string): string[] {
    const live = this.thread(channel, threadTs).filter((m) => m.stream === "streaming");
    for (const message of live) message.stream = "stopped";
    return live.map((m) => m.ts);
  }

  /** A forced message_not_in_streaming_state: the stream is over from now on. */
  expireStream(args: Record<string, unknown>): void {
    const message = this.messages.get(String(args.ts));
    if (message?.stream === "streaming") message.stream = "stopped";
  }

  #add(args: Record<string, unknown>, format: FakeMessage["format"], text: string): FakeMessage {
    const threadTs = args.thread_ts === undefined ? undefined : String(args.thread_ts);
    const message: FakeMessage = {
      ...this.#blank(this.#nextTs(), String(args.channel), threadTs, text),
      format,
      historyFormats: [format],
      blocks: Array.isArray(args.blocks) ? args.blocks : undefined,
    };
    if (message.blocks) this.#showBlocks(message, message.blocks);
    this.messages.set(message.ts, message);
    // A reply of the app's in the thread takes its loading status down.
    if (message.threadTs !== undefined)
      this.#statuses.delete(threadKey(message.channel, message.threadTs));
    return message;
  }

  /** A message as it is first written: by the bot, posted as mrkdwn, never changed. */
  #blank(ts: string, channel: string, threadTs: string | undefined, text: string): FakeMessage {
    return {
      ts,
      channel,
      threadTs,
      format: "mrkdwn",
      text,
      byBot: true,
      user: this.#options.botUserId,
      deleted: false,
      updates: 0,
      appends: 0,
      stream: "none",
      streamStartedAt: 0,
      history: [text],
      historyFormats: ["mrkdwn"],
      markdown: undefined,
      markdownHistory: [],
      blocks: undefined,
    };
  }

  /** The message shows `blocks` now: the text of its markdown blocks, if it has any. */
  #showBlocks(message: FakeMessage, blocks: unknown[]): void {
    const texts = blocks.flatMap((block) => {
      const { type, text } = block as { type?: unknown; text?: unknown };
      return type === "markdown" ? [String(text)] : [];
    });
    // Slack renders each markdown block on its own.
    message.markdown = texts.length > 0 ? texts.join("\n\n") : undefined;
    if (message.markdown !== undefined) message.markdownHistory.push(message.markdown);
  }

  #nextTs(): string {
    this.#seq++;
    return `${this.#clock}.${String(this.#seq).padStart(6, "0")}`;
  }
}

/** The message shows its text as it is now. */
function showText(message: FakeMessage): void {
  message.history.push(message.text);
  message.historyFormats.push(message.format);
}

/**
 * What Slack refuses in a message's content: no text and no blocks, a text over its limit,
 * blocks that are no list of blocks, too many, a section's text or the markdown blocks' over
 * theirs. https://docs.slack.dev/reference/methods/chat.postMessage (Errors)
 */
function contentError(args: Record<string, unknown>): string | undefined {
  const text = String(args.text ?? "");
  const { blocks } = args;
  if (text.length > MAX_TEXT) return "msg_too_long";
  if (blocks === undefined) return text ? undefined : "no_text";
  if (!Array.isArray(blocks)) return "invalid_blocks_format";
  if (blocks.length > MAX_BLOCKS) return "invalid_blocks";
  let markdown = 0;
  for (const block of blocks) {
    const { type, text: content } = (block ?? {}) as { type?: unknown; text?: unknown };
    if (typeof type !== "string") return "invalid_blocks";
    if (type === "markdown") {
      if (typeof content !== "string" || content === "") return "invalid_blocks";
      markdown += content.length;
    }
    const section = (content as { text?: unknown } | undefined)?.text;
    if (type === "section" && String(section ?? "").length > MAX_SECTION_TEXT) {
      return "invalid_blocks";
    }
  }
  if (markdown > MAX_MARKDOWN_BLOCKS) return "msg_blocks_too_long";
  return text || blocks.length > 0 ? undefined : "no_text";
}

/** Slack's ts ("1700000100.000042") in time order: seconds, then the sequence after the dot. */
function compareTs(a: unknown, b: unknown): number {
  const [aSeconds = "", aSeq = ""] = String(a).split(".");
  const [bSeconds = "", bSeq = ""] = String(b).split(".");
  return (
    Number(aSeconds) - Number(bSeconds) || Number(aSeq.padEnd(6, "0")) - Number(bSeq.padEnd(6, "0"))
  );
}

function threadKey(channel: unknown, threadTs: unknown): string {
  return `${String(channel)} ${String(threadTs)}`;
}
