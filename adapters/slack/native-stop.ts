import type { webApi } from "@slack/bolt";
import { z } from "zod";
import { stopReply } from "../../src/bridge/answer-buttons.ts";
import type { Bridge } from "../../src/bridge/bridge.ts";
import type { StopOutcome } from "../../src/coordination/answer-stops.ts";
import { userTextOf } from "../../src/errors.ts";
import type { ChannelLanguages } from "../../src/i18n/channel-language.ts";
import type { SlackAdmins } from "./admins.ts";
import { setSessionStatus } from "./agent-session.ts";
import { privateReply } from "./buttons.ts";
import { slackChannelKey, threadKeyOf } from "./to-incoming.ts";
import type { Workspaces } from "./workspace.ts";

/**
 * The fields of `agent_session_stopped` the bot reads (@slack/types' AgentSessionStoppedEvent);
 * which streams Slack stopped (`streaming_message_ts`) it need not know: the answer's own
 * calls find out, and go on by edits.
 * https://docs.slack.dev/reference/events/agent_session_stopped
 */
const sessionStopped = z.looseObject({
  type: z.literal("agent_session_stopped"),
  channel: z.string(),
  thread_ts: z.string(),
  user: z.string(),
});

export interface NativeStopDeps {
  bridge: Pick<Bridge, "stopInThread">;
  client: webApi.WebClient;
  admins: Pick<SlackAdmins, "isAdmin" | "locale" | "name">;
  languages: ChannelLanguages;
  workspaces: Workspaces;
}

/**
 * A press of Slack's own Stop on a thread whose agent session is processing: it stops the
 * answer being written there exactly as ⏹ Stop does, on whichever process streams it, for its
 * asker or an admin of the channel ("⏹ stopped by" their name as Slack shows it). Anyone else
 * is told privately, in the channel's language, as ⏹ Stop tells them, and the answer goes on;
 * its session stays processing. Slack moves the session no further by itself: once nothing is
 * being written there it is set active here (the answer's own end sets it too, but its process
 * may be one that died). A check that failed (Slack could not say who is an admin) is told to
 * the presser, as ⏹ Stop tells it, then thrown for the log.
 */
export async function onNativeStop(
  raw: unknown,
  teamId: string,
  deps: NativeStopDeps,
): Promise<void> {
  const parsed = sessionStopped.safeParse(raw);
  if (!parsed.success) return;
  const { channel, thread_ts: threadTs, user } = parsed.data;
  const { admins } = deps;
  const tell = privateReply(deps.client, { channel, user, threadTs });
  const language = () =>
    deps.languages.translatorFor(slackChannelKey(teamId, channel), () => admins.locale(user));
  let outcome: StopOutcome;
  try {
    // A name Slack cannot give now leaves the stopped note without one.
    const name = await admins.name(user).catch(() => undefined);
    outcome = await deps.bridge.stopInThread(threadKeyOf(teamId, channel, threadTs), {
      id: user,
      name,
      isAdmin: () => admins.isAdmin(user),
    });
  } catch (error) {
    const t = await language();
    await tell(t.t("failed", { reason: userTextOf(error) })).catch(() => undefined);
    throw error;
  }
  if (outcome === "refused") {
    await tell(stopReply(outcome, await language()));
    return;
  }
  const session = setSessionStatus(
    deps.client,
    deps.workspaces.for(teamId).sessions,
    { channel, threadTs },
    "active",
  );
  if (outcome === "none") await tell(stopReply(outcome, await language()));
  await session;
}
