import { afterEach } from "vitest";
import {
  type Simulator,
  type SimulatorOptions,
  STREAM_DELIMITER,
  startSimulator,
} from "../../src/simulator/index.ts";

export const DELIMITER = "645130146e8d07b175fd8b1d5682d520";

// The fixed clock of these suites: generated leads and added ones date from here.
export const NOW = new Date("2026-11-22T10:00:00Z");

const running: Simulator[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((sim) => sim.close()));
});

/** A simulator with no delays, closed after the test. */
export async function simulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await startSimulator({ chunkDelayMs: 0, now: () => NOW, ...options });
  running.push(sim);
  return sim;
}

export function leadsPath(botUid = "sim-bot"): string {
  return `/api/v1/backend/chatbot/${botUid}/leads`;
}

export function chatPath(botUid = "sim-bot"): string {
  return `/api/v1/backend/chatbot/${botUid}/chat`;
}

export function auth(key = "sim-key"): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

export interface JsonReply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: assertions below pin every field read.
  body: any;
}

export async function getJson(
  sim: Simulator,
  path: string,
  headers: Record<string, string> = auth(),
): Promise<JsonReply> {
  const res = await fetch(`${sim.url}${path}`, { headers });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

export function chat(
  sim: Simulator,
  body: unknown,
  init: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  return fetch(`${sim.url}${chatPath()}`, {
    method: "POST",
    headers: init.headers ?? { ...auth(), "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal: init.signal,
  });
}

export async function chatJson(sim: Simulator, body: unknown): Promise<JsonReply> {
  const res = await chat(sim, body);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** Every read of a body as it arrived, and the error that ended it early, if any. */
export async function readChunks(
  res: Response,
): Promise<{ chunks: Uint8Array[]; error?: unknown }> {
  const chunks: Uint8Array[] = [];
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { chunks };
      chunks.push(value);
    }
  } catch (error) {
    return { chunks, error };
  }
}

export function joined(chunks: readonly Uint8Array[]): string {
  return Buffer.concat(chunks).toString("utf8");
}

/** Splits a streamed chat body at the delimiter into its JSON header and its answer. */
export function parseStream(text: string): { header: Record<string, unknown>; answer: string } {
  const at = text.indexOf(DELIMITER);
  if (at < 0) throw new Error("no delimiter in stream");
  return { header: JSON.parse(text.slice(0, at)), answer: text.slice(at + DELIMITER.length) };
}

export { STREAM_DELIMITER };
