import type { RespondFn } from "@slack/bolt";
import type { MessageRef, NoticeOptions, ReplySurface, SurfaceLimits } from "../../src/ports.ts";
import { SlackApiError } from "./api.ts";
import { MAX_MESSAGE_CHARS } from "./limits.ts";
import { slackRenderer } from "./render.ts";

/**
 * Where a slash command's reply goes: its `response_url`, which works in every conversation
 * the command was typed in (the bot need not be a member), ephemeral unless the reply is for
 * everyone. A command never streams; anything posted goes the same way.
 * https://docs.slack.dev/interactivity/handling-user-interaction#message_responses
 */
export function createCommandSurface(respond: RespondFn): ReplySurface {
  const limits: SurfaceLimits = { maxMessageLength: MAX_MESSAGE_CHARS, minEditIntervalMs: 1_000 };
  const send = async (text: string, visibleToAll: boolean) => {
    try {
      await respond({ response_type: visibleToAll ? "in_channel" : "ephemeral", text });
    } catch (error) {
      throw new SlackApiError("response_url", "network", error);
    }
  };
  return {
    renderer: slackRenderer,
    limits,
    async send(request): Promise<MessageRef> {
      if ("text" in request) await send(request.text, true);
      return {};
    },
    async notice(rendered, options: NoticeOptions = {}) {
      await send(rendered, !options.private);
    },
  };
}
