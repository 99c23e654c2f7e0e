/**
 * Text as Telegram's HTML parse mode reads it: `&`, `<` and `>` escaped wherever they are
 * not markup, and the visible text recovered from HTML the way Telegram counts it.
 * https://core.telegram.org/bots/api#html-style
 */

const WORD_JOINER = "\u2060";

/** Escapes text for an HTML element's content. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Escapes text for a double-quoted attribute value (an `href`). */
export function escapeAttribute(text: string): string {
  return escapeHtml(text)
    .replace(/"/g, "&quot;")
    .replace(/[\r\n]/g, "");
}

/**
 * Telegram turns `@username` in a message into a mention that notifies that person in a
 * group. Text the bot relays (the chatbot's answer, a person's words) must not ping anyone,
 * so a word joiner goes after an `@` that starts a word: the text reads the same, but is no
 * mention. An `@` inside a word (an e-mail address) is left alone.
 */
export function defuseMentions(text: string): string {
  // The pattern has no fixed start to search for: without an `@` it would still try it at
  // every position of the text, which is re-rendered on every edit.
  if (!text.includes("@")) return text;
  return text.replace(/(^|[^\w@])@(?=\w{4})/g, `$1@${WORD_JOINER}`);
}

/** Plain text shown safely: mentions defused, then escaped. */
export function escapeText(text: string): string {
  return escapeHtml(defuseMentions(text));
}

const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

/** The text a person sees for HTML this bot produced: tags dropped, entities decoded. */
export function visibleText(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] !== "#") return NAMED[name.toLowerCase()] ?? whole;
      const code =
        name[1] === "x" || name[1] === "X"
          ? Number.parseInt(name.slice(2), 16)
          : Number(name.slice(1));
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    });
}

/**
 * Length as Telegram counts it against the 4,096 limit: the visible text in UTF-16 code
 * units (how Telegram measures entity offsets; an emoji outside the BMP counts as two).
 */
export function measureHtml(html: string): number {
  return visibleText(html).length;
}
