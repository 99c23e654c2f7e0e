/**
 * An answer that hides things: bidi overrides and isolates that reorder what a reader sees,
 * zero-width characters that split or join words unseen, a terminal escape; beside text that
 * needs its invisible joiners (emoji ZWJ sequences, Persian's ZWNJ) and a code block where
 * a hidden character is a bug the reader should see.
 */
export const INVISIBLE_ANSWER = [
  "Pay to DE89 3704 0044 0532 0130 00\u202e99\u202c only.",
  "Family 👨‍👩‍👧 and 🏳️‍🌈, in Persian می‌خواهم, in Arabic السعر\u200f: 100 $.",
  "Zero\u200bwidth\u2060joined\ufeff text, \u2067isolated\u2069, \u200fmarked\u200e, \u001b[2Jgone, `in\u200bline`.",
  "",
  "```js",
  'const role = "user\u202e \u2066// admin\u2069";',
  "```",
  "",
  "After the code\u200b.",
].join("\n");

/** What a person must read, the invisible characters gone or shown in code as escapes. */
export const INVISIBLE_ANSWER_SHOWN = [
  "Pay to DE89 3704 0044 0532 0130 0099 only.",
  "Family 👨‍👩‍👧 and 🏳️‍🌈, in Persian می‌خواهم, in Arabic السعر\u200f: 100 $.",
  "Zerowidthjoined text, isolated, \u200fmarked\u200e, [2Jgone, `inline`.",
  "",
  "```js",
  'const role = "user\\u202E \\u2066// admin\\u2069";',
  "```",
  "",
  "After the code.",
].join("\n");

/**
 * Characters that must not reach a person: bidi overrides and isolates, zero-width ones, C0
 * controls. The direction marks (U+061C, U+200E, U+200F) may: they reorder nothing.
 */
export const HIDDEN_CHARACTER =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]/u;

/** What must survive: the joiners of emoji sequences and Persian words, Arabic's marks. */
export const KEPT_SEQUENCES = ["👨‍👩‍👧", "🏳️‍🌈", "می‌خواهم", "السعر\u200f: 100 $"];
