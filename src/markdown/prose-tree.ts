import type { Paragraph, Root } from "mdast";

type Point = NonNullable<Root["position"]>["start"];

// A character that may start or take part in Markdown anywhere in a line (escapes, code,
// emphasis, strikethrough, links and images, autolinks and HTML, character references,
// tables), or that micromark turns into something else (tab, CR, NUL).
const INLINE_MARKUP = /[\\`*_~[\]<>&|\t\r\0]|@|:\/\/|www\./i;
// What starts a block at the start of a line: a heading, quote, list item, rule, setext
// underline, or indented code.
const BLOCK_START = /^(?:[#>+=-]| |\d{1,9}[.)])/;
const BLANK = /^[ \t]*$/;

interface OpenParagraph {
  start: Point;
  lines: string[];
  /** Where its last line ends, and where its text does (trailing spaces left out). */
  end: Point;
  textEnd: Point;
}

/**
 * The syntax tree of prose: text with no Markdown in it at all (paragraphs of words, split by
 * blank lines, no line indented nor ending in a space), exactly as micromark would build it,
 * without parsing. Undefined for anything else, which is parsed. Most of what a language
 * model writes is such prose, and a parse costs far more than this look.
 */
export function proseTree(markdown: string): Root | undefined {
  if (INLINE_MARKUP.test(markdown)) return undefined;
  return paragraphs(markdown, true);
}

/**
 * `markdown` as literal text, not read as Markdown: its paragraphs (split by blank lines) of
 * text as written, markup and all. What text past the parser's bounds shows as (see
 * bounds.ts): each channel escapes text, so it shows exactly what the chatbot wrote.
 */
export function literalTree(markdown: string): Root {
  return paragraphs(markdown, false) as Root;
}

/**
 * The paragraphs of `markdown`, split by blank lines; as `prose`, undefined when a line would
 * be read as more than a paragraph's text.
 */
function paragraphs(markdown: string, prose: boolean): Root | undefined {
  const children: Paragraph[] = [];
  let open: OpenParagraph | undefined;
  let lineStart = 0;
  let line = 1;
  for (;;) {
    const newline = markdown.indexOf("\n", lineStart);
    const lineEnd = newline === -1 ? markdown.length : newline;
    const text = markdown.slice(lineStart, lineEnd);
    if (prose ? text === "" : BLANK.test(text)) {
      if (open) children.push(paragraphOf(open));
      open = undefined;
    } else {
      // Spaces before a line break make a hard break; at the very end they are trimmed.
      const more = BLOCK_START.test(text) || (newline !== -1 && text.endsWith(" "));
      if (prose && more) return undefined;
      open ??= {
        start: point(line, lineStart, lineStart),
        lines: [],
        end: NOWHERE,
        textEnd: NOWHERE,
      };
      open.lines.push(text);
      open.end = point(line, lineStart, lineEnd);
      open.textEnd = point(line, lineStart, lineStart + trimSpaces(text).length);
    }
    if (newline === -1) break;
    lineStart = newline + 1;
    line++;
  }
  if (open) children.push(paragraphOf(open));
  return {
    type: "root",
    children,
    position: { start: point(1, 0, 0), end: point(line, lineStart, markdown.length) },
  };
}

const NOWHERE: Point = { line: 1, column: 1, offset: 0 };

function paragraphOf({ start, lines, end, textEnd }: OpenParagraph): Paragraph {
  const value = trimSpaces(lines.join("\n"));
  return {
    type: "paragraph",
    children: [{ type: "text", value, position: { start, end: textEnd } }],
    position: { start, end },
  };
}

/** Trailing spaces off (micromark trims spaces only, not other white space). */
function trimSpaces(text: string): string {
  return text.replace(/ +$/, "");
}

function point(line: number, lineStart: number, offset: number): Point {
  return { line, column: offset - lineStart + 1, offset };
}
