import { RateLimitedError } from "../../src/errors.ts";
import { slackErrorOf, toBridgeError } from "./api.ts";

/**
 * Slack's refusals that no later call in the workspace changes: the app lacks the scope or the
 * feature (an install from an older manifest, an Enterprise policy).
 * https://docs.slack.dev/reference/methods/assistant.threads.setStatus#errors
 */
export const REFUSED_FOR_GOOD: ReadonlySet<string> = new Set([
  "missing_scope",
  "no_permission",
  "not_allowed_token_type",
  "feature_not_enabled",
  "access_denied",
  "team_access_not_granted",
  "ekm_access_denied",
  "enterprise_is_restricted",
]);

/**
 * Whether a status call (the loading status, the agent session's) may be made in one
 * workspace. It is a courtesy that draws on no answer's budget, so it must cost nothing once
 * Slack said no: a refusal for good turns it off for the workspace (said once), and a 429
 * holds it for the wait Slack gave.
 */
export class StatusGate {
  #off: string | undefined;
  #pausedUntil = 0;
  readonly #method: string;
  readonly #refusedForGood: ReadonlySet<string>;
  readonly #onOff: (reason: string) => void;

  constructor(
    method: string,
    onOff: (reason: string) => void,
    refusedForGood: ReadonlySet<string> = REFUSED_FOR_GOOD,
  ) {
    this.#method = method;
    this.#onOff = onOff;
    this.#refusedForGood = refusedForGood;
  }

  get open(): boolean {
    return this.#off === undefined && performance.now() >= this.#pausedUntil;
  }

  /** Slack refused a status call with `error`. */
  refused(channel: string, error: unknown): void {
    const mapped = toBridgeError(this.#method, channel, error);
    if (mapped instanceof RateLimitedError) {
      this.#pausedUntil = performance.now() + mapped.retryAfterMs;
      return;
    }
    const reason = slackErrorOf(error);
    if (!this.#refusedForGood.has(reason) || this.#off !== undefined) return;
    this.#off = reason;
    this.#onOff(reason);
  }
}
