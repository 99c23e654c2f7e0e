import { DEFAULTS } from "../config.ts";
import {
  AnswerCutError,
  BridgeError,
  InvalidInputError,
  NetworkError,
  ProtocolError,
  ServerError,
  TimeoutError,
} from "../errors.ts";
import { parseRetryAfter, type RetryOptions, withRetry } from "../retry.ts";
import { startDeadline } from "./deadline.ts";
import { isLanguageCode, LANGUAGE_CODES } from "./languages.ts";
import {
  chatAnswerSchema,
  decodeWith,
  leadsPageSchema,
  parseJson,
  unwrapEnvelope,
} from "./schemas.ts";
import { ChatStreamParser } from "./stream-parser.ts";
import {
  type BodySink,
  createTransport,
  discardBody,
  type HttpResponse,
  MAX_DISCARDED_BYTES,
  type ResponseControl,
  readBody,
  statusError,
  type Transport,
} from "./transport.ts";
import type { BackendClient, ChatRequest, LeadsQuery } from "./types.ts";

/** The account: where the API is and its key, shared by every chatbot of the account. */
export interface BackendAccountOptions {
  /** The API's {base_url}; a trailing "/" and a path prefix are both fine. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; never put into an error. */
  apiKey: string;
  /** Longest wait for the response headers (CHATBOT_TIMEOUT_MS). Default 30000. */
  timeoutMs?: number | undefined;
  /** Longest silence inside a response body (CHATBOT_IDLE_TIMEOUT_MS). Default 60000. */
  idleTimeoutMs?: number | undefined;
  /**
   * Longest whole chat answer, from sending the question to its last byte
   * (CHATBOT_ANSWER_TIMEOUT_MS). Past it the request is closed. Default: no limit.
   */
  answerTimeoutMs?: number | undefined;
  /** Longest wait for the TCP/TLS connection. Default the smaller of timeoutMs and 10000. */
  connectTimeoutMs?: number | undefined;
  /** Largest response header section accepted (undici's maxHeaderSize). */
  maxHttpHeaderBytes?: number | undefined;
  /** Largest stream header (the JSON before the delimiter). Default 64 KiB. */
  maxStreamHeaderBytes?: number | undefined;
  /** Largest non-streamed response body. Default 8 MiB. */
  maxResponseBytes?: number | undefined;
  /** Retries of `leads`, and of chat requests that certainly never left this process. */
  retry?: RetryOptions | undefined;
  /** Told, per streamed answer, the seconds from sending the question to its first byte. */
  onFirstByte?: ((seconds: number) => void) | undefined;
}

export interface BackendClientOptions extends BackendAccountOptions {
  botUid: string;
}

/** The chatbots of one account, on one keep-alive pool. */
export interface BackendAccount {
  /**
   * The client of one chatbot of the account. Each shares the account's pool: closing any of
   * them closes it, as `close` does.
   */
  chatbot(botUid: string): BackendClient;
  close(): Promise<void>;
}

// Retry-After of a 429/503, kept beside the error so the error itself stays the public shape.
const retryAfterOf = new WeakMap<BridgeError, number>();

/**
 * A client of the Chatbot Backend API on an undici keep-alive pool.
 *
 * Every method throws a BridgeError: InvalidInputError before any request for a bad
 * argument; AuthenticationError, PermissionError, NotFoundError, ServerError for HTTP 401,
 * 403, 404 and other statuses; ApiError for an envelope whose code is not 0; ProtocolError
 * for a response it cannot read; TimeoutError, NetworkError, AbortedError otherwise.
 *
 * `leads` retries transient failures (network, timeouts, 5xx, 429 after its Retry-After).
 * A chat question is never sent twice once it may have reached the server: only a
 * connection that was never made (refused, connect timeout, DNS) is tried again.
 */
export function createBackendClient(options: BackendClientOptions): BackendClient {
  return createBackendAccount(options).chatbot(options.botUid);
}

/**
 * The account's chatbots on one undici pool: every chatbot's requests go to the same origin
 * with the same key, so they share its connections (and a deployment of many chatbots opens
 * no more sockets than one of one). Each chatbot's client behaves as createBackendClient's.
 */
export function createBackendAccount(options: BackendAccountOptions): BackendAccount {
  const timeoutMs = options.timeoutMs ?? DEFAULTS.backendTimeoutMs;
  const transport = createTransport({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    timeoutMs,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULTS.backendIdleTimeoutMs,
    connectTimeoutMs: options.connectTimeoutMs ?? Math.min(timeoutMs, 10_000),
    maxHttpHeaderBytes: options.maxHttpHeaderBytes,
  });
  return {
    chatbot: (botUid) => chatbotClient(transport, botUid, options),
    close: () => transport.close(),
  };
}

/** One chatbot's operations over the account's transport. */
function chatbotClient(
  transport: Transport,
  botUid: string,
  options: BackendAccountOptions,
): BackendClient {
  const botPath = `/api/v1/backend/chatbot/${encodeURIComponent(botUid)}`;
  const chatPath = transport.pathFor(`${botPath}/chat`);
  const leadsPath = transport.pathFor(`${botPath}/leads`);
  const maxResponseBytes = options.maxResponseBytes ?? 8 * 1024 * 1024;
  const retry = options.retry ?? {};

  const readData = async (response: HttpResponse, path: string): Promise<unknown> => {
    const failure = statusError(path, response.status);
    if (failure) {
      const wait = parseRetryAfter(response.headers["retry-after"]);
      if (wait !== undefined) retryAfterOf.set(failure, wait);
      await discardBody(response);
      throw failure;
    }
    const text = (await readBody(response, maxResponseBytes, path)).toString("utf8").trim();
    if (text === "") throw new ProtocolError(path, "empty response");
    return unwrapEnvelope(parseJson(text, path, "response"), path);
  };

  // The question goes out at most once: only a connection that was never made is retried.
  const once = <T>(signal: AbortSignal | undefined, attempt: () => Promise<T>) =>
    withRetry(
      retry,
      {
        retryable: (e) => e instanceof NetworkError && e.beforeRequestSent && !transport.closed,
        signal,
      },
      attempt,
    );

  const answerDeadline = (request: ChatRequest) =>
    startDeadline(request.signal, options.answerTimeoutMs);
  const answerTimeout = () => new TimeoutError(chatPath, "answer", options.answerTimeoutMs ?? 0);

  const streamChat: BackendClient["streamChat"] = (request, reader) => {
    let json: Record<string, unknown>;
    try {
      json = chatBody(request, true);
    } catch (error) {
      return Promise.reject(error);
    }
    const deadline = answerDeadline(request);
    const question = { method: "POST", path: chatPath, json, signal: deadline.signal } as const;
    const sentAt = performance.now();
    const { onFirstByte } = options;
    return new Promise<void>((resolve, reject) => {
      let headerSeen = false;
      // A throw of the reader's own (a bug past this client) is no failure of the backend:
      // the request is closed and the error passes on as it is.
      let readerFailure: { error: unknown } | undefined;
      const fail = (error: unknown) => {
        deadline.clear();
        if (readerFailure) {
          reject(readerFailure.error);
          return;
        }
        const reason = deadline.expired
          ? answerTimeout()
          : transport.toBridgeError(error, chatPath, request.signal);
        reject(headerSeen ? new AnswerCutError(reason) : reason);
      };
      const body = new ChatBody(
        {
          end: () => {
            deadline.clear();
            resolve();
          },
          fail,
        },
        (control) =>
          // The backend's own time to answer, apart from the queue before it and the
          // platform calls after it.
          new ChatStreamParser(
            {
              header: (header) => {
                headerSeen = true;
                try {
                  reader.header(header);
                } catch (error) {
                  readerFailure = { error };
                  throw error;
                }
              },
              text: (text) => {
                let more: boolean;
                try {
                  more = reader.text(text);
                } catch (error) {
                  readerFailure = { error };
                  throw error;
                }
                if (!more) control.stop();
              },
            },
            {
              path: chatPath,
              maxHeaderBytes: options.maxStreamHeaderBytes,
              onFirstChunk: onFirstByte && (() => onFirstByte((performance.now() - sentAt) / 1000)),
            },
          ),
      );
      once(deadline.signal, () => transport.stream(question, body)).then(() => {
        const failure = statusError(chatPath, body.status);
        if (failure) fail(failure);
      }, fail);
    });
  };

  return {
    async chat(request) {
      const deadline = answerDeadline(request);
      try {
        const question = {
          method: "POST",
          path: chatPath,
          json: chatBody(request, false),
          signal: deadline.signal,
        } as const;
        const response = await once(deadline.signal, () => transport.send(question));
        const data = await readData(response, chatPath);
        return decodeWith(chatAnswerSchema, data, chatPath, "chat answer");
      } catch (error) {
        if (deadline.expired) throw answerTimeout();
        throw transport.toBridgeError(error, chatPath, request.signal);
      } finally {
        deadline.clear();
      }
    },

    streamChat,

    async leads(query = {}) {
      const search = leadsSearch(query);
      return withRetry(
        retry,
        {
          retryable: (e) => !transport.closed && isTransient(e),
          retryAfterMs: (e) => (e instanceof BridgeError ? retryAfterOf.get(e) : undefined),
          signal: query.signal,
        },
        async () => {
          const response = await transport.send({
            method: "GET",
            path: leadsPath,
            query: search,
            signal: query.signal,
          });
          try {
            const data = await readData(response, leadsPath);
            return decodeWith(leadsPageSchema, data, leadsPath, "leads page");
          } catch (error) {
            throw transport.toBridgeError(error, leadsPath, query.signal);
          }
        },
      );
    },

    close: () => transport.close(),
  };
}

/** How a streamed answer's response ended. */
interface BodyEnd {
  end(): void;
  fail(error: unknown): void;
}

/**
 * A streamed answer's response, read by callbacks into its parser. The body of an error
 * status is dropped; a reader that has enough stops it.
 */
class ChatBody implements BodySink {
  status = 0;
  readonly #parser: ChatStreamParser;
  readonly #ending: BodyEnd;
  #control: ResponseControl | undefined;
  #discarded = 0;
  #over = false;

  constructor(ending: BodyEnd, parser: (body: { stop(): void }) => ChatStreamParser) {
    this.#ending = ending;
    this.#parser = parser({ stop: () => this.#stop() });
  }

  start(status: number, _headers: unknown, control: ResponseControl): void {
    this.status = status;
    this.#control = control;
  }

  data(chunk: Buffer): void {
    if (this.status !== 200) {
      this.#discarded += chunk.length;
      if (this.#discarded > MAX_DISCARDED_BYTES) this.#abort();
      return;
    }
    if (this.#over) return;
    try {
      this.#parser.push(chunk);
    } catch (error) {
      this.#abort();
      this.#ending.fail(error);
    }
  }

  end(): void {
    if (this.#over || this.status !== 200) return;
    this.#over = true;
    try {
      this.#parser.end();
      this.#ending.end();
    } catch (error) {
      this.#ending.fail(error);
    }
  }

  fail(error: unknown): void {
    if (this.#over || this.status !== 200) return;
    this.#over = true;
    this.#ending.fail(error);
  }

  /** The reader has enough: the request is closed and the answer ends here. */
  #stop(): void {
    if (this.#over) return;
    this.#abort();
    this.#ending.end();
  }

  #abort(): void {
    this.#over = true;
    this.#control?.abort();
  }
}

function isTransient(error: unknown): boolean {
  if (error instanceof NetworkError || error instanceof TimeoutError) return true;
  return error instanceof ServerError && (error.status >= 500 || error.status === 429);
}

/**
 * The chat body. `conversation_uid` is sent exactly as given: it must be one the server
 * returned earlier (the spec forbids making one up); an empty one starts a new conversation.
 */
function chatBody(request: ChatRequest, stream: boolean): Record<string, unknown> {
  if (typeof request.question !== "string" || request.question.trim() === "") {
    throw new InvalidInputError("the question is empty");
  }
  const body: Record<string, unknown> = { q: request.question };
  if (request.conversationUid) body.conversation_uid = request.conversationUid;
  if (request.language !== undefined) {
    if (!isLanguageCode(request.language)) {
      throw new InvalidInputError(
        `unknown language "${request.language}"; use one of ${LANGUAGE_CODES.join(", ")}`,
      );
    }
    body.language = request.language;
  }
  body.stream = stream;
  return body;
}

function leadsSearch(query: LeadsQuery): URLSearchParams {
  const search = new URLSearchParams();
  if (query.startDate !== undefined) search.set("start_date", checkDate(query.startDate, "start"));
  if (query.endDate !== undefined) search.set("end_date", checkDate(query.endDate, "end"));
  if (query.startDate !== undefined && query.endDate !== undefined) {
    if (query.startDate > query.endDate) {
      throw new InvalidInputError(
        `the start date ${query.startDate} is after the end date ${query.endDate}`,
      );
    }
  }
  if (query.page !== undefined) search.set("page", checkCount(query.page, "page"));
  if (query.pageSize !== undefined)
    search.set("page_size", checkCount(query.pageSize, "page size"));
  return search;
}

function checkDate(value: string, which: string): string {
  const time = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  // Date.parse rolls 2024-02-30 over to March; the round trip catches it.
  const valid = !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === value;
  if (!valid) {
    throw new InvalidInputError(
      `the ${which} date "${value}" is not a date of the form YYYY-MM-DD`,
    );
  }
  return value;
}

function checkCount(value: number, what: string): string {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new InvalidInputError(`the ${what} must be a whole number of at least 1, not ${value}`);
  }
  return String(value);
}
