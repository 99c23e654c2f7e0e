/**
 * Slack's numbers, each with the page that states it. Where Slack documents none, the
 * number is ours and says why.
 */

/**
 * Longest text of one message we post. Slack truncates `text` beyond 40,000 characters and
 * asks to keep it under 4,000 "for best results" (long texts are collapsed behind "Show
 * more"); a posted answer shows as a markdown block, and a streamed one is Markdown that Slack
 * turns into markdown blocks: they hold at most 12,000 characters in all. 3,900 keeps the
 * mrkdwn text and its Markdown twin (longer: a backslash before punctuation, `**` where
 * mrkdwn has `*`) well below every limit.
 * https://docs.slack.dev/reference/methods/chat.postMessage#truncating
 * https://docs.slack.dev/reference/block-kit/blocks/markdown-block
 */
export const MAX_MESSAGE_CHARS = 3_900;

/**
 * Most characters in all the markdown blocks of one message (a posted answer's text).
 * https://docs.slack.dev/reference/block-kit/blocks/markdown-block
 */
export const MAX_MARKDOWN_BLOCK_CHARS = 12_000;

/** Largest `markdown_text` of one chat.startStream/appendStream/stopStream call. https://docs.slack.dev/reference/methods/chat.appendStream */
export const MAX_STREAM_MARKDOWN_CHARS = 12_000;

/**
 * Slack counts a method's calls per workspace in windows of a minute: "Your app's requests to
 * the Web API are evaluated per method, per workspace. Rate limit windows are per minute." A
 * tier's figure is what one such minute allows, and Slack takes bursts within it (see the
 * bursts below). https://docs.slack.dev/apis/web-api/rate-limits#tiers
 */
export const RATE_WINDOW_MS = 60_000;

/**
 * chat.update is a Tier 3 method: "50+ per minute" per workspace, for every message the app
 * edits there. https://docs.slack.dev/reference/methods/chat.update (Facts: rate limits)
 * https://docs.slack.dev/apis/web-api/rate-limits#tiers
 */
export const CHAT_UPDATE_PER_MINUTE = 50;

/**
 * chat.update calls that may go at once after a quiet spell. Tier 3: "Sporadic bursts are
 * welcome", with no figure. Ours: 3, a sporadic burst. Every call of a burst is taken off the
 * minute's even pace (workspace.ts), and Tier 3's minute is small: a burst of one edit for
 * each of ten answers would leave 35 edits a minute for the workspace instead of 42.
 * https://docs.slack.dev/apis/web-api/rate-limits#tiers
 */
export const CHAT_UPDATE_BURST = 3;

/**
 * chat.appendStream is a Tier 4 method: "100+ per minute" per workspace.
 * https://docs.slack.dev/reference/methods/chat.appendStream (Facts: rate limits)
 */
export const APPEND_STREAM_PER_MINUTE = 100;

/**
 * chat.appendStream calls that may go at once after a quiet spell. Tier 4: "Enjoy a large
 * request quota for Tier 4 methods, including generous burst behavior", with no figure.
 * Ours: 30, three appends for each of ten answers streaming at once, so each moves every
 * second from its start until the others' turns come round; the budget spends the rest of the
 * minute evenly (workspace.ts), an append a second, which keeps an answer alone at its edit
 * interval.
 * https://docs.slack.dev/apis/web-api/rate-limits#tiers
 */
export const APPEND_STREAM_BURST = 30;

/**
 * Most of an answer's last line shown late because an opener in it (`[`, `` ` ``, `*`, `_`,
 * `~`, `<`) has not closed yet: held back, a half-written link or `**bold` does not flash as
 * raw markup. Ours: links and emphasis mostly close within a few dozen characters, while a
 * paragraph of a language model's answer is one line of hundreds, so an opener that never
 * closes must not freeze it to its end. Past this the opener shows as written (a stream
 * escapes it, since what it sent stays) and the text goes on.
 */
export const MAX_HELD_CHARS = 80;

/**
 * Slack ends a native stream about 5 minutes after it starts, and after long gaps between
 * appends ("message_not_in_streaming_state"); we leave it a minute earlier and go on with
 * chat.update. Undocumented, reported by others: https://github.com/vercel/chat/issues/607
 */
export const STREAM_MAX_AGE_MS = 4 * 60_000;

/**
 * Every Events API delivery must be answered within 3 seconds, or Slack retries it (up to 3
 * times, with `X-Slack-Retry-Num`). https://docs.slack.dev/apis/events-api/#responding
 */
export const ACK_DEADLINE_MS = 3_000;

/**
 * The app's loading status under a thread ("is thinking…") goes when the app replies there,
 * or two minutes after it was set without a reply; a silence that long sets it again after
 * this. https://docs.slack.dev/reference/methods/assistant.threads.setStatus (`status`)
 */
export const STATUS_REFRESH_MS = 90_000;

/**
 * How long an answer's first reply waits for its loading status call to come back, so the
 * status lands before the reply that takes it down. Ours, not Slack's: a status slower than
 * this is taken down by the bot once it lands.
 */
export const STATUS_WAIT_MS = 300;

/** Slack shows at most 4 suggested prompts. https://docs.slack.dev/reference/methods/assistant.threads.setSuggestedPrompts */
export const MAX_SUGGESTED_PROMPTS = 4;

/** Our own bound on one Web API call, so a hung request cannot hold an answer. */
export const API_TIMEOUT_MS = 10_000;

/** How long a user's admin flag (users.info) is trusted before it is asked again. Ours. */
export const ADMIN_CACHE_MS = 10 * 60_000;

/**
 * A request whose `X-Slack-Request-Timestamp` is more than five minutes from our clock, in
 * either direction, may be a replay: Slack asks to ignore it. Bolt refuses only the old ones.
 * https://docs.slack.dev/authentication/verifying-requests-from-slack#validating-a-request
 */
export const REQUEST_MAX_SKEW_S = 5 * 60;

/**
 * Messages asked for per conversations.replies page: Slack recommends at most 200 a page for
 * its cursor-paginated methods. An app not approved for the Slack Marketplace gets at most 15
 * a page, and one call a minute (Tier 1, since May 2025); others Tier 3.
 * https://docs.slack.dev/apis/web-api/pagination#cursors
 * https://docs.slack.dev/changelog/2025-05-terms-rate-limit-update-and-faq
 */
export const REPLIES_PAGE_SIZE = 200;

/**
 * The reaction a seller's line in a hand-over gets once it reached the customer (reactions.add
 * takes an emoji's name). https://docs.slack.dev/reference/methods/reactions.add
 */
export const DELIVERED_REACTION = "white_check_mark";
