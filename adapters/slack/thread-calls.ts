import { setTimeout as sleep } from "node:timers/promises";
import type { webApi } from "@slack/bolt";
import { RateLimitedError, StreamUnavailableError } from "../../src/errors.ts";
import { type SessionStatus, setSessionStatus } from "./agent-session.ts";
import { SlackChannelUnavailableError, streamFailureScope, toBridgeError } from "./api.ts";
import { STATUS_WAIT_MS } from "./limits.ts";
import type { Workspace } from "./workspace.ts";

/** The conversation one answer goes to. */
export interface SlackThread {
  teamId: string;
  channel: string;
  /** The thread's root: the bot always replies inside the thread. */
  threadTs: string;
  /** The person who asked: recipient of a native stream, of ephemeral replies. */
  userId: string;
  /** The asker's own workspace (another one for a Slack Connect guest). */
  userTeamId: string;
  /** An assistant thread (the assistant pane). */
  assistant: boolean;
}

/**
 * A streaming call failed for a reason other than a 429 or a channel the bot cannot use:
 * streaming is unavailable for this message, this thread or the whole workspace.
 */
export class StreamUnavailable extends StreamUnavailableError {
  constructor(
    readonly scope: "message" | "thread" | "workspace",
    reason: string,
    cause: unknown,
  ) {
    super(reason, cause);
  }
}

/**
 * The Web API calls of one answer's thread. Each turns a failure into what the reply engine
 * handles: RateLimitedError (the engine pauses the budget the call drew on),
 * MessageGoneError, SlackChannelUnavailableError (after which nothing is sent here any more),
 * StreamUnavailable for the streaming methods.
 */
export class ThreadCalls {
  readonly #client: webApi.WebClient;
  readonly #thread: SlackThread;
  #unusable: SlackChannelUnavailableError | undefined;
  #replies = 0;
  #settingStatus: Promise<boolean> | undefined;

  /** Whether the workspace takes the loading status and agent sessions. */
  readonly #gates: Pick<Workspace, "status" | "sessions">;

  constructor(
    client: webApi.WebClient,
    thread: SlackThread,
    gates: Pick<Workspace, "status" | "sessions">,
  ) {
    this.#client = client;
    this.#thread = thread;
    this.#gates = gates;
  }

  /** Messages these calls put in the thread so far. */
  get replies(): number {
    return this.#replies;
  }

  /** Throws when an earlier call showed the bot cannot use the conversation. */
  assertUsable(): void {
    if (this.#unusable) throw this.#unusable;
  }

  /** `blocks`: what the message shows, when given (`text` is then the notifications' copy). */
  async postMessage(text: string, blocks: object[] = []): Promise<string | undefined> {
    const { channel, threadTs } = this.#thread;
    const posted = await this.#reply("chat.postMessage", () =>
      this.#client.chat.postMessage({
        channel,
        thread_ts: threadTs,
        text,
        ...(blocks.length > 0 ? { blocks: blocks as never } : {}),
        // Links in answers are not unfurled into previews, and names never become pings.
        unfurl_links: false,
        unfurl_media: false,
        link_names: false,
      }),
    );
    return posted.ts;
  }

  /** `blocks`: what the message shows now, none for its text alone. */
  async update(ts: string, text: string, blocks: object[]): Promise<void> {
    await this.#call("chat.update", () =>
      // Always `blocks` (`[]` for none): chat.update keeps a message's blocks unless told
      // otherwise (a stream is made of blocks), so its text alone would change nothing shown.
      // https://docs.slack.dev/reference/methods/chat.update#arg_blocks
      this.#client.chat.update({
        channel: this.#thread.channel,
        ts,
        text,
        blocks: blocks as never,
        link_names: false,
      }),
    );
  }

  async postEphemeral(text: string): Promise<void> {
    const { channel, threadTs, userId } = this.#thread;
    await this.#call("chat.postEphemeral", () =>
      this.#client.chat.postEphemeral({ channel, user: userId, thread_ts: threadTs, text }),
    );
  }

  /**
   * The app's loading status under the thread ("" takes it down). Best effort, and drawing on
   * no budget of the answer's: it only says the bot is working. Nothing is asked of a
   * workspace that refused it for good, or while Slack's 429 wait runs.
   */
  async setStatus(status: string): Promise<boolean> {
    if (this.#unusable || !this.#gates.status.open) return false;
    const { channel, threadTs } = this.#thread;
    const repliesBefore = this.#replies;
    const setting = this.#client.assistant.threads
      .setStatus({ channel_id: channel, thread_ts: threadTs, status })
      .then(
        () => {
          // A reply went out while this was on its way (it waited STATUS_WAIT_MS at most): the
          // status may have landed after the reply that would have taken it down.
          if (status !== "" && this.#replies > repliesBefore) void this.setStatus("");
          return true;
        },
        (error: unknown) => {
          this.#gates.status.refused(channel, error);
          return false;
        },
      );
    if (status !== "") this.#settingStatus = setting;
    return setting;
  }

  /** The thread's agent session status: best effort, as setStatus. */
  async setSession(status: SessionStatus): Promise<boolean> {
    if (this.#unusable) return false;
    return setSessionStatus(this.#client, this.#gates.sessions, this.#thread, status);
  }

  async startStream(markdown: string): Promise<string | undefined> {
    const { channel, threadTs, userId, userTeamId } = this.#thread;
    const started = await this.#reply(
      "chat.startStream",
      () =>
        this.#client.chat.startStream({
          channel,
          thread_ts: threadTs,
          // Slack requires the recipient outside DMs; sending it everywhere costs nothing.
          recipient_user_id: userId,
          recipient_team_id: userTeamId,
          markdown_text: markdown,
        }),
      true,
    );
    return started.ts;
  }

  async appendStream(ts: string, markdown: string): Promise<void> {
    await this.#call(
      "chat.appendStream",
      () =>
        this.#client.chat.appendStream({
          channel: this.#thread.channel,
          ts,
          markdown_text: markdown,
        }),
      true,
    );
  }

  /**
   * `blocks` go under the streamed text; `sessionStatus`, the thread's agent session takes it
   * (https://docs.slack.dev/reference/methods/chat.stopStream).
   */
  async stopStream(
    ts: string,
    markdown: string,
    blocks?: object[],
    sessionStatus?: SessionStatus,
  ): Promise<void> {
    await this.#call(
      "chat.stopStream",
      () =>
        this.#client.chat.stopStream({
          channel: this.#thread.channel,
          ts,
          ...(markdown ? { markdown_text: markdown } : {}),
          ...(blocks ? { blocks: blocks as never } : {}),
          ...(sessionStatus ? { session_status: sessionStatus } : {}),
        }),
      true,
    );
  }

  /** Ends a stream that may be over already; whatever Slack says, the caller moves on. */
  async stopQuietly(ts: string): Promise<void> {
    await this.#client.chat
      .stopStream({ channel: this.#thread.channel, ts })
      .catch(() => undefined);
  }

  /**
   * A call that puts a message in the thread, which takes the loading status down: it goes
   * after a status still on its way, which would otherwise land after it and stay up.
   */
  async #reply<T>(method: string, run: () => Promise<T>, stream = false): Promise<T> {
    // Briefly: a slow status must not hold the answer's first text back.
    if (this.#settingStatus) await Promise.race([this.#settingStatus, sleep(STATUS_WAIT_MS)]);
    const result = await this.#call(method, run, stream);
    this.#replies++;
    return result;
  }

  async #call<T>(method: string, run: () => Promise<T>, stream = false): Promise<T> {
    this.assertUsable();
    try {
      return await run();
    } catch (error) {
      const mapped = toBridgeError(method, this.#thread.channel, error);
      if (mapped instanceof RateLimitedError) throw mapped;
      if (mapped instanceof SlackChannelUnavailableError) {
        this.#unusable = mapped;
        throw mapped;
      }
      if (stream) throw new StreamUnavailable(streamFailureScope(error), mapped.message, error);
      throw mapped;
    }
  }
}
