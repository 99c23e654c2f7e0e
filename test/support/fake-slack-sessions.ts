/**
 * A fake Slack's agent sessions (https://docs.slack.dev/ai/agent-sessions): one per thread,
 * with its lifecycle status. Only an app declared an agent has them; Slack shows its own Stop
 * on a thread whose session is `processing`.
 */

/** Whether the app is an agent in the fake's workspace, or what agents.sessions.* answer there. */
export type AgentSessions = "agent" | "not_authorized" | "missing_scope";

const STATUSES = new Set(["active", "processing", "suspended", "closed"]);

export class FakeSessions {
  readonly #app: () => AgentSessions;
  readonly #channelError: (channel: unknown) => string | undefined;
  /** Each thread's statuses, oldest first (a change only: the same status twice is one). */
  readonly #history = new Map<string, string[]>();

  constructor(app: () => AgentSessions, channelError: (channel: unknown) => string | undefined) {
    this.#app = app;
    this.#channelError = channelError;
  }

  /**
   * agents.sessions.setStatus: creates the thread's session or moves it to `status`. An app
   * not declared an agent is refused (`not_authorized`; `missing_scope` without
   * assistant:write). The arguments as @slack/web-api types them: `channel_id` always, and
   * `thread_ts` for a session in a channel's or a DM's thread.
   * https://docs.slack.dev/reference/methods/agents.sessions.setStatus
   */
  setStatus(args: Record<string, unknown>): Record<string, unknown> {
    const app = this.#app();
    if (app !== "agent") return { ok: false, error: app };
    const error = this.#channelError(args.channel_id);
    if (error) return { ok: false, error };
    const status = String(args.status ?? "");
    if (args.thread_ts === undefined || !STATUSES.has(status)) {
      return { ok: false, error: "invalid_arguments" };
    }
    this.set(String(args.channel_id), String(args.thread_ts), status);
    return { ok: true, status };
  }

  /**
   * A stream started in the thread: an agent app's streams open a session without asking
   * (https://github.com/NousResearch/hermes-agent/issues/90978), processing.
   */
  streamStarted(channel: string, threadTs: string): void {
    if (this.#app() === "agent") this.set(channel, threadTs, "processing");
  }

  /** A stream stopped with chat.stopStream: the session takes its `session_status`, active if none. */
  streamStopped(channel: string, threadTs: string, sessionStatus: unknown): void {
    if (this.#app() !== "agent" || !this.#history.has(key(channel, threadTs))) return;
    this.set(channel, threadTs, sessionStatus === undefined ? "active" : String(sessionStatus));
  }

  /** The thread's session status now; undefined for a thread with none. */
  status(channel: string, threadTs: string): string | undefined {
    return this.#history.get(key(channel, threadTs))?.at(-1);
  }

  /** Every status the thread's session had, oldest first. */
  history(channel: string, threadTs: string): string[] {
    return [...(this.#history.get(key(channel, threadTs)) ?? [])];
  }

  set(channel: string, threadTs: string, status: string): void {
    const history = this.#history.get(key(channel, threadTs)) ?? [];
    if (history.at(-1) !== status) history.push(status);
    this.#history.set(key(channel, threadTs), history);
  }
}

function key(channel: string, threadTs: string): string {
  return `${channel} ${threadTs}`;
}
