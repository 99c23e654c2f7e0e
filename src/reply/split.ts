/**
 * Splitting an answer that outgrows one platform message. Works on the chatbot's Markdown
 * (before rendering), so a cut never lands inside a character, a grapheme cluster or a
 * piece of markup, and a code block cut in two is closed and reopened.
 */

export interface SplitResult {
  /** The part that fills the current message, code fence closed if one was open. */
  head: string;
  /** What continues in the next message, the code fence reopened if it was cut. */
  tail: string;
  /** Where in the input the cut is; `tail` is the input from here, after `reopened`. */
  index: number;
  /** The fence line that reopens a cut code block at the start of `tail` ("" when none). */
  reopened: string;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

// Break points from best to worst; a later kind is used only when no earlier kind leaves
// the head at least half full, so messages do not end up tiny.
const BREAKS: readonly RegExp[] = [/\n\s*\n/g, /\n/g, /[.!?…。！？](?=\s)/g, /\s/g];

/**
 * Splits `markdown` into a head that fits and the rest. `fits` answers whether a candidate
 * head (as it would be sent) is within the platform's limit; it must be monotone in length.
 * Returns undefined when the whole text already fits.
 */
export function splitToFit(
  markdown: string,
  fits: (head: string) => boolean,
): SplitResult | undefined {
  if (fits(markdown)) return undefined;
  const limit = longestFittingPrefix(markdown, fits);
  const cut = bestBreak(markdown, limit);
  return cutAt(markdown, cut);
}

/** The largest index such that the head ending there (fence closed) fits; at least one grapheme. */
function longestFittingPrefix(markdown: string, fits: (head: string) => boolean): number {
  let low = 0;
  let high = markdown.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(cutAt(markdown, mid).head)) low = mid;
    else high = mid - 1;
  }
  return Math.max(low, firstGraphemeEnd(markdown));
}

function bestBreak(markdown: string, limit: number): number {
  const window = markdown.slice(0, limit);
  for (const pattern of BREAKS) {
    let best = -1;
    for (const match of window.matchAll(pattern)) {
      const end = match.index + match[0].length;
      if (end <= limit && !insideFenceLine(markdown, end)) best = end;
    }
    if (best >= limit / 2) return best;
  }
  return lastGraphemeBoundary(markdown, limit);
}

function cutAt(markdown: string, index: number): SplitResult {
  const head = markdown.slice(0, index);
  const tail = markdown.slice(index);
  const fence = openFence(head);
  if (!fence) return { head, tail, index, reopened: "" };
  const closing = head.endsWith("\n") ? fence.marker : `\n${fence.marker}`;
  const reopened = `${fence.marker}${fence.info}\n`;
  return { head: head + closing, tail: reopened + tail, index, reopened };
}

interface Fence {
  marker: string;
  info: string;
}

const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** The fenced code block still open at the end of `text`, if any. */
export function openFence(text: string): Fence | undefined {
  let open: Fence | undefined;
  for (const line of text.split("\n")) {
    const match = FENCE_LINE.exec(line);
    if (!match) continue;
    const marker = match[1] ?? "";
    const info = (match[2] ?? "").trim();
    if (!open) open = { marker, info };
    else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && info === "") {
      open = undefined;
    }
  }
  return open;
}

function insideFenceLine(markdown: string, index: number): boolean {
  const lineStart = markdown.lastIndexOf("\n", index - 1) + 1;
  const lineEnd = markdown.indexOf("\n", index);
  const line = markdown.slice(lineStart, lineEnd === -1 ? undefined : lineEnd);
  return index > lineStart && FENCE_LINE.test(line);
}

function firstGraphemeEnd(text: string): number {
  for (const { segment } of graphemes.segment(text)) return segment.length;
  return 0;
}

function lastGraphemeBoundary(text: string, limit: number): number {
  let boundary = 0;
  for (const { index } of graphemes.segment(text.slice(0, limit + 64))) {
    if (index > limit) break;
    boundary = index;
  }
  return boundary > 0 ? boundary : firstGraphemeEnd(text);
}
