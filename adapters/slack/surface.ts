import type { webApi } from "@slack/bolt";
import { z } from "zod";
import { StreamUnavailableError } from "../../src/errors.ts";
import type { Logger } from "../../src/log.ts";
import type {
  CallBudget,
  CallName,
  MessageRef,
  NoticeOptions,
  Renderer,
  ReplySurface,
  SendRequest,
  SurfaceLimits,
} from "../../src/ports.ts";
import { AnswerSession } from "./agent-session.ts";
import { messageBlocks, streamEndBlocks } from "./answer-blocks.ts";
import { MAX_MESSAGE_CHARS, MAX_STREAM_MARKDOWN_CHARS, STATUS_REFRESH_MS } from "./limits.ts";
import {
  measureMessageText,
  readMessageText,
  renderMessage,
  renderMessageNote,
} from "./message-text.ts";
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

/** One Slack message of an answer: its ts (once Slack gave one) and whether it is a stream. */
interface SlackRef {
  ts: string | undefined;
  stream: boolean;
}

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

/** The ref of a saved message, to finish it on a surface of this process (none without a ts). */
export function savedRef(saved: SavedSlackMessage): MessageRef | undefined {
  return saved.ts === undefined ? undefined : ({ ts: saved.ts, stream: saved.stream } as SlackRef);
}

/**
 * How an answer is rendered for Slack: a posted or edited message as a markdown block with its
 * mrkdwn `text` beside it (see MessageText; until the end, without the unsettled end of the
 * last line: a half-written `**bold` or link is left out rather than shown raw), and a native
 * stream as the chatbot's own Markdown made safe, each text extending the one before (see
 * MarkdownStream).
 */
export const slackAnswerRenderer: Renderer = {
  render: renderMessage,
  interim: (markdown) => renderMessage(settledMarkdown(markdown)),
  stream: () => new MarkdownStream(),
  note: renderMessageNote,
  measure: measureMessageText,
};

/**
 * One answer's thread in Slack. While the backend is silent, Slack's loading status under the
 * thread says the bot is working, at the cost of no message. The reply engine streams answers
 * natively (`chat.startStream`, `chat.appendStream` with what it added, `chat.stopStream` at
 * the end) where the workspace allows it, and otherwise posts then edits them (`chat.update`,
 * also for an answer that waited its turn in its "queued" notice: a stream can only be a new
 * message); nothing is posted only to be deleted. Each request is one Web API call; a stream
 * the engine hands over to edits is stopped first. Streaming that Slack refuses is off for
 * the message, the thread or the workspace, as Slack's error says. Edits and appends draw on
 * the workspace's shared budgets.
 */
export class SlackSurface implements ReplySurface {
  readonly renderer = slackAnswerRenderer;
  readonly limits: SurfaceLimits;
  readonly #options: SlackSurfaceOptions;
  readonly #calls: ThreadCalls;
  #streamingOff: string | undefined;
  /** When the loading status was set, and how many replies the thread had then. */
  #status: { at: number; replies: number } | undefined;
  readonly #session: AnswerSession;

  constructor(options: SlackSurfaceOptions) {
    this.#options = options;
    const calls = new ThreadCalls(options.client, options.thread, options.workspace);
    this.#calls = calls;
    this.#session = new AnswerSession((status) => calls.setSession(status));
    this.limits = {
      maxMessageLength: MAX_MESSAGE_CHARS,
      minEditIntervalMs: options.minEditIntervalMs,
      streamMaxAgeMs: options.streamMaxAgeMs,
    };
    if (!options.nativeStreaming) this.#streamingOff = "off by configuration";
  }

  /**
   * chat.update draws on the workspace's Tier 3 budget, chat.appendStream on its Tier 4 one;
   * posts and a stream's start and stop on none (so an answer's end never waits behind the
   * workspace's other answers' appends).
   */
  budgetFor(call: CallName): CallBudget | undefined {
    if (call === "edit") return this.#options.workspace.updates;
    if (call === "append") return this.#options.workspace.appends;
    return undefined;
  }

  canStream(): boolean {
    return this.#streamingOff === undefined && this.#options.workspace.streamingOff === undefined;
  }

  async send(request: SendRequest): Promise<MessageRef> {
    this.#calls.assertUsable();
    if (writesAnswer(request)) this.#session.begin();
    switch (request.call) {
      case "post": {
        const { mrkdwn, markdown } = readMessageText(request.text);
        const blocks = messageBlocks(markdown, request.buttons);
        return { ts: await this.#calls.postMessage(mrkdwn, blocks), stream: false };
      }
      case "edit": {
        const { mrkdwn, markdown } = readMessageText(request.text);
        await this.#calls.update(
          tsOf(request.ref),
          mrkdwn,
          messageBlocks(markdown, request.buttons),
        );
        return request.ref;
      }
      case "stream":
        return { ts: await this.#startStream(request.text), stream: true };
      case "append":
        await this.#streaming(() => this.#calls.appendStream(tsOf(request.ref), request.text));
        return request.ref;
      case "end": {
        const session = this.#session.atStreamStop;
        await this.#streaming(() =>
          this.#calls.stopStream(
            tsOf(request.ref),
            request.text,
            streamEndBlocks(request.buttons),
            session,
          ),
        );
        if (session) this.#session.streamStopped(session);
        return request.ref;
      }
      case "stop":
        // Slack may have ended it already; whatever it says, the message goes on by edits.
        await this.#calls.stopQuietly(tsOf(request.ref));
        return { ts: (request.ref as SlackRef).ts, stream: false };
    }
  }

  /** The thread, the message's ts, whether it is a native stream. */
  persistRef(ref: MessageRef): SavedSlackMessage {
    const { ts, stream } = ref as SlackRef;
    return { thread: this.#options.thread, ts, stream };
  }

  /** A notice as text alone: a note of the bot's own needs no block. */
  async notice(rendered: string, options: NoticeOptions = {}): Promise<void> {
    const { mrkdwn } = readMessageText(rendered);
    if (options.private) await this.#calls.postEphemeral(mrkdwn);
    else await this.#calls.postMessage(mrkdwn);
  }

  /**
   * Slack's loading status under the thread: a sign of work that costs no message. Slack
   * takes it down with the app's next reply there (so the answer's first text clears it),
   * and two minutes after it was set without one: the engine asks again every few seconds,
   * and it is set again only after a reply (a system notice) or a long silence.
   */
  async showTyping(text: string): Promise<void> {
    this.#session.begin();
    const status = this.#status;
    const replies = this.#calls.replies;
    const now = performance.now();
    if (status && status.replies === replies && now - status.at < STATUS_REFRESH_MS) return;
    if (await this.#calls.setStatus(text)) {
      this.#status = { at: now, replies };
    }
  }

  /**
   * The answer is over: a status no reply took down (nothing could be posted) goes now, and
   * the agent session is active.
   */
  async stopTyping(): Promise<void> {
    const status = this.#status;
    this.#status = undefined;
    if (status && status.replies === this.#calls.replies) await this.#calls.setStatus("");
    await this.#session.end();
  }

  async #startStream(markdown: string): Promise<string | undefined> {
    if (!this.canStream()) {
      throw new StreamUnavailableError(this.#streamingOff ?? "off in this workspace");
    }
    if (markdown.length > MAX_STREAM_MARKDOWN_CHARS) {
      throw new StreamUnavailableError("longer than a stream's text may be");
    }
    const ts = await this.#streaming(() => this.#calls.startStream(markdown));
    if (!ts) throw new StreamUnavailableError("chat.startStream gave no ts");
    return ts;
  }

  /** A streaming call; what Slack's refusal says turns streaming off where it applies. */
  async #streaming<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof StreamUnavailable && error.scope !== "message") {
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
      throw error;
    }
  }
}

/**
 * A call of the answer being written: a stream's start, or a message that shows its Stop (not
 * a queued notice, nor an answer's last text).
 */
function writesAnswer(request: SendRequest): boolean {
  if (request.call === "stream") return true;
  if (request.call !== "post" && request.call !== "edit") return false;
  return request.buttons?.some((button) => button.stops) === true;
}

function tsOf(ref: MessageRef): string {
  return (ref as SlackRef).ts ?? "";
}
