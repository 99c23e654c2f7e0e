/** A piece of a streamed response, and whether it was split off on purpose (`#split-*`). */
export interface Piece {
  bytes: Buffer;
  /** The split before this piece is deliberate: it must reach the client as its own read. */
  split: boolean;
}

export type Random = () => number;

/** mulberry32: a tiny seeded generator, so chunking is the same on every run. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A whole number from `min` to `max`, both included. */
export function between(random: Random, [min, max]: readonly [number, number]): number {
  return min + Math.floor(random() * (max - min + 1));
}

// Long answers come in about 150–400 chunks, so `#huge=100000` streams in seconds, not minutes.
const TARGET_CHUNKS: readonly [number, number] = [150, 400];
// Splitting the first few multi-byte characters is enough to catch a decoder that drops them.
const UTF8_SPLITS = 5;

/**
 * Cuts the answer into pieces of irregular size. Pieces hold whole characters (never half a
 * surrogate pair) unless `splitUtf8`, which cuts the first few multi-byte characters in two.
 */
export function answerPieces(
  text: string,
  random: Random,
  chars: readonly [number, number],
  splitUtf8: boolean,
): Piece[] {
  const range = scaledRange(text.length, chars);
  const pieces: string[] = [];
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + between(random, range));
    if (isHighSurrogate(text.charCodeAt(end - 1)) && end < text.length) end += 1;
    pieces.push(text.slice(at, end));
    at = end;
  }
  if (!splitUtf8) return pieces.map((piece) => ({ bytes: Buffer.from(piece), split: false }));
  return splitInsideCharacters(pieces, text);
}

function scaledRange(length: number, chars: readonly [number, number]): readonly [number, number] {
  const [min, max] = chars;
  const scaledMin = Math.ceil(length / TARGET_CHUNKS[1]);
  const scaledMax = Math.ceil(length / TARGET_CHUNKS[0]);
  return [Math.max(1, min, Math.min(scaledMin, scaledMax)), Math.max(1, max, scaledMax)];
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function splitInsideCharacters(pieces: readonly string[], text: string): Piece[] {
  const whole = Buffer.from(text);
  const cuts = new Map<number, boolean>();
  let offset = 0;
  for (const piece of pieces) {
    offset += Buffer.byteLength(piece);
    cuts.set(offset, false);
  }
  let byte = 0;
  let split = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (size > 1 && split < UTF8_SPLITS) {
      cuts.set(byte + 1, true);
      split += 1;
    }
    byte += size;
    if (split >= UTF8_SPLITS) break;
  }
  const ordered = [...cuts.entries()].sort((a, b) => a[0] - b[0]);
  const result: Piece[] = [];
  let start = 0;
  let deliberate = false;
  for (const [end, isSplit] of ordered) {
    if (end > start) result.push({ bytes: whole.subarray(start, end), split: deliberate });
    start = end;
    deliberate = isSplit;
  }
  return result;
}
