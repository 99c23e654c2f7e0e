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
 * A rich message's limits (Bot API 10.1, "Rich Message Limits" under the formatting options;
 * InputRichMessage in @grammyjs/types rich.d.ts): "Up to 32768 UTF-8 characters in the rich
 * message text", "Up to 500 blocks, including nested blocks, list items, ordered list items,
 * table rows, quotation blocks, and details blocks", "Up to 16 levels of nested formatting
 * and blocks", "Up to 20 columns in a table".
 * https://core.telegram.org/bots/api#rich-message-limits
 */
export const MAX_RICH_TEXT_LENGTH = 32_768;
export const MAX_RICH_BLOCKS = 500;
export const MAX_RICH_NESTING = 16;
export const MAX_RICH_TABLE_COLUMNS = 20;

/**
 * "Your bot will not be able to send more than 20 messages per minute to the same group."
 * (same FAQ entry), counted here over any 60 s, with edits counted as messages, to be safe.
 * https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this
 */
export const GROUP_MESSAGES_PER_MINUTE = 20;
export const GROUP_WINDOW_MS = 60_000;

/**
 * Ours: a call reaches Telegram a little after the budget granted it, and not always equally
 * late, so the window the bot counts is this much longer than Telegram's minute.
 */
export const WINDOW_MARGIN_MS = 1_000;

/**
 * The FAQ's "one message per second in a particular chat", with its "short bursts": three
 * calls at once, then one a second. A burst of three lets the next answer's first text go at
 * once after the last answer's final message, as a person's next question usually comes.
 */
export const CHAT_BURST = 3;
export const CHAT_SPACING_MS = 1_000;

/**
 * Ours: calls reach Telegram a little after the budget granted them, not always equally late,
 * so the bot spaces a chat's calls this much wider than Telegram's second; a call that arrives
 * earlier than its predecessor's delay would still find Telegram's token refilled.
 */
export const CHAT_SPACING_MARGIN_MS = 50;

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

/**
 * How long a getChatMember answer (is this person a group admin?) is trusted before it is
 * asked again. Ours: admins change rarely, and a minute keeps a removed admin's rights short.
 */
export const ADMIN_CACHE_MS = 60_000;

/**
 * A button's callback_data: 1-64 bytes. https://core.telegram.org/bots/api#inlinekeyboardbutton
 */
export const MAX_CALLBACK_DATA_BYTES = 64;

/**
 * An alert's text in answerCallbackQuery: 0-200 characters.
 * https://core.telegram.org/bots/api#answercallbackquery
 */
export const MAX_ALERT_LENGTH = 200;

/**
 * Ours: a press is answered by this long after it came even while its handler still works, so
 * the client's spinner stops (Telegram drops an answer it waited too long for; it documents no
 * number).
 */
export const CALLBACK_ANSWER_MS = 8_000;

/**
 * The reaction a seller's line in a hand-over gets once it reached the customer: one of the
 * emoji Telegram lets a bot set (ReactionTypeEmoji), where no ✅ is.
 * https://core.telegram.org/bots/api#reactiontypeemoji
 */
export const DELIVERED_REACTION = "👌";

/**
 * How long a person's ephemeral message may be answered by an ephemeral reply: Telegram's 15
 * seconds (ReplyParameters.ephemeral_message_id), less a margin for the clocks and the call.
 */
export const EPHEMERAL_REPLY_WINDOW_MS = 13_000;
