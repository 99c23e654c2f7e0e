import { labelDisguisesTarget } from "../../src/markdown/link-label.ts";

/**
 * Text to Slack and back. Slack's mrkdwn gives `&`, `<` and `>` a meaning (`<@U1>` pings a
 * person, `<!channel>` a whole channel, `<url|text>` hides a link behind any words), so text
 * that is not ours must have all three escaped, code included.
 * https://docs.slack.dev/messaging/formatting-message-text#escaping
 */

/** Escapes `&`, `<` and `>` for mrkdwn: whatever the text says, it shows as written. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
}

/**
 * Characters that mean something in CommonMark (and Slack's Markdown) outside code, plus `:`
 * and `@`, whose escapes keep GFM from turning "https://…", "www.…" or "a@b.c" into links.
 */
const MARKDOWN_PUNCTUATION = /[\\`*_{}[\]()<>#+\-.!|~&:@]/g;

/** Backslash-escapes every Markdown punctuation character: the text shows as written. */
export function escapeMarkdown(text: string): string {
  return text.replace(MARKDOWN_PUNCTUATION, "\\$&");
}

/** MARKDOWN_PUNCTUATION and `=`, which under a line of text would make it a heading. */
const BLOCK_PUNCTUATION = /[\\`*_{}[\]()<>#+\-.!|~&:@=]/g;
const ENTITIES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

/**
 * Text for a markdown block, shown as written: `&`, `<` and `>` as the entities mrkdwn takes
 * (no `<` is left to start a token of Slack's, were it read there), every other Markdown
 * punctuation character with a backslash.
 */
export function escapeMarkdownBlock(text: string): string {
  return text.replace(BLOCK_PUNCTUATION, (c) => ENTITIES[c] ?? `\\${c}`);
}

/**
 * The `<` that starts a token of Slack's in code: `<@U1>`, `<!channel>`, `<#C1|name>` or a link
 * `<url|text>`. In Markdown's code no escape is read, so a zero-width space after it keeps
 * Slack from reading one; HTML and generics (`<div>`, `<T>`, `<!-- … -->`) are not tokens and
 * stay as written.
 */
const TOKEN_START = /<(?=[@!#][^<>\s|]*(?:>|\|[^<>]*>)|[a-z][a-z0-9+.-]*:[^<>\s|]*\|[^<>]*>)/gi;

/** Code with every token of Slack's in it broken (see TOKEN_START): it shows the same. */
export function breakSlackTokens(code: string): string {
  return code.replace(TOKEN_START, "<\u200b");
}

/** Where the `<` of each token of Slack's in `code` is (see TOKEN_START). */
export function slackTokenStarts(code: string): number[] {
  return [...code.matchAll(TOKEN_START)].map((match) => match.index);
}

/**
 * A URL as it may stand inside `<…|…>`: `|` and `>` would end it early, `&` and `<` are
 * escaped as everywhere else. Slack follows the percent-encoded form to the same place.
 */
export function encodeLinkTarget(url: string): string {
  return url.replace(/[|>< ]/g, (c) => encodeURIComponent(c)).replace(/&/g, "&amp;");
}

const SAFE_SCHEMES = /^(https?:\/\/|mailto:)/i;

/** Only web and mail links are made clickable; anything else (javascript:, file:) shows as text. */
export function isSafeLinkTarget(url: string): boolean {
  return SAFE_SCHEMES.test(url) && !/[\s<>|]/.test(url);
}

const URL_LIKE =
  /^(?:[a-z][a-z0-9+.-]*:\/\/|www\.)\S+$|^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?:[/?#]\S*)?$|^[^\s@]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+$/i;

/**
 * What a link's visible text says about its target: nothing ("words": "the docs"), the target
 * itself ("same"), or another address ("other-url": "[https://bank.example](https://evil.example)").
 * Text of the last kind is shown with the real target beside it, never as the link's face.
 */
export function linkTextKind(text: string, url: string): "words" | "same" | "other-url" {
  const shown = text.trim();
  if (shown === "" || comparableUrl(shown) === comparableUrl(url)) return "same";
  return URL_LIKE.test(shown) || labelDisguisesTarget(shown, url) ? "other-url" : "words";
}

function comparableUrl(url: string): string {
  return url
    .trim()
    .toLowerCase()
    .replace(/^mailto:/, "")
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, "")
    .replace(/^www\./, "")
    .replace(/\/+$/, "");
}

/**
 * A person's message as Slack delivers it, as plain text for the chatbot: entities decoded,
 * `<@U1>` as "@U1" (as "@Ana" when `names` knows U1), `<#C1|general>` as "#general",
 * `<url|text>` as "text (url)", and the bot's own mention removed.
 */
export function slackTextToPlain(
  text: string,
  botUserId?: string,
  names?: ReadonlyMap<string, string>,
): string {
  const plain = text.replace(/<([^<>]*)>/g, (_token, inner: string) => {
    const [target = "", label] = splitToken(inner);
    if (target.startsWith("@")) {
      const id = target.slice(1);
      return id === botUserId ? "" : `@${label ?? names?.get(id) ?? id}`;
    }
    if (target.startsWith("#")) return `#${label ?? target.slice(1)}`;
    if (target.startsWith("!")) {
      const name = target.slice(1).split("^")[0] ?? "";
      return label ?? `@${name}`;
    }
    const url = target.replace(/^mailto:/, "");
    return label && label !== url ? `${label} (${url})` : url;
  });
  return decodeEntities(plain)
    .replace(/[ \t]{2,}/g, " ")
    .trim();
}

function splitToken(inner: string): [string, string | undefined] {
  const bar = inner.indexOf("|");
  return bar === -1 ? [inner, undefined] : [inner.slice(0, bar), inner.slice(bar + 1)];
}

function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt);/g, (_m, name: string) =>
    name === "amp" ? "&" : name === "lt" ? "<" : ">",
  );
}

/** The user ids a message's text mentions (`<@U1>`, `<@U1|name>`), each once. */
export function mentionedUsers(text: string): string[] {
  return [
    ...new Set([...text.matchAll(/<@([A-Z0-9]+)(?:\|[^<>]*)?>/g)].map((match) => match[1] ?? "")),
  ];
}

/** Whether a message's text mentions this user (`<@U1>` or `<@U1|name>`). */
export function mentions(text: string, userId: string): boolean {
  return text.includes(`<@${userId}>`) || text.includes(`<@${userId}|`);
}

/** Whether the text starts with a mention of this user: the person addressed the bot itself. */
export function startsWithMention(text: string, userId: string): boolean {
  const trimmed = text.trimStart();
  return trimmed.startsWith(`<@${userId}>`) || trimmed.startsWith(`<@${userId}|`);
}
