import { answerPieces, between, type Piece, type Random } from "./chunks.ts";
import type { Faults } from "./faults.ts";
import {
  cutConnection,
  type Reply,
  sendEnvelope,
  sendStatus,
  sleep,
  untilAborted,
  write,
} from "./http.ts";
import type { Timing } from "./options.ts";

/** The spec's stream delimiter: its two 16-character halves joined. */
export const STREAM_DELIMITER = "645130146e8d07b1" + "75fd8b1d5682d520";

const SLOW: readonly [number, number] = [150, 600];
const NO_DELAY: readonly [number, number] = [0, 0];
// Where #split-delimiter cuts the delimiter: off its halves' seam, to catch parsers that
// only look for the halves.
const DELIMITER_CUT = 13;

export interface WriteContext {
  reply: Reply;
  faults: Faults;
  timing: Timing;
  random: Random;
}

/**
 * The faults that decide the response before any of it is sent: a delay, headers that
 * never come, an HTTP status, an envelope code. Returns true when the response is settled.
 */
export async function applyLeadingFaults({ reply, faults }: WriteContext): Promise<boolean> {
  if (faults.delayMs !== undefined) await sleep(faults.delayMs, reply.signal);
  if (faults.stallHeaders) {
    await untilAborted(reply.signal);
    return true;
  }
  if (faults.status !== undefined) {
    sendStatus(reply, faults.status);
    return true;
  }
  if (faults.code !== undefined) {
    sendEnvelope(reply, faults.code, {}, `simulated error (code ${faults.code})`);
    return true;
  }
  return false;
}

/** Chunk delays after `#slow`/`#fast`; the "thinking" pause before text is 4 × the longest. */
function delays(ctx: WriteContext): { range: readonly [number, number]; thinkMs: number } {
  const range =
    ctx.faults.speed === "slow" ? SLOW : ctx.faults.speed === "fast" ? NO_DELAY : ctx.timing.delay;
  return { range, thinkMs: 4 * range[1] };
}

/**
 * A streamed answer: the JSON header, the delimiter, then the answer in small irregular
 * pieces with pauses between them, bent by the faults.
 */
export async function writeStream(
  ctx: WriteContext,
  header: string,
  answer: string,
): Promise<void> {
  const { reply, faults, timing, random } = ctx;
  const { range, thinkMs } = delays(ctx);
  reply.res.writeHead(200, {
    // The spec does not name the content type of a stream; plain text is the plainest.
    "content-type": "text/plain; charset=utf-8",
    "cache-control": "no-cache",
  });
  const opening = openingPieces(faults.badHeader ? brokenHeader(header) : header, faults);
  const text = answerPieces(answer, random, timing.chars, faults.splitUtf8 === true);
  const gap = (piece: Piece) => {
    const ms = between(random, range);
    return piece.split ? Math.max(timing.splitGapMs, ms) : ms;
  };
  for (const [i, piece] of opening.entries()) {
    if (i > 0) await sleep(gap(piece), reply.signal);
    await write(reply.res, piece.bytes, reply.signal);
  }
  const interruptAt = text.length >= 2 ? Math.floor(text.length / 2) : text.length;
  for (let i = 0; i <= text.length; i++) {
    if (i === interruptAt && (await interrupt(ctx))) return;
    const piece = text[i];
    if (piece === undefined) break;
    await sleep(i === 0 ? thinkMs : gap(piece), reply.signal);
    await write(reply.res, piece.bytes, reply.signal);
  }
  reply.res.end();
}

/** `#cut`, `#stall` or `#pause` half-way; true when the response must not go on. */
async function interrupt({ reply, faults, timing }: WriteContext): Promise<boolean> {
  if (faults.cut) {
    // Let the text written so far leave before the connection dies.
    await sleep(timing.splitGapMs, reply.signal);
    cutConnection(reply.res);
    return true;
  }
  if (faults.stall) {
    await untilAborted(reply.signal);
    return true;
  }
  if (faults.pauseMs !== undefined) await sleep(faults.pauseMs, reply.signal);
  return false;
}

function openingPieces(header: string, faults: Faults): Piece[] {
  const headerParts = faults.splitHeader ? thirds(header) : [header];
  const pieces: Piece[] = headerParts.map((part, i) => ({
    bytes: Buffer.from(part),
    split: i > 0,
  }));
  const last = pieces.length - 1;
  const withLast = (tail: string) => {
    const piece = pieces[last] as Piece;
    pieces[last] = { bytes: Buffer.concat([piece.bytes, Buffer.from(tail)]), split: piece.split };
  };
  if (faults.noDelimiter) return pieces;
  if (faults.splitDelimiter) {
    withLast(STREAM_DELIMITER.slice(0, DELIMITER_CUT));
    pieces.push({ bytes: Buffer.from(STREAM_DELIMITER.slice(DELIMITER_CUT)), split: true });
  } else {
    withLast(STREAM_DELIMITER);
  }
  return pieces;
}

function thirds(text: string): string[] {
  const size = Math.ceil(text.length / 3);
  return [text.slice(0, size), text.slice(size, 2 * size), text.slice(2 * size)];
}

// JSON that starts well and breaks half-way, as a truncated or garbled header would.
function brokenHeader(header: string): string {
  return `${header.slice(0, Math.floor(header.length / 2))}<<not json`;
}

/**
 * A complete JSON body (non-streamed chat, leads) after the "thinking" pause, bent by
 * `#bad-header` (malformed JSON), `#cut`, `#stall` or `#pause` half-way through the body.
 */
export async function writeWhole(ctx: WriteContext, body: string, think: boolean): Promise<void> {
  const { reply, faults } = ctx;
  if (think) await sleep(delays(ctx).thinkMs, reply.signal);
  const sent = Buffer.from(faults.badHeader ? body.slice(0, Math.floor(body.length / 2)) : body);
  reply.res.writeHead(200, {
    "content-type": "application/json; charset=utf-8",
    "content-length": sent.length,
  });
  if (!faults.cut && !faults.stall && faults.pauseMs === undefined) {
    reply.res.end(sent);
    return;
  }
  const half = Math.floor(sent.length / 2);
  await write(reply.res, sent.subarray(0, half), reply.signal);
  if (await interrupt(ctx)) return;
  reply.res.end(sent.subarray(half));
}
