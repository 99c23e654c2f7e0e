import { Buffer } from "node:buffer";
import { TextDecoder } from "node:util";
import { ProtocolError } from "../errors.ts";
import { decodeStreamHeader, isEnvelope, parseJson, unwrapEnvelope } from "./schemas.ts";
import type { ChatStreamEvent } from "./types.ts";

/**
 * Separates the JSON header from the answer text in a streamed chat response. The spec
 * gives it as two 16-character halves joined with nothing between them.
 */
export const STREAM_DELIMITER = `${"645130146e8d07b1"}${"75fd8b1d5682d520"}`;

/** The most header bytes read while looking for the delimiter, unless told otherwise. */
export const DEFAULT_MAX_STREAM_HEADER_BYTES = 64 * 1024;

const DELIMITER_BYTES = Buffer.from(STREAM_DELIMITER, "latin1");
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

/**
 * Turns the body of a streamed chat response into events: the header once, then the answer
 * text in pieces of whole characters.
 *
 * Bytes are searched for the delimiter until it is found (it may be split across chunks at
 * any byte); everything after the first delimiter is answer text, later copies included.
 * Throws ApiError when the body is an error envelope (`code` not 0) instead of a stream,
 * ProtocolError when it is neither a stream nor such an envelope. Errors of `body` itself
 * pass through unchanged.
 */
export async function* parseChatStream(
  body: AsyncIterable<Uint8Array>,
  options: ChatStreamParserOptions,
): AsyncGenerator<ChatStreamEvent, void, undefined> {
  const { path } = options;
  const limit = options.maxHeaderBytes ?? DEFAULT_MAX_STREAM_HEADER_BYTES;
  const headChunks: Buffer[] = [];
  let headLength = 0;
  let carry: Buffer = Buffer.alloc(0);
  // Set once the header has been yielded; from then on every byte is answer text.
  let decoder: TextDecoder | undefined;

  let onFirstChunk = options.onFirstChunk;
  for await (const value of body) {
    if (onFirstChunk) {
      onFirstChunk();
      onFirstChunk = undefined;
    }
    const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    if (decoder) {
      const text = decoder.decode(chunk, { stream: true });
      if (text) yield { type: "text", text };
      continue;
    }

    const window = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    const at = window.indexOf(DELIMITER_BYTES);
    if (at === -1) {
      headChunks.push(chunk);
      headLength += chunk.length;
      if (headLength - CARRY > limit) {
        throw new ProtocolError(path, `no stream delimiter within ${limit} bytes`);
      }
      carry = Buffer.from(window.subarray(Math.max(0, window.length - CARRY)));
      continue;
    }

    // Earlier windows held no delimiter, so this first match is the first in the body.
    const headerEnd = headLength - carry.length + at;
    headChunks.push(chunk);
    const head = Buffer.concat(headChunks, headLength + chunk.length);
    const header = decodeStreamHeader(head.subarray(0, headerEnd).toString("utf8"), path);
    headChunks.length = 0;
    yield { type: "header", header };

    decoder = new TextDecoder("utf-8");
    const text = decoder.decode(head.subarray(headerEnd + DELIMITER_BYTES.length), {
      stream: true,
    });
    if (text) yield { type: "text", text };
  }

  if (!decoder) throw endedWithoutDelimiter(Buffer.concat(headChunks, headLength), path);
  const rest = decoder.decode();
  if (rest) yield { type: "text", text: rest };
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
