/**
 * Where the whole-bot bench puts each answer, shared by the process that delivers the
 * questions and the fake platforms that receive the answers.
 *
 * Every concurrent answer has a conversation of its own, as many people writing to the bot
 * at once would: even slots are Telegram private chats (one per person; Telegram's flood
 * limit is per chat), odd slots Slack DMs. Slack counts chat.update and chat.appendStream per
 * workspace (Tier 3 and 4: about 50 and 100 a minute), so a thousand answers streaming in one
 * workspace could only be shown by skipping nearly every edit; the Slack DMs are spread over
 * workspaces of SLACK_ANSWERS_PER_WORKSPACE each, so the edit budget and not the bench
 * decides what a person sees. The bot serves them all with one token; the DM's channel id
 * names its workspace, so the fake Slack can count calls per workspace as Slack does.
 */

export const SLACK_ANSWERS_PER_WORKSPACE = 2;

/** Telegram private chat ids (= the person's user id) start here. */
const TELEGRAM_FIRST_CHAT = 100_000;

export type BenchChat =
  | { platform: "telegram"; key: string; chatId: number }
  | { platform: "slack"; key: string; team: string; channel: string; user: string };

/** The conversation of slot `slot` (0, 1, 2, …). */
export function benchChat(slot: number): BenchChat {
  if (slot % 2 === 0) {
    const chatId = TELEGRAM_FIRST_CHAT + slot / 2;
    return { platform: "telegram", key: telegramKey(chatId), chatId };
  }
  const index = (slot - 1) / 2;
  const workspace = Math.floor(index / SLACK_ANSWERS_PER_WORKSPACE);
  const channel = `D${index}X${workspace}`;
  return {
    platform: "slack",
    key: slackKey(channel),
    team: `T${workspace}`,
    channel,
    user: `U${index}`,
  };
}

export function telegramKey(chatId: number | string): string {
  return `telegram:${chatId}`;
}

export function slackKey(channel: string): string {
  return `slack:${channel}`;
}

/** The workspace of a DM channel named by benchChat ("D17X8" → "T8"); "T0" for any other. */
export function slackTeamOf(channel: string): string {
  const workspace = channel.split("X")[1];
  return `T${workspace ?? "0"}`;
}
