import type { webApi } from "@slack/bolt";
import { callWithinBudget, RateBudget } from "../../src/coordination/call-budget.ts";
import { RateBudgets } from "../../src/coordination/per-key.ts";
import { isPlainEmail } from "../../src/leads/lead-text.ts";
import type {
  LeadAnnouncement,
  LeadAnnouncementField,
  LeadAnnouncer,
  LeadCardState,
} from "../../src/ports.ts";
import { toBridgeError } from "./api.ts";
import { buttonsBlock, type SlackMessageAt, slackMessageAt } from "./buttons.ts";
import { slackRenderer } from "./render.ts";
import { slackChannelKey, slackOriginShape, threadKeyOf } from "./to-incoming.ts";

// chat.postMessage allows about one message a second per channel, with short bursts.
// https://docs.slack.dev/reference/methods/chat.postMessage#rate_limiting
const POSTS_PER_MINUTE = 50;

/** Text shown as written: no mention, link or formatting of the lead's own can fire. */
const literal = (text: string) => slackRenderer.note(text);

function fieldText(field: LeadAnnouncementField): string {
  if (field.kind === "email" && isPlainEmail(field.value)) {
    return `<mailto:${field.value}|${literal(field.value)}>`;
  }
  // A link of the bot's own making (an https URL, lead-text.ts): its `|` and `>` would end it.
  if (field.kind === "place" && field.link) {
    return `<${field.link.replace(/[|<>]/g, encodeURIComponent)}|${literal(field.value)}>`;
  }
  return field.kind === "id" ? `\`${literal(field.value)}\`` : literal(field.value);
}

/**
 * A lead as Block Kit: a header, then one section of labelled fields, then the card's status
 * (who took it) and its buttons; `text` is the plain-text fallback notifications and screen
 * readers use. https://docs.slack.dev/reference/block-kit/blocks/section-block
 */
function leadMessage(
  announcement: LeadAnnouncement,
  state: LeadCardState = {},
): { text: string; blocks: object[] } {
  const status = state.status
    ? [{ type: "context", elements: [{ type: "mrkdwn", text: literal(state.status) }] }]
    : [];
  const buttons = state.buttons?.length ? [buttonsBlock(state.buttons)] : [];
  return {
    text: literal(announcement.summary),
    blocks: [
      { type: "header", text: { type: "plain_text", text: announcement.title } },
      {
        type: "section",
        fields: announcement.fields.map((field) => ({
          type: "mrkdwn",
          text: `*${field.label}*\n${fieldText(field)}`,
        })),
      },
      ...status,
      ...buttons,
    ],
  };
}

/**
 * Posts lead announcements into Slack channels within Slack's pace, waiting out 429s; a
 * channel's settings are keyed by the bot's workspace (`teamId`, known once started).
 */
export function createSlackLeadAnnouncer(
  client: webApi.WebClient,
  teamId: () => string | undefined,
  /** Has the bot take every message of the thread (as after a mention in it), or stop. */
  follow: (threadKey: string, on: boolean) => Promise<void>,
): LeadAnnouncer {
  const budgets = new RateBudgets(() => new RateBudget({ perMinute: POSTS_PER_MINUTE, burst: 3 }));
  return {
    platform: "slack",
    channelKey(channelId) {
      const team = teamId();
      return team === undefined ? undefined : slackChannelKey(team, channelId);
    },
    async announce(channelId, announcement, state) {
      return callWithinBudget(budgets.for(channelId), async () => {
        try {
          const posted = await client.chat.postMessage({
            channel: channelId,
            ...leadMessage(announcement, state),
            unfurl_links: false,
            unfurl_media: false,
          });
          return posted.ts ? slackMessageAt(posted.channel ?? channelId, posted.ts) : undefined;
        } catch (error) {
          throw toBridgeError("chat.postMessage", channelId, error);
        }
      });
    },
    async describeOrigin(origin) {
      const at = slackOriginShape.safeParse(origin);
      if (!at.success) return undefined;
      const { channel, thread, direct, asker } = at.data;
      // No scope needed; where Slack has none (the message deleted), the card has no link.
      const link = await client.chat.getPermalink({ channel, message_ts: thread }).then(
        (found) => found.permalink,
        () => undefined,
      );
      if (direct) return { platform: "Slack", place: "private", asker, link };
      // channels:read and groups:read (adapters/slack/manifest.yml); an app installed before
      // them names no channel.
      const name = await client.conversations.info({ channel }).then(
        (found) => found.channel?.name,
        () => undefined,
      );
      return { platform: "Slack", place: "thread", where: name && `#${name}`, link };
    },
    threadUnder(message) {
      const team = teamId();
      if (team === undefined) return undefined;
      const { channel, ts } = message as SlackMessageAt;
      return threadKeyOf(team, channel, ts);
    },
    async follow(message, on) {
      const threadKey = this.threadUnder?.(message);
      if (threadKey !== undefined) await follow(threadKey, on);
    },
    async replyUnder(message, text) {
      const { channel, ts } = message as SlackMessageAt;
      await callWithinBudget(budgets.for(channel), async () => {
        try {
          await client.chat.postMessage({
            channel,
            thread_ts: ts,
            text: literal(text),
            unfurl_links: false,
            unfurl_media: false,
          });
        } catch (error) {
          throw toBridgeError("chat.postMessage", channel, error);
        }
      });
    },
    async show(message, announcement, state) {
      const { channel, ts } = message as SlackMessageAt;
      await callWithinBudget(budgets.for(channel), async () => {
        try {
          await client.chat.update({ channel, ts, ...leadMessage(announcement, state) });
        } catch (error) {
          throw toBridgeError("chat.update", channel, error);
        }
      });
    },
  };
}
