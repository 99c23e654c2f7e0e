import type { webApi } from "@slack/bolt";
import { REFUSED_FOR_GOOD, type StatusGate } from "./status-gate.ts";

/**
 * The statuses the bot gives a thread's agent session: processing while an answer is being
 * written (Slack then shows its own Stop), active once it is over.
 * https://docs.slack.dev/ai/agent-sessions
 */
export type SessionStatus = "processing" | "active";

/**
 * agents.sessions.setStatus refusals that hold for the whole workspace: besides a missing
 * scope or feature, `not_authorized` from an app not declared an agent (agent_view).
 * https://github.com/kirodotdev/KiroCrew/issues/9822
 */
export const SESSIONS_REFUSED_FOR_GOOD: ReadonlySet<string> = new Set([
  ...REFUSED_FOR_GOOD,
  "not_authorized",
]);

/**
 * Sets the agent session of the thread at `threadTs` in `channel`: best effort, true once Slack
 * took it. Nothing is asked where `gate` is shut (the app is no agent in the workspace, or a
 * 429's wait runs). `channel_id` always goes, as @slack/web-api types it (the method's page
 * has it optional).
 */
export async function setSessionStatus(
  client: webApi.WebClient,
  gate: StatusGate,
  at: { channel: string; threadTs: string },
  status: SessionStatus,
): Promise<boolean> {
  if (!gate.open) return false;
  try {
    await client.agents.sessions.setStatus({
      channel_id: at.channel,
      thread_ts: at.threadTs,
      status,
    });
    return true;
  } catch (error) {
    gate.refused(at.channel, error);
    return false;
  }
}

/**
 * One answer's agent session in its thread: processing from the answer's first sign of work
 * (its loading status, its first text), so that Slack shows its own Stop (whose press
 * native-stop.ts takes), active once the answer is over, or with the stop of the stream that
 * ends it. Off the answer's path: no text waits for a session call. The calls go one after
 * the other, so the end's lands after the start's; the end is asked only of a session Slack
 * took as processing.
 */
export class AnswerSession {
  readonly #set: (status: SessionStatus) => Promise<boolean>;
  /** What the session was last asked to be. */
  #asked: SessionStatus | undefined;
  /** What Slack last took. */
  #taken: SessionStatus | undefined;
  #queue: Promise<void> = Promise.resolve();
  #inFlight = 0;

  constructor(set: (status: SessionStatus) => Promise<boolean>) {
    this.#set = set;
  }

  /** The answer shows work: the session is processing (asked once, however often told). */
  begin(): void {
    if (this.#asked === "processing") return;
    this.#asked = "processing";
    void this.#call("processing");
  }

  /**
   * What a stream's stop (chat.stopStream's `session_status`) should set: active, once Slack
   * took the session as processing and no call is on its way; else nothing, and end() sets it.
   */
  get atStreamStop(): SessionStatus | undefined {
    return this.#inFlight === 0 && this.#taken === "processing" ? "active" : undefined;
  }

  /** A stream's stop set the session `status`. */
  streamStopped(status: SessionStatus): void {
    this.#asked = status;
    this.#taken = status;
  }

  /** The answer is over: the session is active, after any call still on its way. */
  async end(): Promise<void> {
    if (this.#asked !== "processing") return;
    this.#asked = "active";
    await this.#call("active");
  }

  #call(status: SessionStatus): Promise<void> {
    this.#inFlight++;
    this.#queue = this.#queue
      .then(async () => {
        if (status === "active" && this.#taken !== "processing") return;
        if (await this.#set(status)) this.#taken = status;
      })
      .finally(() => {
        this.#inFlight--;
      });
    return this.#queue;
  }
}
