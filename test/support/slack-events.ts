import { createHmac, randomUUID } from "node:crypto";

// What Slack sends an app over HTTP, for the tests and the bench: Events API envelopes and
// the signature Bolt checks (https://docs.slack.dev/authentication/verifying-requests-from-slack).

export const SIGNING_SECRET = "fake-signing-secret";
export const TEAM = "T0FAKE";
export const BOT = "UBOT";

/** The Events API envelope Slack wraps an event in. */
export function eventEnvelope(
  event: Record<string, unknown>,
  options: { team?: string; eventId?: string; botUserId?: string } = {},
): Record<string, unknown> {
  const team = options.team ?? TEAM;
  return {
    token: "legacy-verification-token",
    team_id: team,
    api_app_id: "A0FAKE",
    event,
    type: "event_callback",
    event_id: options.eventId ?? `Ev${randomUUID().slice(0, 8)}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        team_id: team,
        user_id: options.botUserId ?? BOT,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
  };
}

/** The headers of a JSON request Slack signed now (or at `timestamp`, seconds). */
export function signedJsonHeaders(
  body: string,
  options: { timestamp?: number; secret?: string } = {},
): Record<string, string> {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  return {
    "content-type": "application/json",
    "x-slack-request-timestamp": String(timestamp),
    "x-slack-signature": sign(timestamp, body, options.secret),
  };
}

export function sign(timestamp: number, body: string, secret = SIGNING_SECRET): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

/** A press of a button on one of the bot's messages: the `block_actions` payload Slack sends. */
export function blockActions(press: {
  actionId: string;
  value?: string;
  user?: string;
  username?: string;
  channel?: string;
  messageTs?: string;
  threadTs?: string;
  message?: Record<string, unknown>;
  team?: string;
}): Record<string, unknown> {
  const channel = press.channel ?? "C1";
  const messageTs = press.messageTs ?? "1700000000.000001";
  const team = press.team ?? TEAM;
  return {
    type: "block_actions",
    user: {
      id: press.user ?? "U1",
      username: press.username ?? "someone",
      name: press.username ?? "someone",
      team_id: team,
    },
    api_app_id: "A0FAKE",
    token: "legacy-verification-token",
    container: {
      type: "message",
      message_ts: messageTs,
      channel_id: channel,
      is_ephemeral: false,
      ...(press.threadTs ? { thread_ts: press.threadTs } : {}),
    },
    trigger_id: `trigger-${randomUUID().slice(0, 8)}`,
    team: { id: team, domain: "fake" },
    channel: { id: channel, name: "general" },
    message: press.message ?? { type: "message", user: BOT, ts: messageTs, text: "a message" },
    state: { values: {} },
    response_url: "https://hooks.slack.com/actions/T0FAKE/1/fake",
    actions: [
      {
        action_id: press.actionId,
        block_id: "chatbot-bridge-buttons",
        type: "button",
        ...(press.value === undefined ? {} : { value: press.value }),
        text: { type: "plain_text", text: "Button" },
        action_ts: String(Date.now() / 1000),
      },
    ],
  };
}

/**
 * A press of Slack's own Stop on an agent session: the `agent_session_stopped` event, naming
 * the streams Slack stopped (none when no stream was live). Its team is on the envelope.
 * https://docs.slack.dev/reference/events/agent_session_stopped
 */
export function agentSessionStopped(press: {
  channel: string;
  threadTs: string;
  user: string;
  streamingMessageTs: readonly string[];
}): Record<string, unknown> {
  return {
    type: "agent_session_stopped",
    channel: press.channel,
    thread_ts: press.threadTs,
    streaming_message_ts: [...press.streamingMessageTs],
    user: press.user,
    event_ts: String(Date.now() / 1000),
  };
}

/** POSTs a form (a slash command, a press) Slack signed now; resolves with its status. */
export async function postSignedForm(url: string, form: Record<string, string>): Promise<number> {
  const body = new URLSearchParams(form).toString();
  const timestamp = Math.floor(Date.now() / 1000);
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-slack-request-timestamp": String(timestamp),
      "x-slack-signature": sign(timestamp, body),
    },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}
