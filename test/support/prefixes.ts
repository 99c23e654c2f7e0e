/**
 * The prefixes of an answer a render test tries, as it streams in. Trying every one costs a
 * parse each (seconds of CPU over a suite's samples), and most differ from their neighbour
 * by one more letter of a word, which changes nothing a renderer decides. What may change
 * it, and is kept: the ends just before and after each character of syntax, and after the
 * one that follows a marker (which decides whether it opens); every end through a tag's or
 * an entity's name; each end in a run of spaces (indentation, a hard break); and every end
 * around and inside a character of more than one code unit or a grapheme of more than one
 * code point. Every `stride`th end besides, so that prose is tried too.
 */

/**
 * Characters that may open or close Markdown (CommonMark, GFM's tables, strikethrough and
 * autolinks), an entity, or Slack's `<…>` tokens; `.` and `)` when they follow a digit
 * (an ordered list's marker).
 */
const SYNTAX = new Set("*_~`[]()<>!#|\\&;=-+:@\n\r\t");
/** Markers whose next character decides whether they open: flanking emphasis, a list item. */
const FLANKED = new Set("*_~-+>#");
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

export interface PrefixOptions {
  /** Besides the boundaries, every `stride`th end. */
  stride?: number;
  /** Only ends between whole characters (code points), as a stream sends them. */
  wholeCharacters?: boolean;
}

/** The ends (0 to `text.length`, ascending) of the prefixes of `text` to try: see above. */
export function prefixEnds(text: string, options: PrefixOptions = {}): number[] {
  const stride = options.stride ?? 13;
  const ends = new Set<number>([0, text.length]);
  const add = (end: number) => {
    if (end >= 0 && end <= text.length) ends.add(end);
  };
  for (let i = 0; i < text.length; i++) {
    if (i % stride === 0) add(i);
    const char = text[i] ?? "";
    // Before it (a stream's text just before it arrives) and after it.
    const listMarker = /[.)]/.test(char) && /[0-9]/.test(text[i - 1] ?? "");
    if (SYNTAX.has(char) || listMarker) {
      add(i);
      add(i + 1);
    }
    if (FLANKED.has(char) || listMarker) add(i + 2);
    // A tag's or an entity's name decides what it is (`</p` opens an HTML block, `</pr` does
    // not): every end through it.
    if (char === "<" || char === "&") {
      for (let end = i + 2; end <= i + 12 && /[/!\w]/.test(text[end - 1] ?? ""); end++) add(end);
    }
    // Runs of spaces: indentation, a hard break.
    if (char === " " && (text[i - 1] === " " || text[i + 1] === " ")) add(i + 1);
  }
  // Characters of more than one code unit, and graphemes of more than one code point: the
  // ends around them and inside them.
  for (const { segment, index } of graphemes.segment(text)) {
    if (segment.length === 1) continue;
    for (let end = index; end <= index + segment.length; end++) add(end);
  }
  return [...ends]
    .filter((end) => !options.wholeCharacters || !splitsPair(text, end))
    .sort((a, b) => a - b);
}

/** The prefixes themselves: `text.slice(0, end)` for each of prefixEnds. */
export function prefixesOf(text: string, options: PrefixOptions = {}): string[] {
  return prefixEnds(text, options).map((end) => text.slice(0, end));
}

/** Whether a prefix ending at `end` splits a surrogate pair. */
function splitsPair(text: string, end: number): boolean {
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff;
}
