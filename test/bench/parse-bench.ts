// Throughput of parseChatStream on a streamed answer fed from memory in fixed-size chunks.
// The chunks are views into one buffer (no copies), yielded by an async generator as
// undici's body would yield them, so the figure is the parser plus the async iteration
// every consumer pays; the "source alone" column is that iteration without the parser.
import { Buffer } from "node:buffer";
import { parseChatStream, STREAM_DELIMITER } from "../../src/backend/stream-parser.ts";
import { median, round } from "./stats.ts";

export interface ParseRow {
  chunkBytes: number;
  /** Bytes of answer text parsed per run (the header and delimiter come on top). */
  answerBytes: number;
  chunks: number;
  runs: number;
  /** Median over the runs, MB = 10^6 bytes. */
  mbPerS: number;
  /** The async generator alone, without parsing. */
  sourceMbPerS: number;
  /** Median ns per chunk, parser and iteration. */
  nsPerChunk: number;
}

export interface ParseBenchOptions {
  /** Chunk sizes and how many answer bytes each is measured on. */
  cases?: readonly { chunkBytes: number; answerBytes: number; runs: number }[];
}

const ONE_MB = 1_000_000;
const DEFAULT_CASES = [
  // 1-byte chunks cost one async step each: measured on 1 MB all the same, fewer runs.
  { chunkBytes: 1, answerBytes: ONE_MB, runs: 3 },
  { chunkBytes: 16, answerBytes: ONE_MB, runs: 5 },
  { chunkBytes: 4096, answerBytes: ONE_MB, runs: 15 },
] as const;

export async function benchParse(options: ParseBenchOptions = {}): Promise<ParseRow[]> {
  const rows: ParseRow[] = [];
  for (const c of options.cases ?? DEFAULT_CASES) {
    const body = streamBody(c.answerBytes);
    const chunks = sliceInto(body.bytes, c.chunkBytes);
    // Warm-up on a short prefix, so the first run is not the JIT's.
    await parseAll(chunks.slice(0, Math.min(chunks.length, 20_000)), -1);
    const times: number[] = [];
    const sourceTimes: number[] = [];
    for (let run = 0; run < c.runs; run++) {
      times.push(await parseAll(chunks, body.answerChars));
      sourceTimes.push(await iterateOnly(chunks));
    }
    const seconds = median(times) / 1000;
    rows.push({
      chunkBytes: c.chunkBytes,
      answerBytes: c.answerBytes,
      chunks: chunks.length,
      runs: c.runs,
      mbPerS: round(body.bytes.length / ONE_MB / seconds, 1),
      sourceMbPerS: round(body.bytes.length / ONE_MB / (median(sourceTimes) / 1000), 1),
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

async function* source(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}

/** ms to parse every chunk; checks the text adds up (`expectChars` -1: no check). */
async function parseAll(chunks: readonly Uint8Array[], expectChars: number): Promise<number> {
  const started = performance.now();
  let chars = 0;
  for await (const event of parseChatStream(source(chunks), { path: "/bench" })) {
    if (event.type === "text") chars += event.text.length;
  }
  const ms = performance.now() - started;
  if (expectChars >= 0 && chars !== expectChars) {
    throw new Error(`parser returned ${chars} characters, expected ${expectChars}`);
  }
  return ms;
}

async function iterateOnly(chunks: readonly Uint8Array[]): Promise<number> {
  const started = performance.now();
  let bytes = 0;
  for await (const chunk of source(chunks)) bytes += chunk.length;
  if (bytes < 0) throw new Error("unreachable");
  return performance.now() - started;
}
