import { webApi } from "@slack/bolt";
import {
  BridgeError,
  ChannelUnavailableError,
  MessageGoneError,
  RateLimitedError,
} from "../../src/errors.ts";
import type { UserText } from "../../src/i18n/messages.ts";
import { type CallStatus, callStatusOf } from "../../src/metrics.ts";
import { platformCallTrace } from "../../src/tracing.ts";
import { STREAMING_METHODS, StreamingCalls } from "./streaming-calls.ts";

/** Told of every Web API call this client made and how it ended (for the metrics). */
export type CallObserver = (method: string, status: CallStatus) => void;

/**
 * The Web API client set up for streaming answers: no retry queue (Slack's default retries
 * for about 30 minutes and holds every later call of the client behind a 429), 429s
 * rejected at once so the reply engine waits out `Retry-After` for the one workspace, and a
 * bound on each request. https://docs.slack.dev/tools/node-slack-sdk/web-api#rate-limits
 */
export function createWebClient(
  token: string,
  options: {
    apiUrl?: string | undefined;
    timeoutMs: number;
    logger: webApi.WebClientOptions["logger"];
    onCall?: CallObserver | undefined;
  },
): webApi.WebClient {
  const streaming = new StreamingCalls({
    apiUrl: options.apiUrl ?? SLACK_API_URL,
    token,
    timeoutMs: options.timeoutMs,
  });
  return new ObservedWebClient(options.onCall, streaming, token, {
    ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: options.timeoutMs,
    logger: options.logger,
  });
}

/** Where the Web API is when SLACK_API_URL does not say. */
const SLACK_API_URL = "https://slack.com/api/";

/**
 * Every method of the WebClient (chat.postMessage, auth.test, …) goes through `apiCall`; the
 * streaming methods take the lean path (see streaming-calls.ts).
 */
class ObservedWebClient extends webApi.WebClient {
  readonly #onCall: CallObserver | undefined;
  readonly #streaming: StreamingCalls;

  constructor(
    onCall: CallObserver | undefined,
    streaming: StreamingCalls,
    ...args: ConstructorParameters<typeof webApi.WebClient>
  ) {
    super(...args);
    this.#onCall = onCall;
    this.#streaming = streaming;
  }

  override async apiCall(
    method: string,
    options?: Record<string, unknown>,
  ): Promise<webApi.WebAPICallResult> {
    const traced = platformCallTrace("slack", method);
    try {
      const result = STREAMING_METHODS.has(method)
        ? await this.#streaming.call(method, options ?? {})
        : await super.apiCall(method, options);
      this.#onCall?.(method, "ok");
      traced?.("ok");
      return result;
    } catch (error) {
      const status = callStatusOfSlack(error);
      this.#onCall?.(method, status);
      traced?.(status);
      throw error;
    }
  }
}

/** A failed call's status: Slack answers its refusals (`ok: false`) with HTTP 200. */
function callStatusOfSlack(error: unknown): Exclude<CallStatus, "ok"> {
  const coded = error as { code?: string; statusCode?: number };
  switch (coded?.code) {
    case webApi.ErrorCode.RateLimitedError:
      return "429";
    case webApi.ErrorCode.PlatformError:
      return "4xx";
    case webApi.ErrorCode.HTTPError:
      return callStatusOf(coded.statusCode);
    default:
      return "network";
  }
}

/** Slack said no to a call (a platform error), or the call did not complete. */
export class SlackApiError extends BridgeError {
  readonly code = "SLACK_API";
  constructor(
    readonly method: string,
    /** Slack's error string ("invalid_blocks"), or "network" when no answer came. */
    readonly slackError: string,
    cause?: unknown,
    userText: UserText = { key: "errorSlackRefused", values: { error: slackError } },
  ) {
    super(`slack ${method}: ${slackError}`, { userText, cause });
  }
}

/**
 * The bot cannot write in the conversation at all (not invited, archived, gone): there is
 * nothing to retry and nowhere to show an error, so the bridge logs it once, with the fix.
 */
export class SlackChannelUnavailableError extends ChannelUnavailableError {
  constructor(
    readonly method: string,
    readonly slackError: string,
    readonly channel: string,
    cause?: unknown,
  ) {
    super(`slack ${method}: ${slackError} in ${channel}`, CHANNEL_HINTS[slackError] ?? "", {
      userText: { key: "errorCannotPostBecause", values: { error: slackError } },
      cause,
    });
  }
}

const CHANNEL_HINTS: Record<string, string> = {
  not_in_channel: "invite the bot to the channel (/invite @bot)",
  channel_not_found: "the channel is gone, or the bot cannot see it: invite the bot",
  is_archived: "the channel is archived",
  restricted_action: "a workspace setting keeps the bot from posting here",
  not_allowed_token_type: "the token is not a bot token (xoxb-…)",
};

const CHANNEL_ERRORS = new Set(Object.keys(CHANNEL_HINTS));

/** Slack's error string of a failed call: the platform's, "ratelimited", or "network". */
export function slackErrorOf(error: unknown): string {
  const coded = error as { code?: string; data?: { error?: string } };
  if (coded?.code === webApi.ErrorCode.PlatformError) return coded.data?.error ?? "unknown_error";
  if (coded?.code === webApi.ErrorCode.RateLimitedError) return "ratelimited";
  return "network";
}

/**
 * Turns a Web API failure into the error the reply engine handles: a 429 into
 * RateLimitedError (Slack's `Retry-After` is whole seconds), a deleted message into
 * MessageGoneError, a channel the bot cannot use into SlackChannelUnavailableError.
 */
export function toBridgeError(method: string, channel: string, error: unknown): BridgeError {
  const coded = error as { code?: string; retryAfter?: number };
  if (coded?.code === webApi.ErrorCode.RateLimitedError) {
    return new RateLimitedError(Math.max(1, coded.retryAfter ?? 1) * 1_000, error);
  }
  const slackError = slackErrorOf(error);
  if (slackError === "message_not_found") return new MessageGoneError(error);
  if (CHANNEL_ERRORS.has(slackError)) {
    return new SlackChannelUnavailableError(method, slackError, channel, error);
  }
  return new SlackApiError(method, slackError, error);
}

/**
 * Errors of the streaming methods that say streaming cannot work for the whole workspace:
 * the feature is off, the app lacks the scope, or the method is not there.
 * https://docs.slack.dev/reference/methods/chat.startStream#errors
 */
const WORKSPACE_STREAM_ERRORS = new Set([
  "feature_not_enabled",
  "missing_scope",
  "not_allowed_token_type",
  "unknown_method",
  "method_deprecated",
]);

/**
 * Errors that say streaming cannot work in this conversation (a Slack Connect user from
 * another org, a conversation type streams do not support, recipients Slack insists on).
 */
const THREAD_STREAM_ERRORS = new Set([
  "missing_recipient_team_id",
  "missing_recipient_user_id",
  "user_not_found",
  "team_not_found",
  "team_access_not_granted",
  "channel_type_not_supported",
]);

/** How far a streaming failure reaches: this message only, the thread, or the workspace. */
export function streamFailureScope(error: unknown): "message" | "thread" | "workspace" {
  const slackError = slackErrorOf(error);
  if (WORKSPACE_STREAM_ERRORS.has(slackError)) return "workspace";
  if (THREAD_STREAM_ERRORS.has(slackError)) return "thread";
  return "message";
}
