import { Buffer } from "node:buffer";
import { TextDecoder } from "node:util";
import { ProtocolError } from "../errors.ts";
import { decodeStreamHeader, isEnvelope, parseJson, unwrapEnvelope } from "./schemas.ts";
import type { StreamHeader } from "./types.ts";

/**
 * Separates the JSON header from the answer text in a streamed chat response. The spec
 * gives it as two 16-character halves joined with nothing between them.
 */
export const STREAM_DELIMITER = `${"645130146e8d07b1"}${"75fd8b1d5682d520"}`;

/** The most header bytes read while looking for the delimiter, unless told otherwise. */
export const DEFAULT_MAX_STREAM_HEADER_BYTES = 64 * 1024;

const DELIMITER_BYTES = Buffer.from(STREAM_DELIMITER, "latin1");
// The decoder keeps a character split across chunks for the next one (made once: it is
// passed for every chunk of every answer).
const MORE_TO_COME = { stream: true } as const;
// Bytes of the previous chunks that may hold the start of a delimiter split across chunks.
const CARRY = DELIMITER_BYTES.length - 1;

export interface ChatStreamParserOptions {
  /** Endpoint path, for error messages. */
  path: string;
  /** ProtocolError once the header is known to be longer than this; bounds the buffer. */
  maxHeaderBytes?: number | undefined;
  /** Told when the body's first chunk came (the backend's own time to answer). */
  onFirstChunk?: (() => void) | undefined;
}

/** Where a ChatStreamParser hands what it read, as it reads it. */
interface ChatStreamSink {
  header(header: StreamHeader): void;
  /** A piece of the answer: whole characters, never empty. */
  text(text: string): void;
}

/**
 * Turns the body of a streamed chat response into the header once, then the answer text in
 * pieces of whole characters, as each chunk arrives: synchronously, so a response read by
 * callbacks costs no promise per chunk.
 *
 * Bytes are searched for the delimiter until it is found (it may be split across chunks at
 * any byte); everything after the first delimiter is answer text, later copies included.
 * `push` throws ProtocolError once the header outgrows its limit; `end` throws ApiError when
 * the body was an error envelope (`code` not 0) instead of a stream, ProtocolError when it was
 * neither a stream nor such an envelope.
 */
export class ChatStreamParser {
  readonly #sink: ChatStreamSink;
  readonly #path: string;
  readonly #limit: number;
  #onFirstChunk: (() => void) | undefined;
  readonly #headChunks: Buffer[] = [];
  #headLength = 0;
  #carry: Buffer = Buffer.alloc(0);
  // Set once the header has been handed on; from then on every byte is answer text.
  #decoder: TextDecoder | undefined;

  constructor(sink: ChatStreamSink, options: ChatStreamParserOptions) {
    this.#sink = sink;
    this.#path = options.path;
    this.#limit = options.maxHeaderBytes ?? DEFAULT_MAX_STREAM_HEADER_BYTES;
    this.#onFirstChunk = options.onFirstChunk;
  }

  push(value: Uint8Array): void {
    if (this.#onFirstChunk) {
      this.#onFirstChunk();
      this.#onFirstChunk = undefined;
    }
    const chunk = Buffer.isBuffer(value)
      ? value
      : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    if (this.#decoder) {
      this.#text(this.#decoder.decode(chunk, MORE_TO_COME));
      return;
    }

    const carry = this.#carry;
    const window = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    const at = window.indexOf(DELIMITER_BYTES);
    if (at === -1) {
      this.#headChunks.push(chunk);
      this.#headLength += chunk.length;
      if (this.#headLength - CARRY > this.#limit) {
        throw new ProtocolError(this.#path, `no stream delimiter within ${this.#limit} bytes`);
      }
      this.#carry = Buffer.from(window.subarray(Math.max(0, window.length - CARRY)));
      return;
    }

    // Earlier windows held no delimiter, so this first match is the first in the body.
    const headerEnd = this.#headLength - carry.length + at;
    this.#headChunks.push(chunk);
    const head = Buffer.concat(this.#headChunks, this.#headLength + chunk.length);
    this.#headChunks.length = 0;
    this.#decoder = new TextDecoder("utf-8");
    this.#sink.header(decodeStreamHeader(head.subarray(0, headerEnd).toString("utf8"), this.#path));
    const rest = head.subarray(headerEnd + DELIMITER_BYTES.length);
    this.#text(this.#decoder.decode(rest, MORE_TO_COME));
  }

  /** The body ended: hands on what the decoder still held, or says why there was no stream. */
  end(): void {
    if (!this.#decoder) {
      throw endedWithoutDelimiter(Buffer.concat(this.#headChunks, this.#headLength), this.#path);
    }
    this.#text(this.#decoder.decode());
  }

  #text(text: string): void {
    if (text) this.#sink.text(text);
  }
}

// A body with no delimiter is usually an error envelope sent instead of a stream.
function endedWithoutDelimiter(body: Buffer, path: string): Error {
  const text = body.toString("utf8").trim();
  if (text === "") return new ProtocolError(path, "empty response");
  let value: unknown;
  try {
    value = parseJson(text, path, "response");
  } catch {
    return new ProtocolError(path, "stream ended before the delimiter");
  }
  if (!isEnvelope(value)) return new ProtocolError(path, "stream ended before the delimiter");
  try {
    unwrapEnvelope(value, path);
  } catch (error) {
    return error as Error;
  }
  return new ProtocolError(path, "an envelope with code 0 came instead of a stream");
}
