// Characters a reader cannot see that change what they read: control characters (a terminal
// escape, a carriage return that writes over a line), the bidi controls that reorder text (a
// phone number or a file name shown backwards, the "Trojan Source" trick in code), and the
// zero-width ones that split or glue words unseen. Not among them: ZWNJ (U+200C) and ZWJ
// (U+200D), which Persian words and emoji sequences (👨‍👩‍👧) need, nor tab and newline, nor
// the direction marks (ALM U+061C, LRM U+200E, RLM U+200F): a mark moves no text, it only
// settles the side of neutral characters beside it, and Arabic answers need them.
const HIDDEN =
  "\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u180e\\u200b\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff";
const INVISIBLE = new RegExp(`[${HIDDEN}]`, "g");
const MARKS = /[\u061c\u200e\u200f]/g;
// A line end or an invisible character: a piece with neither passes through as it is.
const NOTABLE = new RegExp(`[\\n${HIDDEN}]`);

/** `text` without the characters that would hide or reorder what a reader sees. */
export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE, "");
}

/**
 * stripInvisible, and the direction marks too: for one short value (a lead's phone or name),
 * where a mark serves nothing but to flip how its digits read.
 */
export function stripInvisibleAndMarks(text: string): string {
  return stripInvisible(text).replace(MARKS, "");
}

/**
 * `text` with each such character written out as `\u202E`: in code, a hidden character is a
 * bug the reader should see, and most languages read that escape in a string as the same
 * character. A carriage return is only a line ending there, and goes.
 */
function showInvisible(text: string): string {
  return text.replace(INVISIBLE, (char) =>
    char === "\r" ? "" : `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`,
  );
}

interface Fence {
  char: string;
  length: number;
}

// Quote markers and list markers before a fence: a code block in a numbered step is common.
const CONTAINERS = /^(?:[ \t]*(?:>|[-*+][ \t]|\d{1,9}[.)][ \t]))*[ \t]*/;
const FENCE = /^(`{3,}|~{3,})(.*)$/;

/**
 * Makes a Markdown answer safe to show while it streams in: invisible characters are dropped
 * from the text and written out inside fenced code blocks. Whether a line is code is settled
 * at the line's start, so the output for more text always extends the output for less, and
 * a growing answer never changes what it already showed.
 *
 * Only fences are recognised as code: the extent of an inline code span is not known until it
 * closes, so its characters are dropped like the text's. A fence the scan misreads (deep in
 * nested containers) errs safe either way: its characters are dropped or shown, never kept.
 */
export class InvisibleCharFilter {
  #line = "";
  #fence: Fence | undefined;

  /** The next piece of the answer, made safe. */
  push(text: string): string {
    // Most streamed pieces are a few plain words inside a line: no split, no copy.
    if (!NOTABLE.test(text)) {
      this.#line += text;
      return text;
    }
    let out = "";
    for (const piece of text.split(/(?<=\n)/)) {
      const shown = this.#fence ? showInvisible(piece) : stripInvisible(piece);
      out += shown;
      this.#line += shown;
      if (shown.endsWith("\n")) this.#endLine(this.#line.slice(0, -1));
    }
    return out;
  }

  #endLine(line: string): void {
    this.#line = "";
    const match = FENCE.exec(line.replace(CONTAINERS, ""));
    const run = match?.[1];
    const rest = match?.[2] ?? "";
    if (this.#fence) {
      const { char, length } = this.#fence;
      if (run?.[0] === char && run.length >= length && rest.trim() === "") this.#fence = undefined;
    } else if (run && !(run[0] === "`" && rest.includes("`"))) {
      // A backtick fence's info string has no backtick (CommonMark): "```a```" is inline code.
      this.#fence = { char: run[0] ?? "`", length: run.length };
    }
  }
}
