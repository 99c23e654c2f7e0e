import { inspect } from "node:util";
import { expect } from "vitest";
import { type BackendClientOptions, createBackendClient } from "../../src/backend/client.ts";
import { STREAM_DELIMITER } from "../../src/backend/stream-parser.ts";
import type { ChatStreamEvent, StreamHeader } from "../../src/backend/types.ts";
import { BridgeError } from "../../src/errors.ts";

export const API_KEY = "sk-live-9f8e7d6c5b4a-SECRET";
/** A bot id that needs encoding in the path. */
export const BOT_UID = "bot/1 x";
export const BOT_PATH = "/api/v1/backend/chatbot/bot%2F1%20x";

export const HEADER_JSON = {
  answer: "",
  question: "Où est la gare ?",
  related_docs: [{ title: "Plan" }],
  conversation_uid: "conv-42",
  is_qa_mode: true,
  system_message: "",
};

export const HEADER: StreamHeader = {
  conversationUid: "conv-42",
  question: "Où est la gare ?",
  isQaMode: true,
  systemMessage: "",
  relatedDocs: [{ title: "Plan" }],
};

/** Two-, three- and four-byte UTF-8 characters, so every split lands inside one of them. */
export const ANSWER = "Café à 中文 😀!";

export function streamBody(header: unknown = HEADER_JSON, answer = ANSWER): Buffer {
  const head = typeof header === "string" ? header : JSON.stringify(header);
  return Buffer.from(`${head}${STREAM_DELIMITER}${answer}`, "utf8");
}

/** Every error the suites saw, checked for the key by each helper below. */
export function expectNoSecret(error: unknown): void {
  expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(API_KEY);
}

/** The rejection of `promise`, which must be a BridgeError free of the key. */
export async function failure(promise: Promise<unknown>): Promise<BridgeError> {
  try {
    await promise;
  } catch (error) {
    expectNoSecret(error);
    expect(error).toBeInstanceOf(BridgeError);
    return error as BridgeError;
  }
  throw new Error("expected a rejection");
}

export interface Collected {
  header: StreamHeader | undefined;
  text: string;
  events: ChatStreamEvent[];
  error: BridgeError | undefined;
}

/** Drains a stream; an error ends it and is returned, checked for the key. */
export async function collect(stream: AsyncIterable<ChatStreamEvent>): Promise<Collected> {
  const result: Collected = { header: undefined, text: "", events: [], error: undefined };
  try {
    for await (const event of stream) {
      result.events.push(event);
      if (event.type === "header") result.header = event.header;
      else result.text += event.text;
    }
  } catch (error) {
    expectNoSecret(error);
    expect(error).toBeInstanceOf(BridgeError);
    result.error = error as BridgeError;
  }
  return result;
}

/** A client with small timeouts and near-instant retries, for suites that must stay fast. */
export function testClient(baseUrl: string, overrides: Partial<BackendClientOptions> = {}) {
  return createBackendClient({
    baseUrl,
    apiKey: API_KEY,
    botUid: BOT_UID,
    timeoutMs: 2_000,
    idleTimeoutMs: 2_000,
    retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 1_000 },
    ...overrides,
  });
}

export async function* chunksOf(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === "string" ? Buffer.from(part, "utf8") : part;
}

/** `promise`, or a failure after `ms` instead of a hung test. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
