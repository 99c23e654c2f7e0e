import type { webApi } from "@slack/bolt";
import { z } from "zod";
import type { Logger } from "../../src/log.ts";
import type {
  CallBudget,
  MessageRef,
  MessageSource,
  NoticeOptions,
  ReplySurface,
  SendOptions,
  SurfaceLimits,
} from "../../src/ports.ts";
import { type CallKind, CallTokens } from "./call-tokens.ts";
import { MAX_MESSAGE_CHARS, MAX_STREAM_MARKDOWN_CHARS, STATUS_REFRESH_MS } from "./limits.ts";
import { renderMrkdwn, slackRenderer } from "./render.ts";
import { MarkdownStream, settledMarkdown } from "./stream-markdown.ts";
import { type SlackThread, StreamUnavailable, ThreadCalls } from "./thread-calls.ts";
import type { Workspace } from "./workspace.ts";

export type { SlackThread } from "./thread-calls.ts";

export interface SlackSurfaceOptions {
  client: webApi.WebClient;
  workspace: Workspace;
  thread: SlackThread;
  log: Logger;
  /** Try chat.startStream first (falls back on its own when Slack says no). */
  nativeStreaming: boolean;
  minEditIntervalMs: number;
  /** A stream older than this is stopped and its message goes on by chat.update. */
  streamMaxAgeMs: number;
}

/** One Slack message of an answer, as the surface drives it. */
interface SlackMessage {
  /**
   * pending: nothing on screen yet (the first text is still held back);
   * plain: a posted message, changed by chat.update;
   * stream: a native stream, grown by chat.appendStream.
   */
  mode: "pending" | "plain" | "stream";
  ts?: string;
  /** plain: the mrkdwn it shows. */
  shown: string;
  /** What a stream of this message sends: each text extends the one before. */
  markdownStream: MarkdownStream;
  /** stream: the Markdown appended so far. */
  streamed: string;
  startedAt: number;
  /** stream: chat.stopStream was called (or the stream is known to be over). */
  stopped: boolean;
}

const STATUS = "is thinking…";

/** What persistRef saves: the answer's thread, and the message as far as it is on screen. */
const savedMessage = z.object({
  thread: z.object({
    teamId: z.string(),
    channel: z.string(),
    threadTs: z.string(),
    userId: z.string(),
    userTeamId: z.string(),
    assistant: z.boolean(),
  }),
  ts: z.string().optional(),
  stream: z.boolean(),
});

export type SavedSlackMessage = z.infer<typeof savedMessage>;

/** A message an earlier process saved with persistRef; undefined for anything else. */
export function readSavedMessage(saved: unknown): SavedSlackMessage | undefined {
  const parsed = savedMessage.safeParse(saved);
  return parsed.success ? parsed.data : undefined;
}

/**
 * One answer's thread in Slack. While the backend is silent, Slack's loading status under the
 * thread says the bot is working, at the cost of no message. Answers stream natively
 * (`chat.startStream`, then `chat.appendStream` with what the reply engine added,
 * `chat.stopStream` at the end) where the workspace allows it, and otherwise as a message
 * posted then edited; an answer that waited its turn grows by chat.update in the "queued"
 * notice it was given, since a stream can only be a new message. Nothing is posted only to
 * be deleted. A stream that cannot go on (Slack ended it, a split moved text to the next
 * message, it neared its 5-minute life, Slack said streaming is unavailable) is stopped and
 * its message set to the full text by chat.update, so no text is lost or shown twice. Edits
 * and appends draw on the workspace's shared budgets; a 429 pauses the budget of the method
 * that got it.
 */
export class SlackSurface implements ReplySurface {
  readonly renderer = slackRenderer;
  readonly limits: SurfaceLimits;
  readonly budget: CallBudget;
  readonly #options: SlackSurfaceOptions;
  readonly #calls: ThreadCalls;
  readonly #messages: SlackMessage[] = [];
  #streamingOff: string | undefined;
  /** When the loading status was set, and how many replies the thread had then. */
  #status: { at: number; replies: number } | undefined;

  constructor(options: SlackSurfaceOptions) {
    this.#options = options;
    const tokens = new CallTokens(options.workspace);
    this.#calls = new ThreadCalls(options.client, options.thread, tokens, options.workspace.status);
    this.limits = {
      maxMessageLength: MAX_MESSAGE_CHARS,
      minEditIntervalMs: options.minEditIntervalMs,
    };
    this.budget = {
      acquire: (acquire) => tokens.prepay(this.#nextCall(acquire?.final === true), acquire ?? {}),
    };
    if (!options.nativeStreaming) this.#streamingOff = "off by configuration";
  }

  async post(rendered: string, options: SendOptions): Promise<MessageRef> {
    const message: SlackMessage = {
      mode: "pending",
      shown: "",
      markdownStream: new MarkdownStream(),
      streamed: "",
      startedAt: 0,
      stopped: false,
    };
    this.#messages.push(message);
    await this.#show(message, rendered, options);
    return message;
  }

  async edit(ref: MessageRef, rendered: string, options: SendOptions): Promise<void> {
    await this.#show(ref as SlackMessage, rendered, options);
  }

  /**
   * A live stream ends with chat.stopStream, no edit: the answer's end goes at once, never an
   * edit interval after the last append.
   */
  endsWithoutEdit(ref: MessageRef): boolean {
    const message = ref as SlackMessage;
    return message.mode === "stream" && !message.stopped && this.#young(message);
  }

  /** The thread, the message's ts (none while its first text is held back), whether it streams. */
  persistRef(ref: MessageRef): SavedSlackMessage {
    const message = ref as SlackMessage;
    return { thread: this.#options.thread, ts: message.ts, stream: message.mode === "stream" };
  }

  /**
   * Takes over a message an earlier process left mid-answer (see persistRef), for one final
   * edit: a stream is stopped and its text set by chat.update (a stream cannot be taken over
   * by appending, and Slack would refuse chat.update while it is live); a message with no ts
   * yet (its first text was still held back) is posted.
   */
  adopt(saved: SavedSlackMessage): MessageRef {
    const message: SlackMessage = {
      mode: saved.ts === undefined ? "pending" : saved.stream ? "stream" : "plain",
      ts: saved.ts,
      shown: "",
      markdownStream: new MarkdownStream(),
      streamed: "",
      // Older than any stream may be: its next change hands it over to chat.update.
      startedAt: Number.NEGATIVE_INFINITY,
      stopped: false,
    };
    this.#messages.push(message);
    return message;
  }

  async notice(rendered: string, options: NoticeOptions = {}): Promise<void> {
    if (options.private) await this.#calls.postEphemeral(rendered);
    else await this.#calls.postMessage(rendered);
  }

  /**
   * Slack's loading status under the thread: a sign of work that costs no message. Slack
   * takes it down with the app's next reply there (so the answer's first text clears it),
   * and two minutes after it was set without one: the engine asks again every few seconds,
   * and it is set again only after a reply (a system notice) or a long silence.
   */
  async showTyping(): Promise<void> {
    const status = this.#status;
    const replies = this.#calls.replies;
    const now = performance.now();
    if (status && status.replies === replies && now - status.at < STATUS_REFRESH_MS) return;
    if (await this.#calls.setStatus(STATUS)) this.#status = { at: now, replies };
  }

  /** The answer is over: a status no reply took down (nothing could be posted) goes now. */
  async stopTyping(): Promise<void> {
    const status = this.#status;
    this.#status = undefined;
    if (status && status.replies === this.#calls.replies) await this.#calls.setStatus("");
  }

  /** Brings one message to `rendered` (and its stream to the Markdown it came from). */
  async #show(message: SlackMessage, rendered: string, options: SendOptions): Promise<void> {
    this.#calls.assertUsable();
    const { final, source } = options;
    const answer = source !== undefined && source.markdown !== "" ? source : undefined;
    // Until the end, a half-written `**bold` or link is left out rather than shown raw.
    const text = answer && !final ? renderMrkdwn(settledMarkdown(answer.markdown)) : rendered;
    switch (message.mode) {
      case "pending":
        if (answer && (await this.#startStream(message, answer, final)) !== "no") return;
        if (text === "") return; // nothing settled yet: the status, if any, stays
        message.ts = await this.#calls.postMessage(text);
        Object.assign(message, { mode: "plain", shown: text });
        return;
      case "plain":
        // A "queued" notice too: the answer grows in it by chat.update, so nothing the person
        // saw is deleted (a stream can only be a new message).
        if (text === "" || text === message.shown) return;
        await this.#calls.update(message.ts ?? "", text);
        message.shown = text;
        return;
      case "stream":
        await this.#appendStream(message, rendered, answer, final);
        return;
    }
  }

  /**
   * Opens a native stream for the message's first text: "started", "held" (nothing settled
   * to show yet; the status stays up) or "no" (post it the plain way).
   */
  async #startStream(
    message: SlackMessage,
    source: MessageSource,
    final: boolean,
  ): Promise<"started" | "held" | "no"> {
    // Text that is complete at its first showing gains nothing from a stream: one call posts it.
    if (final || !this.#streaming()) return "no";
    const text = message.markdownStream.text(source, false);
    if (text === "") return "held";
    if (text.length > MAX_STREAM_MARKDOWN_CHARS) return "no";
    let ts: string | undefined;
    try {
      ts = await this.#calls.startStream(text);
    } catch (error) {
      this.#streamFailed(error);
      return "no";
    }
    if (!ts) return "no";
    Object.assign(message, {
      mode: "stream",
      ts,
      streamed: text,
      startedAt: performance.now(),
      stopped: false,
    });
    return "started";
  }

  async #appendStream(
    message: SlackMessage,
    rendered: string,
    source: MessageSource | undefined,
    final: boolean,
  ): Promise<void> {
    const text = source ? message.markdownStream.text(source, final) : undefined;
    if (
      message.stopped ||
      text === undefined ||
      !this.#young(message) ||
      !text.startsWith(message.streamed) ||
      text.length > MAX_STREAM_MARKDOWN_CHARS
    ) {
      await this.#toPlain(message, rendered);
      return;
    }
    const delta = text.slice(message.streamed.length);
    if (!final && delta === "") return;
    try {
      if (final) await this.#calls.stopStream(message.ts ?? "", delta);
      else await this.#calls.appendStream(message.ts ?? "", delta);
      message.streamed = text;
      message.stopped = final;
    } catch (error) {
      this.#streamFailed(error);
      await this.#toPlain(message, rendered);
    }
  }

  /**
   * The stream cannot take what the message must show: stop it (Slack may have already) and
   * set the message's whole text with chat.update, from now on the way it changes.
   */
  async #toPlain(message: SlackMessage, rendered: string): Promise<void> {
    if (!message.stopped) {
      message.stopped = true;
      await this.#calls.stopQuietly(message.ts ?? "");
    }
    message.mode = "plain";
    await this.#calls.update(message.ts ?? "", rendered);
    message.shown = rendered;
  }

  /** Streaming said no: for this message only, or (by Slack's error) the thread or workspace. */
  #streamFailed(error: unknown): void {
    if (!(error instanceof StreamUnavailable)) throw error;
    if (error.scope === "message") return;
    this.#streamingOff = error.message;
    const { workspace, log } = this.#options;
    if (error.scope === "workspace" && !workspace.streamingOff) {
      workspace.streamingOff = error.message;
      log.warn(
        { reason: error.message },
        "Slack native streaming is unavailable in this workspace: answers are posted and edited instead",
      );
    }
  }

  /** A stream Slack has not yet ended for its age (see STREAM_MAX_AGE_MS). */
  #young(message: SlackMessage): boolean {
    return performance.now() - message.startedAt < this.#options.streamMaxAgeMs;
  }

  #streaming(): boolean {
    return this.#streamingOff === undefined && this.#options.workspace.streamingOff === undefined;
  }

  /** The call the next send most likely makes, for the budget token taken ahead of it. */
  #nextCall(final: boolean): CallKind {
    const last = this.#messages.at(-1);
    if (!last) return "other";
    // A live stream's last text goes with chat.stopStream, which draws on no append budget:
    // an answer's end never waits behind the workspace's other answers' appends.
    if (last.mode === "stream") return last.stopped ? "update" : final ? "other" : "append";
    return last.mode === "plain" ? "update" : "other";
  }
}
