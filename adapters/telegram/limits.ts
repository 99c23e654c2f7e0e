/**
 * Telegram's numbers, each with the page it comes from. The reply engine reads the
 * per-surface ones through `SurfaceLimits`; the rest shape the call budgets.
 */

/**
 * Longest message text, counted after entities are parsed (the visible text, not the HTML).
 * https://core.telegram.org/bots/api#sendmessage ("1-4096 characters after entities parsing")
 */
export const MAX_MESSAGE_LENGTH = 4_096;

/**
 * "Avoid sending more than one message per second in a particular chat. We may allow short
 * bursts that go over this limit, but eventually you'll begin receiving 429 errors."
 * https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this
 * An edit a second in private chats keeps to it.
 */
export const PRIVATE_EDIT_INTERVAL_MS = 1_000;

/**
 * "Your bot will not be able to send more than 20 messages per minute to the same group."
 * (same FAQ entry). Edits are counted as messages here, to be safe.
 */
export const GROUP_MESSAGES_PER_MINUTE = 20;

/**
 * An edit every three seconds per answer in groups: one answer then takes a third of the
 * group's budget, so a few can stream side by side (the shared budget does the rest).
 */
export const GROUP_EDIT_INTERVAL_MS = 3_000;

/** Calls a chat's budget lets through at once after a quiet spell (the FAQ's "short bursts"). */
export const BURST = 3;

/**
 * A draft is "ephemeral and acts as a temporary 30-second preview"; a chat whose draft was
 * not touched for longer holds none.
 * https://core.telegram.org/bots/api#sendmessagedraft
 */
export const DRAFT_LIFETIME_MS = 30_000;

/**
 * Long polling: seconds `getUpdates` waits for an update before answering empty.
 * https://core.telegram.org/bots/api#getupdates (timeout; "should be positive, short
 * polling should be used for testing purposes only")
 */
export const POLL_TIMEOUT_SECONDS = 30;

/**
 * `secret_token` of setWebhook: "1-256 characters. Only characters A-Z, a-z, 0-9, _ and -".
 * https://core.telegram.org/bots/api#setwebhook
 */
export const WEBHOOK_SECRET_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;

/** The header Telegram sends the secret in (same page). */
export const WEBHOOK_SECRET_HEADER = "x-telegram-bot-api-secret-token";

/**
 * The user id Telegram shows as the author of a message an anonymous group admin sent
 * ("GroupAnonymousBot"); the real author is the chat itself in `sender_chat`.
 * https://core.telegram.org/bots/api#message (sender_chat)
 */
export const ANONYMOUS_ADMIN_BOT_ID = 1_087_968_824;
