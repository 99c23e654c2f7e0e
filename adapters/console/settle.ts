import { parseMarkdown } from "../../src/markdown/parse.ts";
import { lastLeaf } from "../../src/markdown/walk.ts";

// A last line with nothing but block markup so far: a list marker, a fence, a rule or an
// underline in the making, a table row's first pipes.
const MARKUP_ONLY = /^[ \t>*+\-=_`~#|:.)[\]\d]+$/;
// A table row (GFM tables as chatbots write them start each row with a pipe).
const TABLE_ROW = /^ {0,3}\|/;
// An emphasis, strikethrough or code span opener: a delimiter run that starts a word.
const OPENER = /(^|[\s([{"'“‘])[*_~`]{1,3}(?=[^\s*_~`]|$)/u;
// A link, image, autolink, escape or character reference still being written.
const UNFINISHED = /!?\[[^\]\n]*(?:\](?:\([^)\n]*)?)?$|!$|<[^\s<>]*$|\\$|&#?\w*$/;

/**
 * The part of a streaming answer whose terminal rendering more text will not change, so
 * that what is printed only grows: the text from an unclosed `**`, `` ` `` or `[` on, a
 * last line of markup alone, and a table until it is complete are held back. The answer's
 * final text is rendered whole, so nothing held back here is lost.
 */
export function settledPrefix(markdown: string): string {
  let end = markdown.length;
  const lastLine = markdown.lastIndexOf("\n") + 1;
  if (MARKUP_ONLY.test(markdown.slice(lastLine))) end = lastLine;
  // A closer in the making (`**bold*`) would pair as something else until it is whole.
  else end = lastLine + (/[*_~`]*$/.exec(markdown.slice(lastLine))?.index ?? 0);
  end = tableStart(markdown, end);
  return markdown.slice(0, inlineEnd(markdown.slice(0, end)));
}

/** Where a table at the end of `markdown.slice(0, end)` starts: its columns may still widen. */
function tableStart(markdown: string, end: number): number {
  const lines = markdown.slice(0, end).split("\n");
  let start = end;
  let lineEnd = end;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] ?? "";
    const lineStart = lineEnd - line.length;
    lineEnd = lineStart - 1;
    // The line after the last newline, not begun yet.
    if (i === lines.length - 1 && line === "") continue;
    if (!TABLE_ROW.test(line)) break;
    start = lineStart;
  }
  return start;
}

/** Where the last line's unfinished inline markup starts, or the end; code is left whole. */
function inlineEnd(markdown: string): number {
  const last = lastLeaf(parseMarkdown(markdown));
  if (last?.type === "code") return markdown.length;
  const lineStart = markdown.lastIndexOf("\n") + 1;
  const unfinished = UNFINISHED.exec(markdown.slice(lineStart));
  let end = unfinished ? lineStart + unfinished.index : markdown.length;
  // An opener left as text is one whose closer has not come yet (on this line: an opener on
  // an earlier line that closes later costs a redraw, not a paragraph held back).
  if (last?.type === "text") {
    const from = Math.max(lineStart, last.position?.start.offset ?? 0);
    const opener = OPENER.exec(markdown.slice(from, last.position?.end.offset));
    if (opener) end = Math.min(end, from + opener.index + (opener[1]?.length ?? 0));
  }
  return end;
}
