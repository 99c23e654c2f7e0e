/**
 * Bounds on the work an answer's Markdown may ask of the parser, checked in one pass before
 * it is parsed. micromark's work grows with the square of two things a hostile or broken
 * answer can make as large as it likes: the containers a line opens (every line re-checks each
 * container around it; `"- "` × 5,000 nests a list 5,000 deep, whose tree then overflows the
 * stack of GFM's autolink pass in mdast-util-find-and-replace) and the delimiters of one
 * paragraph that may close something (each looks back through the paragraph for its opener;
 * `"*_"` × 14,500 parsed for half a minute). Text past a bound is shown as written, as literal
 * text (see literalTree in prose-tree.ts): a single pass, however it nests.
 */

/**
 * Most quotes and list items one line may stand in. Real answers nest a few levels; 32 parse
 * in well under a millisecond.
 */
export const MAX_NESTING = 32;

/**
 * Most work the closers of delimiters may cost: the sum, over the stretches between blank
 * lines (no paragraph spans one), of the square of the closers in each, since each closer
 * may look back over all the earlier ones. 100,000 is about 316 closers in one paragraph,
 * 10 to 20 ms of parsing at worst on this project's 2-core machines (a growing answer is
 * parsed for each of its texts); a paragraph of a real answer has a few dozen.
 */
export const MAX_CLOSER_WORK = 100_000;

// Ends of lines, and lines that are blank (no paragraph goes on past one), as CommonMark has
// them: https://spec.commonmark.org/0.31.2/#line-ending
const LINE_ENDING = /\r\n|\r|\n/;
const BLANK = /^[ \t]*$/;
// A fence that opens fenced code at the start of a line, outside any container: what follows
// is code up to its closing fence, never parsed as Markdown. A backtick fence's info has no
// backtick (https://spec.commonmark.org/0.31.2/#fenced-code-blocks).
const TOP_FENCE = /^(?:(`{3,})[^`]*|(~{3,}).*)$/;

/** Whether `markdown` is within the bounds above, so parsing it is cheap. */
export function withinBounds(markdown: string): boolean {
  let work = 0;
  let closers = 0;
  /** The fence that closes the fenced code the scan is in, if it is in one. */
  let fence: string | undefined;
  // Inside an HTML block a fence is text: after a line that may start one, every line counts.
  let fencesOpen = true;
  for (const line of markdown.split(LINE_ENDING)) {
    if (fence !== undefined) {
      if (closesFence(line, fence)) fence = undefined;
      continue;
    }
    if (BLANK.test(line)) {
      work += closers * closers;
      closers = 0;
      continue;
    }
    const opened = fencesOpen ? TOP_FENCE.exec(line) : null;
    if (opened) {
      fence = opened[1] ?? opened[2];
      continue;
    }
    const { depth, content } = containersOf(line);
    if (depth > MAX_NESTING) return false;
    if (line[content] === "<") fencesOpen = false;
    closers += closersIn(line);
    if (work + closers * closers > MAX_CLOSER_WORK) return false;
  }
  return true;
}

function closesFence(line: string, fence: string): boolean {
  const trimmed = line.replace(/^ {0,3}/, "").trimEnd();
  return trimmed.length >= fence.length && trimmed === (fence[0] ?? "").repeat(trimmed.length);
}

/**
 * How many containers a line stands in, at most (`depth`): the quote markers and list markers
 * it starts with, and half its indentation (a list item's content is indented by at least two
 * columns for each list around it); a line with no marker opens none. `content`: where what
 * follows them starts.
 */
function containersOf(line: string): { depth: number; content: number } {
  let indent = 0;
  let i = 0;
  for (; line[i] === " " || line[i] === "\t"; i++) indent += line[i] === "\t" ? 4 : 1;
  let markers = 0;
  for (;;) {
    while (line[i] === " " || line[i] === "\t") i++;
    const marker = markerAt(line, i);
    if (marker === 0) break;
    markers++;
    i += marker;
  }
  return { depth: markers === 0 ? 0 : markers + Math.floor(indent / 2), content: i };
}

/** The length of the quote or list marker at `i` (0 for none). */
function markerAt(line: string, i: number): number {
  const char = line[i];
  if (char === ">") return 1;
  const after = (at: number) => at >= line.length || line[at] === " " || line[at] === "\t";
  if ((char === "-" || char === "*" || char === "+") && after(i + 1)) return 1;
  let digits = 0;
  while (digits < 9 && /[0-9]/.test(line[i + digits] ?? "")) digits++;
  const close = line[i + digits];
  return digits > 0 && (close === "." || close === ")") && after(i + digits + 1) ? digits + 1 : 0;
}

/**
 * What in a line may close a construct opened before it, and so look back for its opener or
 * ahead for its end: each `]` (a link's label) and `<` (an autolink or HTML), each backtick
 * (a run looks ahead for a run as long), and each run of `*`, `_` or `~` after a character
 * that is not white space (only such a run can close emphasis or strikethrough). Counts more
 * than micromark matches, never fewer.
 */
function closersIn(line: string): number {
  let count = 0;
  for (const match of line.matchAll(DELIMITERS)) {
    const [found] = match;
    // An escaped character is text (and a backslash before a letter changes nothing).
    if (found.startsWith("\\")) continue;
    const before = line[match.index - 1];
    if ("]<`".includes(found) || (before !== undefined && !/\s/.test(before))) count++;
  }
  return count;
}

// An escape, a `]`, `<` or backtick, or a run of one emphasis or strikethrough marker.
const DELIMITERS = /\\[\s\S]?|[\]<`]|([*_~])\1*/g;
