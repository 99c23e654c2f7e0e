import type { Api } from "grammy";
import { callWithinBudget } from "../../src/coordination/call-budget.ts";
import type { RateBudgets } from "../../src/coordination/per-key.ts";
import { isPlainEmail } from "../../src/leads/lead-text.ts";
import type { LeadAnnouncement, LeadAnnouncementField, LeadAnnouncer } from "../../src/ports.ts";
import { retryAfterMs } from "./errors.ts";
import { escapeAttribute, escapeText } from "./escape.ts";

/** A lead as Telegram HTML: every value escaped, the e-mail a mailto link when plain. */
export function renderLeadAnnouncement(announcement: LeadAnnouncement): string {
  const lines = announcement.fields.map(
    (field) => `<b>${escapeText(field.label)}:</b> ${renderValue(field)}`,
  );
  return [`<b>${escapeText(announcement.title)}</b>`, ...lines].join("\n");
}

function renderValue(field: LeadAnnouncementField): string {
  if (field.kind === "email" && isPlainEmail(field.value)) {
    return `<a href="mailto:${escapeAttribute(field.value)}">${escapeText(field.value)}</a>`;
  }
  if (field.kind === "id") return `<code>${escapeText(field.value)}</code>`;
  return escapeText(field.value);
}

/**
 * Posts lead announcements into Telegram chats, within the same per-chat budget the answers
 * use, waiting out 429s: many leads at once are queued, never dropped.
 */
export function createTelegramLeadAnnouncer(api: Api, budgets: RateBudgets): LeadAnnouncer {
  return {
    platform: "telegram",
    channelKey: (chatId) => `telegram:${chatId}`,
    async announce(chatId, announcement) {
      await callWithinBudget(
        budgets.for(chatId),
        () =>
          api.sendMessage(chatId, renderLeadAnnouncement(announcement), {
            parse_mode: "HTML",
            link_preview_options: { is_disabled: true },
          }),
        { retryAfterMs },
      );
    },
  };
}
