import type { Lead } from "../ports.ts";
import type { LanguageCode } from "./languages.ts";

/** One question to the chatbot. */
export interface ChatRequest {
  question: string;
  /** Only ever a value the backend returned earlier; absent starts a new conversation. */
  conversationUid?: string | undefined;
  /** Defaults to `auto` on the backend. Checked against the API's list before sending. */
  language?: LanguageCode | undefined;
  /** Cancels the request and releases its socket. */
  signal?: AbortSignal | undefined;
}

/** The JSON part that opens a streamed answer. */
export interface StreamHeader {
  /** Undefined when the header held no usable one (absent, null, not a non-empty string). */
  conversationUid: string | undefined;
  question: string;
  isQaMode: boolean;
  /** Empty when the backend has no notification to show. */
  systemMessage: string;
  /** Element shape not given by the spec: kept as received. */
  relatedDocs: unknown[];
}

/** Takes a streamed answer as it arrives (BackendClient.streamChat). */
export interface ChatStreamReader {
  /** Once, before any text. */
  header(header: StreamHeader): void;
  /**
   * A piece of the answer (whole characters). Returning false reads no further: the request
   * is closed and streamChat resolves as if the answer had ended there.
   */
  text(text: string): boolean;
}

/** A complete (non-streamed) answer. */
export interface ChatAnswer {
  answer: string;
  conversationUid: string;
  question: string;
  isQaMode: boolean;
  systemMessage: string;
}

export interface LeadsQuery {
  /** YYYY-MM-DD */
  startDate?: string | undefined;
  /** YYYY-MM-DD */
  endDate?: string | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
  signal?: AbortSignal | undefined;
}

export interface LeadsPage {
  leads: Lead[];
  page: number;
  pageSize: number;
  /** All leads of the chatbot, not only this page's. */
  total: number;
}

/**
 * The Chatbot Backend API as the bridge uses it. Every method throws a BridgeError
 * subclass (see src/errors.ts) that says what went wrong.
 */
export interface BackendClient {
  chat(request: ChatRequest): Promise<ChatAnswer>;
  /**
   * Streams an answer to `reader` as each piece arrives, with no promise per piece: resolves
   * when it ended (or the reader stopped it). Errors before the header arrives reject as they
   * are (AuthenticationError, ApiError, TimeoutError, …); a failure after it rejects as
   * AnswerCutError, once the text received so far has been handed on.
   */
  streamChat(request: ChatRequest, reader: ChatStreamReader): Promise<void>;
  leads(query?: LeadsQuery): Promise<LeadsPage>;
  close(): Promise<void>;
}
