// Throughput of ChatStreamParser on a streamed answer fed from memory in fixed-size chunks.
// The chunks are views into one buffer (no copies), pushed one after another as the
// client's response callbacks push undici's chunks, so the figure is the parser alone.
import { Buffer } from "node:buffer";
import { ChatStreamParser, STREAM_DELIMITER } from "../../src/backend/stream-parser.ts";
import { median, round } from "./stats.ts";

export interface ParseRow {
  chunkBytes: number;
  /** Bytes of answer text parsed per run (the header and delimiter come on top). */
  answerBytes: number;
  chunks: number;
  runs: number;
  /** Median over the runs, MB = 10^6 bytes. */
  mbPerS: number;
  /** Median ns per chunk. */
  nsPerChunk: number;
}

export interface ParseBenchOptions {
  /** Chunk sizes and how many answer bytes each is measured on. */
  cases?: readonly { chunkBytes: number; answerBytes: number; runs: number }[];
}

const ONE_MB = 1_000_000;
const DEFAULT_CASES = [
  // 1-byte chunks cost the most per byte: measured on 1 MB all the same, fewer runs.
  { chunkBytes: 1, answerBytes: ONE_MB, runs: 3 },
  { chunkBytes: 16, answerBytes: ONE_MB, runs: 5 },
  { chunkBytes: 4096, answerBytes: ONE_MB, runs: 15 },
] as const;

export function benchParse(options: ParseBenchOptions = {}): ParseRow[] {
  const rows: ParseRow[] = [];
  for (const c of options.cases ?? DEFAULT_CASES) {
    const body = streamBody(c.answerBytes);
    const chunks = sliceInto(body.bytes, c.chunkBytes);
    // Warm-up on a short prefix, so the first run is not the JIT's.
    parseAll(chunks.slice(0, Math.min(chunks.length, 20_000)), -1);
    const times: number[] = [];
    for (let run = 0; run < c.runs; run++) times.push(parseAll(chunks, body.answerChars));
    const seconds = median(times) / 1000;
    rows.push({
      chunkBytes: c.chunkBytes,
      answerBytes: c.answerBytes,
      chunks: chunks.length,
      runs: c.runs,
      mbPerS: round(body.bytes.length / ONE_MB / seconds, 1),
      nsPerChunk: Math.round((seconds * 1e9) / chunks.length),
    });
  }
  return rows;
}

/** A streamed response: header JSON, delimiter, then `answerBytes` of mixed-script text. */
function streamBody(answerBytes: number): { bytes: Buffer; answerChars: number } {
  const header = JSON.stringify({
    answer: "",
    question: "bench",
    related_docs: [],
    conversation_uid: "c-bench",
    is_qa_mode: false,
    system_message: "",
  });
  // Mostly ASCII with 2-, 3- and 4-byte characters, so small chunks split characters.
  const unit = Buffer.from("The answer streams in place: café, naïve, 你好, 😀. ".repeat(4));
  const answer = Buffer.alloc(answerBytes);
  for (let at = 0; at < answerBytes; at += unit.length) unit.copy(answer, at);
  // The fill may end inside a character; trim to the last whole one.
  const text = answer.toString("utf8").replace(/\uFFFD+$/, "");
  const exact = Buffer.from(text);
  return {
    bytes: Buffer.concat([Buffer.from(header + STREAM_DELIMITER), exact]),
    answerChars: text.length,
  };
}

function sliceInto(bytes: Buffer, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}

/** ms to parse every chunk; checks the text adds up (`expectChars` -1: no check). */
function parseAll(chunks: readonly Uint8Array[], expectChars: number): number {
  const started = performance.now();
  let chars = 0;
  const parser = new ChatStreamParser(
    {
      header() {},
      text(text) {
        chars += text.length;
      },
    },
    { path: "/bench" },
  );
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  const ms = performance.now() - started;
  if (expectChars >= 0 && chars !== expectChars) {
    throw new Error(`parser returned ${chars} characters, expected ${expectChars}`);
  }
  return ms;
}
