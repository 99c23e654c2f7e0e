import type { Definition, Nodes, Parents, Root } from "mdast";
import { withinBounds } from "../../src/markdown/bounds.ts";
import { definitionsOf } from "../../src/markdown/walk.ts";
import type { MessageSource } from "../../src/ports.ts";
import { escapeMarkdown, isSafeLinkTarget, linkTextKind, slackTokenStarts } from "./escape.ts";
import { MAX_HELD_CHARS } from "./limits.ts";
import { linkForm, parseAnswer, plainText } from "./markdown.ts";

/**
 * One native stream's Markdown as its answer grows. `chat.startStream`/`appendStream` take
 * Markdown, which Slack renders itself, and only ever append: so the stream gets the
 * chatbot's own Markdown with the same safety the mrkdwn renderer gives (backslashes before
 * `<`, `>` and `&` in text, disguised and unsafe links turned into text), as small edits of
 * the source, and each text extends the one before. The end of the last line is held back
 * from an opener that has not closed yet, but never more than MAX_HELD_CHARS: an opener held
 * that long is escaped, shown as the literal character it is, and stays so while the stream
 * lasts, even if a closer comes later (what was sent cannot change); at its end the engine
 * replaces such a text (see endsAsWritten).
 */
export class MarkdownStream {
  /** Source offsets of the openers shown as literal text, ascending. */
  readonly #literal: number[] = [];

  /**
   * Whether the final text shows `source` as its Markdown reads: false when an opener the
   * stream showed as written closed later, so that the chatbot's construct (a code span, a
   * link) is missing from it. Such a stream's text is replaced at its end.
   */
  endsAsWritten(source: MessageSource): boolean {
    const written = source.markdown;
    if (!withinBounds(written)) return true;
    const { markdown, escapes } = this.#withLiterals(written);
    return escapes.length === 0 || sameTree(parseAnswer(markdown), parseAnswer(written));
  }

  /** The safe Markdown to show for `source` now; `final`: all of it, with its note. */
  text(source: MessageSource, final: boolean): string {
    // Past the bounds we parse (see bounds.ts) the text shows as written: nothing is held back.
    let markdown = source.markdown;
    if (withinBounds(markdown)) {
      markdown = final ? this.#withLiterals(markdown).markdown : this.#settled(markdown);
    }
    const body = safeMarkdown(markdown);
    if (!final || source.note === undefined) return body;
    return `${body}${source.markdown ? "\n\n" : ""}${escapeMarkdown(source.note)}`;
  }

  /** The source up to its held end, with the openers held too long escaped. */
  #settled(source: string): string {
    for (;;) {
      const { markdown, escapes } = this.#withLiterals(source);
      const held = heldOpeners(markdown, 0);
      const stale = held.filter((h) => markdown.length - h.start > MAX_HELD_CHARS);
      if (stale.length === 0) return markdown.slice(0, held[0]?.start);
      // Held too long: from now on these openers are literal characters. All of them at once,
      // not one parse each: a line of a thousand openers would take a thousand parses.
      let before = 0;
      for (const { opener } of stale) {
        while (before < escapes.length && (escapes[before] ?? 0) < opener) before++;
        this.#literal.push(opener - before);
      }
      this.#literal.sort((a, b) => a - b);
    }
  }

  /** The source with a backslash before each opener shown as literal, and where those went. */
  #withLiterals(source: string): { markdown: string; escapes: number[] } {
    let markdown = "";
    let at = 0;
    const escapes: number[] = [];
    for (const offset of this.#literal) {
      if (offset >= source.length) break;
      // A source that changed under the stream (cut by a split) keeps what still applies.
      if (!OPENERS.includes(source[offset] ?? "")) continue;
      markdown += source.slice(at, offset);
      escapes.push(markdown.length);
      markdown += "\\";
      at = offset;
    }
    return { markdown: markdown + source.slice(at), escapes };
  }
}

/**
 * What a text must hold for safeMarkdown to change it: a character to escape, or a link
 * (`[…](…)`, `<…>`, or a literal www., http(s):// or e-mail one).
 */
const MAY_NEED_EDITS = /[<>&[@]|:\/\/|www\./i;

/** The whole Markdown made safe for Slack. */
export function safeMarkdown(markdown: string): string {
  // Markdown past the bounds we parse (see bounds.ts) is shown as written, as our other
  // renderers show it: Slack is not asked to render what we would not.
  if (!withinBounds(markdown)) return escapeMarkdown(markdown);
  // Most prose has nothing to make safe: it is sent as written, with no parse.
  if (!MAY_NEED_EDITS.test(markdown)) return markdown;
  const tree = parseAnswer(markdown);
  const edits: Edit[] = [];
  collect(tree, { source: markdown, definitions: definitionsOf(tree), edits });
  return apply(markdown, edits);
}

/**
 * A growing answer without the unsettled end of its last line, for a message that is posted
 * and then edited: the first opener of the last MAX_HELD_CHARS characters that does not close
 * yet and what follows it (an older one shows as written; the next edit replaces it all).
 */
export function settledMarkdown(markdown: string): string {
  return markdown.slice(0, heldOpeners(markdown, markdown.length - MAX_HELD_CHARS)[0]?.start);
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

interface Context {
  source: string;
  definitions: Map<string, Definition>;
  edits: Edit[];
}

function collect(node: Nodes, ctx: Context): void {
  switch (node.type) {
    case "text":
      escapeText(node, ctx);
      return;
    case "inlineCode":
    case "code":
      breakTokens(node, ctx);
      return;
    case "definition":
      return; // not shown
    case "link":
    case "image":
    case "linkReference":
    case "imageReference":
      if (linkIsSafe(node, ctx)) break;
      return;
    default:
      break;
  }
  if ("children" in node) for (const child of (node as Parents).children) collect(child, ctx);
}

/**
 * Backslash before every `<`, `>` and `&` of the text that is not escaped already. A text
 * spanning lines inside a quote or a list also spans the markers and indentation that start
 * its later lines (`> `): those are markup, and stay.
 */
function escapeText(node: Nodes, ctx: Context): void {
  const start = node.position?.start.offset ?? 0;
  const end = node.position?.end.offset ?? start;
  let lineStart = false;
  for (let i = start; i < end; i++) {
    const char = ctx.source[i];
    if (char === "\n") {
      lineStart = true;
      continue;
    }
    if (lineStart && (char === " " || char === "\t" || char === ">")) continue;
    lineStart = false;
    if ((char === "<" || char === ">" || char === "&") && !escaped(ctx.source, i)) {
      ctx.edits.push({ start: i, end: i, text: "\\" });
    }
  }
}

/**
 * A zero-width space after the `<` of each token of Slack's in code (see breakSlackTokens),
 * where no backslash is read. In a fenced code block still growing, a token that completes
 * later breaks the text the stream showed: the engine then replaces the message's text.
 */
function breakTokens(node: Nodes, ctx: Context): void {
  const start = node.position?.start.offset ?? 0;
  const end = node.position?.end.offset ?? start;
  for (const at of slackTokenStarts(ctx.source.slice(start, end))) {
    ctx.edits.push({ start: start + at + 1, end: start + at + 1, text: "\u200b" });
  }
}

/** Whether two trees hold the same Markdown, wherever in their sources it stands. */
function sameTree(a: Root, b: Root): boolean {
  const withoutPlaces = (key: string, value: unknown) => (key === "position" ? undefined : value);
  return JSON.stringify(a, withoutPlaces) === JSON.stringify(b, withoutPlaces);
}

function escaped(source: string, index: number): boolean {
  let backslashes = 0;
  for (let i = index - 1; i >= 0 && source[i] === "\\"; i--) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * True when the link may stay as written (its children still get escaped); otherwise it is
 * replaced by text: a disguised link shows its text with the real target beside it.
 */
function linkIsSafe(
  node: Extract<Nodes, { type: "link" | "image" | "linkReference" | "imageReference" }>,
  ctx: Context,
): boolean {
  const form = linkForm(node, ctx.source);
  if (form === "bare") return true; // a bare URL shows what it opens
  const url =
    node.type === "link" || node.type === "image"
      ? node.url
      : ctx.definitions.get(node.identifier)?.url;
  if (url === undefined) return true;
  const text =
    (node.type === "image" || node.type === "imageReference" ? node.alt : plainText(node)) ?? "";
  const words = text.replace(/\s+/g, " ").trim();
  const start = node.position?.start.offset ?? 0;
  const end = node.position?.end.offset ?? start;
  const replace = (replacement: string) => {
    ctx.edits.push({ start, end, text: replacement });
    return false;
  };
  if (!isSafeLinkTarget(url)) {
    if (form === "angle") return replace(escapeMarkdown(ctx.source.slice(start, end)));
    const kind = linkTextKind(words, url);
    return replace(
      kind === "same" ? escapeMarkdown(url) : `${escapeMarkdown(words)} (${escapeMarkdown(url)})`,
    );
  }
  // `<url>` could read as Slack's own link syntax, and an image shows as a link to it anyway:
  // both are written out as a plain Markdown link.
  if (form === "angle") return replace(markdownLink(url, url));
  if (node.type === "image" || node.type === "imageReference") {
    return replace(markdownLink(words || url, url));
  }
  if (linkTextKind(words, url) === "other-url") {
    return replace(`${escapeMarkdown(words)} (${markdownLink(url, url)})`);
  }
  return true;
}

function markdownLink(text: string, url: string): string {
  return `[${escapeMarkdown(text)}](${url.replace(/[ ()<>]/g, encodeURIComponent)})`;
}

function apply(source: string, edits: Edit[]): string {
  edits.sort((a, b) => a.start - b.start || a.end - b.end);
  let out = "";
  let at = 0;
  for (const edit of edits) {
    if (edit.start < at) continue; // inside a range already replaced
    out += source.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + source.slice(at);
}

const OPENERS = "`[<*_~";

/**
 * The openers of the unsettled end of the last line, from `from` on (none when the text ends
 * a line): each `` ` ``, `[`, `<` or emphasis marker there that is not part of a finished
 * construct (`start` takes in a `!` before a `[`: an image), and a last `!`, which may start
 * an image. The first is where the unsettled end starts: holding it back keeps a half-written
 * `**bold` or link from flashing as raw markup.
 */
function heldOpeners(markdown: string, from: number): { start: number; opener: number }[] {
  if (markdown === "" || markdown.endsWith("\n")) return [];
  const lineStart = Math.max(markdown.lastIndexOf("\n") + 1, from);
  if (!/[`[<!*_~]/.test(markdown.slice(lineStart))) return [];
  // Only constructs that reach into the line can settle an opener there.
  const settled = settledRanges(parseAnswer(markdown)).filter(([, end]) => end > lineStart);
  const held: { start: number; opener: number }[] = [];
  for (let i = lineStart; i < markdown.length; i++) {
    if (!mayOpen(markdown, i) || escaped(markdown, i)) continue;
    if (settled.some(([start, end]) => i >= start && i < end)) continue;
    const image = markdown[i] === "[" && markdown[i - 1] === "!" && !escaped(markdown, i - 1);
    held.push({ start: image ? i - 1 : i, opener: i });
  }
  const last = markdown.length - 1;
  if (markdown.endsWith("!") && !escaped(markdown, last)) held.push({ start: last, opener: last });
  return held;
}

/** Whether the character at `i` can start a construct whose end is still to come. */
function mayOpen(markdown: string, i: number): boolean {
  const char = markdown[i];
  if (char === "`" || char === "[") return true;
  // `<` starts a link only as `<url>` or `<address>`, which hold no space, `<` or `>`: once
  // one of those follows, the `<` is text for good ("if a < b", "<!channel>").
  if (char === "<") return !/[\s<>]/.test(markdown.slice(i + 1));
  if (char !== "*" && char !== "_" && char !== "~") return false;
  const next = markdown[i + 1];
  if (next !== undefined && /\s/.test(next)) return false; // "5 * 3": not a marker
  // An underscore inside a word (snake_case) never opens emphasis.
  return !(char === "_" && /[\p{L}\p{N}]/u.test(markdown[i - 1] ?? ""));
}

/** Source ranges of constructs already complete: their openers are closed. */
function settledRanges(tree: Root): [number, number][] {
  const ranges: [number, number][] = [];
  const visit = (node: Nodes) => {
    const { type } = node;
    if (
      type === "link" ||
      type === "image" ||
      type === "linkReference" ||
      type === "imageReference" ||
      type === "inlineCode" ||
      type === "code" ||
      type === "strong" ||
      type === "emphasis" ||
      type === "delete"
    ) {
      const start = node.position?.start.offset;
      const end = node.position?.end.offset;
      if (start !== undefined && end !== undefined) ranges.push([start, end]);
      return;
    }
    if ("children" in node) for (const child of (node as Parents).children) visit(child);
  };
  visit(tree);
  return ranges;
}
