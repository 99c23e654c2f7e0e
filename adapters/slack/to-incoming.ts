import { z } from "zod";
import type { IncomingMessage } from "../../src/ports.ts";
import { mentions, slackTextToPlain, startsWithMention } from "./escape.ts";
import type { SlackThread } from "./surface.ts";

/** The bot as `auth.test` describes it: never configured, always learned. */
export interface SlackIdentity {
  userId: string;
  botId: string;
  teamId: string;
  /** How a person types each command here (see commandSpellings). */
  commandSpellings: Readonly<Record<string, string>>;
}

/**
 * Undocumented but sent with people's messages (events, and conversations.replies): their
 * names as Slack shows them.
 */
export const userProfile = z
  .looseObject({
    display_name: z.string().optional(),
    real_name: z.string().optional(),
    name: z.string().optional(),
  })
  .optional();

/**
 * The fields of `app_mention` and `message` events the bot reads. Anything else a delivery
 * carries is ignored; a delivery without these is not a message for the bot.
 * https://docs.slack.dev/reference/events/message
 */
const messageEvent = z.looseObject({
  type: z.enum(["app_mention", "message"]),
  subtype: z.string().optional(),
  channel: z.string(),
  channel_type: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  bot_profile: z.unknown().optional(),
  text: z.string().optional(),
  ts: z.string(),
  thread_ts: z.string().optional(),
  // Who wrote the thread's first message, on a reply in a thread.
  parent_user_id: z.string().optional(),
  team: z.string().optional(),
  user_team: z.string().optional(),
  user_profile: userProfile,
});

export type MessageEvent = z.infer<typeof messageEvent>;

/** Subtypes that are still a person writing; every other (edits, joins, bots) is not. */
const PERSON_SUBTYPES = new Set(["file_share", "thread_broadcast"]);

/**
 * Slackbot's user id. Its notices ("You have been removed from #… by …", reminders) come as
 * plain messages with no bot_id, in the bot's DM too: Slackbot has no bot id and is known
 * only by this user id (https://twitter.com/SlackAPI/status/938378388871499776).
 */
const SLACKBOT = "USLACKBOT";

/**
 * How the bot takes a message: a mention it must answer, a DM, a message in a channel
 * thread (answered only where the bot already answers), or nothing for it.
 */
export type MessageKind = "mention" | "dm" | "thread";

export interface SlackDelivery {
  kind: MessageKind;
  message: IncomingMessage;
  thread: SlackThread;
  /** The message's own ts (the thread's ts when it starts the thread). */
  ts: string;
  /** Who wrote the thread's first message, when Slack says (a reply in a thread). */
  parentUserId: string | undefined;
}

/**
 * Reads an event as a question or command for the bot, or undefined when it is not one:
 * the bot's own messages and everything its edits cause (`message_changed`, `bot_message`),
 * other bots, Slackbot, people's edits and deletions, and channel messages without a mention
 * outside a thread. A mention in a channel also arrives as a `message` event: that copy is
 * left to `app_mention`, and both carry the message's ts, which keys the delivery anyway.
 */
export function toDelivery(
  raw: unknown,
  context: {
    teamId: string | undefined;
    identity: SlackIdentity;
    admins: Admins;
  },
): SlackDelivery | undefined {
  const parsed = messageEvent.safeParse(raw);
  if (!parsed.success) return undefined;
  const event = parsed.data;
  const { identity } = context;
  if (event.subtype !== undefined && !PERSON_SUBTYPES.has(event.subtype)) return undefined;
  if (!event.user || !writtenByPerson(event, identity)) return undefined;
  const text = event.text ?? "";
  const kind = kindOf(event, text, identity);
  if (!kind) return undefined;

  const teamId = context.teamId ?? event.team ?? identity.teamId;
  const threadTs = event.thread_ts ?? event.ts;
  const user = event.user;
  return {
    kind,
    ts: event.ts,
    parentUserId: event.parent_user_id,
    thread: {
      teamId,
      channel: event.channel,
      threadTs,
      userId: user,
      userTeamId: event.user_team ?? event.team ?? teamId,
      // In the assistant pane every message is a reply in its thread.
      assistant: kind === "dm" && event.thread_ts !== undefined,
    },
    message: {
      channel: "slack",
      // The message's own ts: a retry, a replay and the `message` twin of an `app_mention`
      // all carry it, so each question is answered once.
      deliveryId: `${teamId}:${event.channel}:${event.ts}`,
      channelKey: slackChannelKey(teamId, event.channel),
      channelId: event.channel,
      threadKey: threadKeyOf(teamId, event.channel, threadTs),
      authorId: user,
      authorName: nameOf(event.user_profile),
      adminOfAll: kind === "dm" && context.admins.isListed(user),
      direct: kind === "dm",
      text: slackTextToPlain(text, identity.userId),
      bareCommands: kind === "mention" || startsWithMention(text, identity.userId),
      commandSpellings: identity.commandSpellings,
      isAdmin: () => context.admins.isAdmin(user),
      // A workspace's admins (and the listed ids) administer every channel of it alike.
      isBotAdmin: () => context.admins.isAdmin(user),
      authorLocale: () => context.admins.locale(user),
      origin: slackOrigin(event.channel, threadTs, nameOf(event.user_profile)),
    },
  };
}

/**
 * Where a Slack conversation is (IncomingMessage.origin): its channel and its thread's first
 * message; in a direct message (a channel id starting with D), the person's name too. The
 * lead card reads it back from the store with this schema (lead-announcement.ts).
 */
export const slackOriginShape = z.object({
  channel: z.string(),
  thread: z.string(),
  direct: z.boolean(),
  asker: z.string().optional(),
});
export type SlackOrigin = z.infer<typeof slackOriginShape>;

function slackOrigin(channel: string, thread: string, name: string | undefined): SlackOrigin {
  const direct = channel.startsWith("D");
  return direct && name ? { channel, thread, direct, asker: name } : { channel, thread, direct };
}

/**
 * Who is an admin: of a channel (asked), of the whole bot (SLACK_ADMIN_USERS); and a person's
 * locale, read with the admin flag.
 */
export interface Admins {
  isAdmin(user: string): Promise<boolean>;
  isListed(user: string): boolean;
  locale(user: string): Promise<string | undefined>;
}

/** A person's name as a message's `user_profile` gives it, when it does. */
export function nameOf(profile: z.infer<typeof userProfile>): string | undefined {
  return profile?.display_name || profile?.real_name || profile?.name || undefined;
}

/** Not the bot itself, another app or bot, or Slackbot: answering those talks to a machine. */
function writtenByPerson(event: MessageEvent, identity: SlackIdentity): boolean {
  if (event.user === identity.userId || event.user === SLACKBOT) return false;
  return event.bot_id === undefined && event.bot_profile === undefined;
}

function kindOf(
  event: MessageEvent,
  text: string,
  identity: SlackIdentity,
): MessageKind | undefined {
  if (event.type === "app_mention") return "mention";
  if (event.channel_type === "im") return "dm";
  // In channels the `app_mention` twin answers mentions; a reply in a thread may continue one.
  if (mentions(text, identity.userId)) return undefined;
  if (event.thread_ts !== undefined && event.thread_ts !== event.ts) return "thread";
  return undefined;
}

/** One conversation with the chatbot: a thread, by its channel and root message. */
export function threadKeyOf(teamId: string, channel: string, threadTs: string): string {
  return `slack:${teamId}:${channel}:${threadTs}`;
}

/** A slash command's payload, the fields the bot reads. https://docs.slack.dev/interactivity/implementing-slash-commands#app_command_handling */
const commandPayload = z.looseObject({
  command: z.string(),
  text: z.string().default(""),
  team_id: z.string(),
  channel_id: z.string(),
  user_id: z.string(),
  user_name: z.string().optional(),
  trigger_id: z.string(),
  thread_ts: z.string().optional(),
});

/** Our slash commands and the core command each one is. */
export const SLASH_COMMANDS: Readonly<Record<string, string>> = {
  "/language": "language",
  "/leads": "leads",
  "/chatbot-help": "help",
  "/chatbot-new": "new",
  "/feedback": "feedback",
  // `/chatbot-use sales` picks the channel's chatbot; alone it shows it (as `/chatbot` does).
  "/chatbot-use": "chatbot use",
};

export interface CommandDelivery {
  message: IncomingMessage;
  /** Set when Slack said which thread the command was typed in. */
  threadTs: string | undefined;
  word: string;
}

/**
 * How a person types each command in Slack where it is not `/word`: a slash command of this
 * app, or a message to the bot in the thread for what acts on a thread (new, stop), since a
 * slash command carries no thread. Slack refuses any other slash word as no command of this app.
 */
export function commandSpellings(botName: string): Readonly<Record<string, string>> {
  return Object.fromEntries([
    ...Object.entries(SLASH_COMMANDS).map(([slash, word]) => [word, slash]),
    ...IN_THREAD.map((word) => [word, `@${botName} ${word}`]),
    ["chatbot", "/chatbot-use"],
  ]);
}

const IN_THREAD = ["new", "stop", "handback"] as const;

/** A slash command as a core message: the same words as the chat commands, with a slash. */
export function toCommand(
  raw: unknown,
  context: { identity: SlackIdentity; admins: Admins },
): CommandDelivery | undefined {
  const parsed = commandPayload.safeParse(raw);
  if (!parsed.success) return undefined;
  const payload = parsed.data;
  const word = SLASH_COMMANDS[payload.command];
  if (!word) return undefined;
  const { admins } = context;
  const threadKey = payload.thread_ts
    ? threadKeyOf(payload.team_id, payload.channel_id, payload.thread_ts)
    : `slack:${payload.team_id}:${payload.channel_id}:command`;
  return {
    word,
    threadTs: payload.thread_ts,
    message: {
      channel: "slack",
      deliveryId: `command:${payload.trigger_id}`,
      channelKey: slackChannelKey(payload.team_id, payload.channel_id),
      channelId: payload.channel_id,
      threadKey,
      authorId: payload.user_id,
      authorName: payload.user_name,
      // DM channel ids start with D (https://docs.slack.dev/reference/objects/conversation-object).
      adminOfAll: payload.channel_id.startsWith("D") && admins.isListed(payload.user_id),
      text: `/${word} ${slackTextToPlain(payload.text)}`.trim(),
      commandSpellings: context.identity.commandSpellings,
      isAdmin: () => admins.isAdmin(payload.user_id),
      isBotAdmin: () => admins.isAdmin(payload.user_id),
      authorLocale: () => admins.locale(payload.user_id),
    },
  };
}

/**
 * Where a Slack conversation's settings live, the same from an event, a slash command and a
 * button press (whose payload's `team` is null on an org-wide install: the workspace comes
 * from Bolt's context there).
 */
export function slackChannelKey(teamId: string | undefined, channel: string): string {
  return `slack:${teamId ?? ""}:${channel}`;
}
