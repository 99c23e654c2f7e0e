import type { Api } from "grammy";
import { callWithinBudget } from "../../src/coordination/call-budget.ts";
import type { RateBudgets } from "../../src/coordination/per-key.ts";
import {
  ANNOUNCEMENT_TITLE,
  announcementFields,
  isPlainEmail,
  type LeadField,
} from "../../src/leads/lead-text.ts";
import type { Lead, LeadAnnouncer } from "../../src/ports.ts";
import { retryAfterMs } from "./errors.ts";
import { escapeAttribute, escapeText } from "./escape.ts";

/** A lead as Telegram HTML: every value escaped, the e-mail a mailto link when plain. */
export function renderLeadAnnouncement(lead: Lead): string {
  const lines = announcementFields(lead).map(
    (field) => `<b>${escapeText(field.label)}:</b> ${renderValue(field)}`,
  );
  return [`<b>${escapeText(ANNOUNCEMENT_TITLE)}</b>`, ...lines].join("\n");
}

function renderValue(field: LeadField): string {
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
    async announce(chatId, lead) {
      await callWithinBudget(
        budgets.for(chatId),
        () =>
          api.sendMessage(chatId, renderLeadAnnouncement(lead), {
            parse_mode: "HTML",
            link_preview_options: { is_disabled: true },
          }),
        { retryAfterMs },
      );
    },
  };
}
