import { inspect } from "node:util";
import { expect } from "vitest";
import { type BackendClientOptions, createBackendClient } from "../../src/backend/client.ts";
import { STREAM_DELIMITER } from "../../src/backend/stream-parser.ts";
import type {
  BackendClient,
  ChatRequest,
  ChatStreamReader,
  StreamHeader,
} from "../../src/backend/types.ts";
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

/** `error`, which must be a BridgeError free of the key. */
function bridgeError(error: unknown): BridgeError {
  expectNoSecret(error);
  expect(error).toBeInstanceOf(BridgeError);
  return error as BridgeError;
}

/** The rejection of `promise`, which must be a BridgeError free of the key. */
export async function failure(promise: Promise<unknown>): Promise<BridgeError> {
  try {
    await promise;
  } catch (error) {
    return bridgeError(error);
  }
  throw new Error("expected a rejection");
}

/** One thing a streamed answer handed on: the header once, first; then pieces of text. */
export type StreamEvent = { type: "header"; header: StreamHeader } | { type: "text"; text: string };

export interface Collected {
  header: StreamHeader | undefined;
  text: string;
  events: StreamEvent[];
  error: BridgeError | undefined;
}

export function collected(): Collected {
  return { header: undefined, text: "", events: [], error: undefined };
}

/** `result`'s failure, checked for the key. */
export function recordError(result: Collected, error: unknown): void {
  result.error = bridgeError(error);
}

/**
 * A reader (or a parser's sink) that records into `result`. `onText` is told each piece
 * once recorded; its answer is the reader's (false: read no further).
 */
export function recorder(
  result: Collected,
  onText: (text: string) => boolean = () => true,
): ChatStreamReader {
  return {
    header(header) {
      result.events.push({ type: "header", header });
      result.header = header;
    },
    text(text) {
      result.events.push({ type: "text", text });
      result.text += text;
      return onText(text);
    },
  };
}

/**
 * Streams one answer through `client.streamChat` and returns what its reader was handed;
 * an error ends it and is returned, checked for the key.
 */
export async function collect(
  client: BackendClient,
  request: ChatRequest,
  onText?: (text: string) => boolean,
): Promise<Collected> {
  const result = collected();
  // Outside the try: streamChat must reject, never throw.
  const answering = client.streamChat(request, recorder(result, onText));
  try {
    await answering;
  } catch (error) {
    recordError(result, error);
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
