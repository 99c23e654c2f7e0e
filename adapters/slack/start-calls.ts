import { webApi } from "@slack/bolt";
import { StartupError } from "../../src/errors.ts";
import type { Logger } from "../../src/log.ts";
import { retryAtStart } from "../../src/start-retry.ts";
import { slackErrorOf } from "./api.ts";

/**
 * Slack's own answers that say "later", not "never".
 * https://docs.slack.dev/reference/methods/auth.test#errors
 */
const PASSING_ERRORS = new Set([
  "internal_error",
  "fatal_error",
  "service_unavailable",
  "request_timeout",
]);

/** What to put in each token variable, for the line that stops the start. */
const TOKEN_HINTS: Record<StartVariable, string> = {
  SLACK_BOT_TOKEN: "use the app's Bot User OAuth Token (xoxb-…) from OAuth & Permissions",
  SLACK_APP_TOKEN:
    "use an app-level token (xapp-…) with the connections:write scope from Basic Information",
};

export type StartVariable = "SLACK_BOT_TOKEN" | "SLACK_APP_TOKEN";

/**
 * A Slack call at start-up (auth.test, opening Socket Mode): tried again while Slack cannot be
 * reached, is rate limiting or reports its own trouble; a refusal of the token (invalid_auth,
 * token_revoked, …) fails at once with a StartupError naming `variable`.
 */
export async function slackStartCall<T>(
  variable: StartVariable,
  call: () => Promise<T>,
  options: { what: string; log: Logger; attempts: number; signal?: AbortSignal | undefined },
): Promise<T> {
  try {
    return await retryAtStart(call, {
      what: `Slack ${options.what}`,
      address: "SLACK_API_URL",
      log: options.log,
      attempts: options.attempts,
      signal: options.signal,
      isPassing,
      retryAfterMs: (error) => {
        const { code, retryAfter } = error as { code?: string; retryAfter?: number };
        return code === webApi.ErrorCode.RateLimitedError
          ? Math.max(1, retryAfter ?? 1) * 1_000
          : undefined;
      },
    });
  } catch (error) {
    const { code } = error as { code?: string };
    if (code !== webApi.ErrorCode.PlatformError || isPassing(error)) throw error;
    throw new StartupError(
      variable,
      `${variable} was refused by Slack (${slackErrorOf(error)}): ${TOKEN_HINTS[variable]}`,
      error,
    );
  }
}

function isPassing(error: unknown): boolean {
  const { code } = error as { code?: string };
  switch (code) {
    case webApi.ErrorCode.RequestError:
    case webApi.ErrorCode.HTTPError:
    case webApi.ErrorCode.RateLimitedError:
      return true;
    case webApi.ErrorCode.PlatformError:
      return PASSING_ERRORS.has(slackErrorOf(error));
    default:
      return false;
  }
}
