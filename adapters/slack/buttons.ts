import type { webApi } from "@slack/bolt";
import { z } from "zod";
import { ACTION_NAME } from "../../src/bridge/button-handlers.ts";
import type { Button, PressedButton } from "../../src/ports.ts";
import { toBridgeError } from "./api.ts";
import { slackRenderer } from "./render.ts";
import { slackChannelKey } from "./to-incoming.ts";

/** The actions block the bot's buttons live in (Slack names it in every press). */
const BUTTONS_BLOCK_ID = "chatbot-bridge-buttons";

// Block Kit's bounds: a button's value at most 2,000 characters, its text 75, an actions
// block 25 elements. https://docs.slack.dev/reference/block-kit/block-elements/button-element
const MAX_VALUE = 2_000;
const MAX_LABEL = 75;
const MAX_BUTTONS = 25;

/**
 * Buttons as a Block Kit actions block. Each action_id is the action plus the button's place
 * (action_ids must differ within a block, and two buttons may share an action); the value is
 * the id. Throws on a button Slack would refuse, when the message is built.
 */
export function buttonsBlock(buttons: readonly Button[]): object {
  if (buttons.length > MAX_BUTTONS) throw new Error(`more than ${MAX_BUTTONS} buttons`);
  return {
    type: "actions",
    block_id: BUTTONS_BLOCK_ID,
    elements: buttons.map((button, index) => {
      if (!ACTION_NAME.test(button.action)) throw new Error(`bad action: ${button.action}`);
      if (button.id.length > MAX_VALUE) throw new Error(`button id over ${MAX_VALUE} characters`);
      return {
        type: "button",
        action_id: `${button.action}:${index}`,
        value: button.id,
        text: { type: "plain_text", text: [...button.label].slice(0, MAX_LABEL).join("") },
        ...(button.style ? { style: button.style } : {}),
      };
    }),
  };
}

/** The parts of a `block_actions` payload a press needs; Slack signed it, its values are the client's. */
const blockActions = z.looseObject({
  type: z.literal("block_actions"),
  user: z.looseObject({
    id: z.string(),
    username: z.string().optional(),
    name: z.string().optional(),
  }),
  team: z.looseObject({ id: z.string() }).nullish(),
  /** One per interaction: a retry of the same press carries it again. */
  trigger_id: z.string().optional(),
  container: z.looseObject({
    channel_id: z.string().optional(),
    message_ts: z.string().optional(),
    thread_ts: z.string().optional(),
  }),
  channel: z.looseObject({ id: z.string() }).optional(),
  message: z
    .looseObject({
      ts: z.string(),
      thread_ts: z.string().optional(),
    })
    .optional(),
  actions: z.array(z.looseObject({ action_id: z.string(), value: z.string().optional() })).min(1),
});

export type BlockActions = z.infer<typeof blockActions>;

/** Where a pressed button's message is, as Slack's chat.update names it. */
export interface SlackMessageAt {
  channel: string;
  ts: string;
}

/** One shape for a message's place, whoever builds it: refs of one message compare equal. */
export function slackMessageAt(channel: string, ts: string): SlackMessageAt {
  return { channel, ts };
}

/** A block_actions payload read, or undefined when it is not one with a message and a channel. */
export function readBlockActions(body: unknown): BlockActions | undefined {
  const parsed = blockActions.safeParse(body);
  if (!parsed.success) return undefined;
  const { container, message, channel } = parsed.data;
  if (!(container.channel_id ?? channel?.id) || !(container.message_ts ?? message?.ts))
    return undefined;
  return parsed.data;
}

export interface SlackPressContext {
  client: webApi.WebClient;
  /** The workspace, as Bolt's context names it for events too. */
  teamId: string | undefined;
  /** The bot's own workspace (auth.test), when neither the context nor the payload names one. */
  botTeamId: string | undefined;
  isAdmin(user: string): Promise<boolean>;
  locale(user: string): Promise<string | undefined>;
}

/** The press of the payload's first action, as the button handlers take it. */
export function slackPress(payload: BlockActions, context: SlackPressContext): PressedButton {
  const [action] = payload.actions as [BlockActions["actions"][number]];
  const channel = payload.container.channel_id ?? payload.channel?.id ?? "";
  const ts = payload.container.message_ts ?? payload.message?.ts ?? "";
  const threadTs = payload.container.thread_ts ?? payload.message?.thread_ts;
  const { user } = payload;
  const handle = user.username ?? user.name;
  const { client } = context;
  return {
    channel: "slack",
    // Our action_ids end in the button's place; another app's (or a forged) one is unknown.
    action: action.action_id.replace(/:\d+$/, ""),
    id: action.value ?? "",
    pressId: payload.trigger_id,
    person: {
      id: user.id,
      name: handle ? `@${handle}` : user.id,
      isAdmin: () => context.isAdmin(user.id),
      // A workspace's admins (and the listed ids) administer every channel of it alike.
      isBotAdmin: () => context.isAdmin(user.id),
      locale: () => context.locale(user.id),
    },
    channelId: channel,
    channelKey: slackChannelKey(context.teamId ?? payload.team?.id ?? context.botTeamId, channel),
    message: slackMessageAt(channel, ts),
    replyPrivately: privateReply(client, { channel, user: user.id, threadTs }),
  };
}

/** A note to `user` alone (ephemeral) in `channel`, in the thread at `threadTs` if given. */
export function privateReply(
  client: webApi.WebClient,
  to: { channel: string; user: string; threadTs: string | undefined },
): (text: string) => Promise<void> {
  const { channel, user, threadTs } = to;
  return async (text) => {
    try {
      await client.chat.postEphemeral({
        channel,
        user,
        text: slackRenderer.note(text),
        ...(threadTs ? { thread_ts: threadTs } : {}),
      });
    } catch (error) {
      throw toBridgeError("chat.postEphemeral", channel, error);
    }
  };
}
