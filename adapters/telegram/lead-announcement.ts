import type { Api } from "grammy";
import { callWithinBudget } from "../../src/coordination/call-budget.ts";
import type { RateBudgets } from "../../src/coordination/per-key.ts";
import { ChannelUnavailableError } from "../../src/errors.ts";
import { isPlainEmail } from "../../src/leads/lead-text.ts";
import type {
  LeadAnnouncement,
  LeadAnnouncementField,
  LeadAnnouncer,
  LeadCardState,
  LeadOrigin,
} from "../../src/ports.ts";
import { inlineKeyboard, type TelegramMessageAt, telegramMessageAt } from "./buttons.ts";
import { isNotModified, retryAfterMs, TelegramApiError } from "./errors.ts";
import { escapeAttribute, escapeText } from "./escape.ts";
import {
  cardThreadKey,
  type ReplyChains,
  telegramChannelKey,
  telegramOriginShape,
} from "./to-incoming.ts";

/**
 * A lead as Telegram HTML: every value escaped, the e-mail a mailto link when plain, and the
 * card's status (who took it) in italics at the end.
 */
function renderLeadAnnouncement(announcement: LeadAnnouncement, state: LeadCardState = {}): string {
  const lines = announcement.fields.map(
    (field) => `<b>${escapeText(field.labelled)}</b> ${renderValue(field)}`,
  );
  const status = state.status ? ["", `<i>${escapeText(state.status)}</i>`] : [];
  return [`<b>${escapeText(announcement.title)}</b>`, ...lines, ...status].join("\n");
}

/** sendMessage's and editMessageText's options for a card in `state`. */
function cardOptions(state: LeadCardState) {
  return {
    parse_mode: "HTML" as const,
    link_preview_options: { is_disabled: true },
    ...(state.buttons ? { reply_markup: inlineKeyboard(state.buttons) } : {}),
  };
}

function renderValue(field: LeadAnnouncementField): string {
  if (field.kind === "email" && isPlainEmail(field.value)) {
    return `<a href="mailto:${escapeAttribute(field.value)}">${escapeText(field.value)}</a>`;
  }
  if (field.kind === "id") return `<code>${escapeText(field.value)}</code>`;
  // A link of the bot's own making: an https URL (lead-text.ts).
  if (field.kind === "place" && field.link) {
    return `<a href="${escapeAttribute(field.link)}">${escapeText(field.value)}</a>`;
  }
  return escapeText(field.value);
}

/**
 * Where a Telegram conversation is, as a lead card tells it: a private chat by its person; a
 * group by its title, with a link to the message for a supergroup (t.me/<username>/<id> for a
 * public one, t.me/c/<id>/<id> for its members otherwise; a basic group has no links).
 */
function describeTelegramOrigin(origin: unknown): LeadOrigin | undefined {
  const at = telegramOriginShape.safeParse(origin);
  if (!at.success) return undefined;
  const { chat, type, title, username, message, asker, business } = at.data;
  if (type === "private") {
    return { platform: "Telegram", place: business ? "business" : "private", asker };
  }
  const internal = String(chat).match(/^-100(\d+)$/)?.[1];
  const link =
    type !== "supergroup"
      ? undefined
      : username
        ? `https://t.me/${encodeURIComponent(username)}/${message}`
        : internal && `https://t.me/c/${internal}/${message}`;
  return { platform: "Telegram", place: "group", where: title, link };
}

/**
 * Posts lead announcements into Telegram chats, within the same per-chat budget the answers
 * use, waiting out 429s: many leads at once are queued, never dropped.
 */
export function createTelegramLeadAnnouncer(
  api: Api,
  budgets: RateBudgets,
  chains: ReplyChains,
): LeadAnnouncer {
  return {
    platform: "telegram",
    channelKey: telegramChannelKey,
    describeOrigin: async (origin) => describeTelegramOrigin(origin),
    async announce(chatId, announcement, state = {}) {
      const sent = await callWithinBudget(
        budgets.for(chatId),
        () =>
          api.sendMessage(chatId, renderLeadAnnouncement(announcement, state), cardOptions(state)),
        { retryAfterMs },
      );
      return telegramMessageAt(sent.chat.id, sent.message_id);
    },
    async show(message, announcement, state) {
      const { chatId, messageId } = message as TelegramMessageAt;
      await callWithinBudget(
        budgets.for(String(chatId)),
        () =>
          api
            .editMessageText(chatId, messageId, renderLeadAnnouncement(announcement, state), {
              ...cardOptions(state),
              // An edit without it would keep no keyboard at all.
              reply_markup: inlineKeyboard(state.buttons ?? []),
            })
            .catch((error: unknown) => {
              // Already showing it (a press that came twice): nothing to change.
              if (!isNotModified(error)) throw error;
            }),
        { retryAfterMs },
      );
    },
    threadUnder(message) {
      const { chatId, messageId } = message as TelegramMessageAt;
      return cardThreadKey(chatId, messageId);
    },
    async follow(message, on) {
      // A reply to the card is read as part of its chain (placeOf), in any kind of chat. The
      // chain stays after the hand-over: a reply to the card is then told it ended, not asked
      // of the chatbot.
      if (!on) return;
      const { chatId, messageId } = message as TelegramMessageAt;
      await chains.remember(chatId, messageId, cardThreadKey(chatId, messageId));
    },
    async replyUnder(message, text, threadKey) {
      const { chatId, messageId } = message as TelegramMessageAt;
      const sent = await callWithinBudget(
        budgets.for(String(chatId)),
        () =>
          api.sendMessage(chatId, escapeText(text), {
            parse_mode: "HTML",
            link_preview_options: { is_disabled: true },
            reply_parameters: { message_id: messageId, allow_sending_without_reply: true },
          }),
        { retryAfterMs },
      ).catch((error: unknown) => {
        // The bot was removed from the lead chat, or the chat is gone: nothing goes there now.
        if (error instanceof TelegramApiError && [400, 403].includes(error.errorCode)) {
          throw new ChannelUnavailableError(error.message, "add the bot to the lead chat again", {
            cause: error,
          });
        }
        throw error;
      });
      // A reply to this line goes on in the card's chain too. The line is posted already:
      // without the record, a reply to it is one to a message of the bot's.
      await chains.remember(chatId, sent.message_id, threadKey).catch(() => undefined);
    },
  };
}
