import { InvisibleCharFilter } from "./invisible-chars.ts";

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * An answer's text as it streams in, made safe as it arrives (so every platform shows the
 * same text) and capped at `maxChars`: past the cap the rest is dropped, on a grapheme
 * boundary, and the answer counts as truncated.
 */
export class AnswerText {
  readonly #maxChars: number;
  // The backend's text loses the characters that would hide or reorder what a reader sees.
  readonly #invisible = new InvisibleCharFilter();
  #value = "";
  #truncated = false;
  #hasText = false;

  constructor(maxChars: number) {
    this.#maxChars = maxChars;
  }

  get value(): string {
    return this.#value;
  }

  get truncated(): boolean {
    return this.#truncated;
  }

  /** Whether there is anything to show beyond white space. */
  get hasText(): boolean {
    return this.#hasText;
  }

  /** Adds a streamed piece; false once the cap is reached (stop reading). */
  append(piece: string): boolean {
    if (this.#truncated) return false;
    const text = this.#invisible.push(piece);
    const room = this.#maxChars - this.#value.length;
    const kept = text.length > room ? text.slice(0, graphemeCut(text, room)) : text;
    this.#truncated = text.length > room;
    this.#value += kept;
    if (!this.#hasText && kept.trim()) this.#hasText = true;
    return !this.#truncated;
  }
}

/** The longest cut of at most `room` code units that ends on a grapheme boundary. */
function graphemeCut(text: string, room: number): number {
  let cut = 0;
  // A grapheme cluster is far shorter than 64 code units; only complete ones are taken.
  for (const { index, segment } of graphemes.segment(text.slice(0, room + 64))) {
    if (index + segment.length > room) break;
    cut = index + segment.length;
  }
  return cut;
}
