import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBackendClient } from "../../src/backend/client.ts";
import type { LanguageCode } from "../../src/backend/languages.ts";
import type { BackendClient } from "../../src/backend/types.ts";
import {
  ApiError,
  AuthenticationError,
  InvalidInputError,
  NetworkError,
  NotFoundError,
  PermissionError,
  ProtocolError,
  ServerError,
} from "../../src/errors.ts";
import {
  type RawBackend,
  refusedPort,
  type Script,
  startRawBackend,
} from "../support/raw-backend.ts";
import { API_KEY, BOT_PATH, BOT_UID, collect, failure, testClient } from "./fixtures.ts";

const CHAT = `${BOT_PATH}/chat`;
const LEADS = `${BOT_PATH}/leads`;

const ANSWER_DATA = {
  answer: "La gare est au nord.",
  conversation_uid: "conv-7",
  is_qa_mode: false,
  question: "Où est la gare ?",
  system_message: "",
};

const LEAD = {
  bot_uid: "bot/1 x",
  conversation_uid: "conv-1",
  created_at: "2024-05-01T10:00:00+00:00",
  email: "ana@example.com",
  name: "Ana",
  phone: "+33 6 00 00 00 00",
};

const ok =
  (data: unknown): Script =>
  (ctx) =>
    ctx.json(200, { code: 0, msg: "success", data });
const leadsPage = (page = 1, pageSize = 10) => ({
  leads: [LEAD],
  page,
  page_size: pageSize,
  total: 31,
});

let backend: RawBackend;
let client: BackendClient;
const extra: { close(): Promise<void> }[] = [];

beforeEach(async () => {
  backend = await startRawBackend();
  client = testClient(backend.url);
});

afterEach(async () => {
  await client.close();
  await backend.close();
  for (const item of extra.splice(0)) await item.close();
});

describe("chat", () => {
  it("returns the answer and sends q, stream false and the key", async () => {
    backend.handle(ok(ANSWER_DATA));
    const answer = await client.chat({ question: "Où est la gare ?" });
    expect(answer).toEqual({
      answer: "La gare est au nord.",
      conversationUid: "conv-7",
      isQaMode: false,
      question: "Où est la gare ?",
      systemMessage: "",
    });
    const [request] = backend.requests;
    expect(request?.url).toBe(CHAT);
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(JSON.parse(request?.body ?? "")).toEqual({ q: "Où est la gare ?", stream: false });
  });

  it.each([
    [{ code: 2001, msg: "no quota" }, "backend {CHAT}: code 2001: no quota"],
    [{ code: 2002, message: "bad bot" }, "backend {CHAT}: code 2002: bad bot"],
    [{ code: 2003, data: {} }, "backend {CHAT}: code 2003"],
    // Shown to the person: nothing in it may hide or reorder what they read.
    [
      { code: 2004, msg: "quota \u202egnihton\u202c\u200b" },
      "backend {CHAT}: code 2004: quota gnihton",
    ],
    [{ code: 2005, msg: "\u2066\u2069" }, "backend {CHAT}: code 2005"],
  ])("throws ApiError for code != 0 (%j)", async (envelope, message) => {
    backend.handle((ctx) => ctx.json(200, envelope));
    const error = await failure(client.chat({ question: "hi" }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toBe(message.replace("{CHAT}", CHAT));
  });

  it("throws ProtocolError for a body that is not an envelope", async () => {
    backend.handle((ctx) => {
      ctx.res.writeHead(200, { "content-type": "text/html" });
      ctx.res.end("<h1>maintenance</h1>");
    });
    const error = await failure(client.chat({ question: "hi" }));
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.message).toBe(`backend ${CHAT}: protocol error: response is not JSON`);
  });

  it("rejects an unknown language and an empty question before any request", async () => {
    const bad = { question: "hi", language: "xx" as LanguageCode };
    const error = await failure(client.chat(bad));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.userMessage).toBe(
      'unknown language "xx"; use one of auto, en, fr, es, ru, zh-Hans, zh-Hant, ar, de, jp, pt, hi, ko, it, uk',
    );
    expect((await collect(client, bad)).error).toBeInstanceOf(InvalidInputError);
    const empty = await failure(client.chat({ question: "  " }));
    expect(empty.message).toBe("the question is empty");
    expect(backend.requests).toHaveLength(0);
  });

  it("never sends a question twice: not after a 500, not after a drop", async () => {
    backend.handle((ctx) => ctx.json(500, {}));
    expect(await failure(client.chat({ question: "hi" }))).toBeInstanceOf(ServerError);
    expect((await collect(client, { question: "hi" })).error).toBeInstanceOf(ServerError);
    expect(backend.requests).toHaveLength(2);

    backend.handle((ctx) => ctx.destroy());
    const dropped = await failure(client.chat({ question: "hi" }));
    expect(dropped).toBeInstanceOf(NetworkError);
    expect((dropped as NetworkError).beforeRequestSent).toBe(false);
    expect(dropped.userMessage).toBe("connection lost");
    const streamDropped = await collect(client, { question: "hi" });
    expect(streamDropped.error).toBeInstanceOf(NetworkError);
    expect(backend.requests).toHaveLength(4);
  });

  it("reports a refused connection as NetworkError before the request was sent", async () => {
    const refused = testClient(`http://127.0.0.1:${await refusedPort()}`, {
      retry: { attempts: 1 },
    });
    extra.push(refused);
    const error = await failure(refused.chat({ question: "hi" }));
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).beforeRequestSent).toBe(true);
    expect(error.message).toBe(`backend ${CHAT}: could not connect`);
    expect(error.userMessage).toBe("could not reach the chatbot");
    expect((error.cause as Error).message).toMatch(/^Error ECONNREFUSED: connect ECONNREFUSED /);
    const streamed = await collect(refused, { question: "hi" });
    expect((streamed.error as NetworkError).beforeRequestSent).toBe(true);
  });

  it("retries a refused connection, then sends the question once", async () => {
    const port = await refusedPort();
    let late: Promise<RawBackend> | undefined;
    const retrying = testClient(`http://127.0.0.1:${port}`, {
      retry: {
        attempts: 3,
        baseDelayMs: 50,
        maxDelayMs: 50,
        // The server comes up while the client waits to retry.
        onRetry: () => {
          late ??= startRawBackend(ok(ANSWER_DATA), port);
        },
      },
    });
    extra.push(retrying);
    const answer = await retrying.chat({ question: "hi" });
    const server = await (late as Promise<RawBackend>);
    extra.push(server);
    expect(answer.conversationUid).toBe("conv-7");
    expect(server.requests).toHaveLength(1);
  });
});

describe("HTTP status", () => {
  it.each([
    [401, AuthenticationError, "the chatbot rejected the API key (HTTP 401)"],
    [
      403,
      PermissionError,
      "the chatbot refused access (HTTP 403): chatting needs a paid subscription on the chatbot account",
    ],
    [404, NotFoundError, "the chatbot was not found (HTTP 404): check the base URL and the bot id"],
    [500, ServerError, "the chatbot service failed (HTTP 500); please try again later"],
  ])("%i is %o for chat, streamChat and leads", async (status, type, userMessage) => {
    backend.handle((ctx) => ctx.json(status, { code: status, msg: "nope" }));
    const chat = await failure(client.chat({ question: "hi" }));
    const stream = (await collect(client, { question: "hi" })).error;
    const leads = await failure(client.leads());
    for (const error of [chat, stream, leads]) {
      expect(error).toBeInstanceOf(type);
      expect(error?.userMessage).toBe(userMessage);
    }
    expect(chat.message).toBe(`backend ${CHAT}: HTTP ${status}`);
    expect(leads.message).toBe(`backend ${LEADS}: HTTP ${status}`);
    // 500 is retried for leads only: three tries.
    expect(backend.requests).toHaveLength(status === 500 ? 5 : 3);
    expect(backend.requests.every((r) => r.headers.authorization === `Bearer ${API_KEY}`)).toBe(
      true,
    );
  });
});

describe("leads", () => {
  it("sends no paging by default and reads the page the server chose", async () => {
    backend.handle(ok(leadsPage()));
    const page = await client.leads();
    expect(backend.requests[0]?.url).toBe(LEADS);
    expect(backend.requests[0]?.method).toBe("GET");
    expect(page).toEqual({
      leads: [
        {
          botUid: "bot/1 x",
          conversationUid: "conv-1",
          createdAt: "2024-05-01T10:00:00+00:00",
          name: "Ana",
          phone: "+33 6 00 00 00 00",
          email: "ana@example.com",
          remark: "",
        },
      ],
      page: 1,
      pageSize: 10,
      total: 31,
    });
  });

  it("puts dates and paging in the query string", async () => {
    backend.handle(ok(leadsPage(2, 5)));
    const page = await client.leads({
      startDate: "2024-05-01",
      endDate: "2024-05-31",
      page: 2,
      pageSize: 5,
    });
    expect(backend.requests[0]?.url).toBe(
      `${LEADS}?start_date=2024-05-01&end_date=2024-05-31&page=2&page_size=5`,
    );
    expect(page.pageSize).toBe(5);
  });

  it.each([
    [{ startDate: "2024-5-1" }, 'the start date "2024-5-1" is not a date of the form YYYY-MM-DD'],
    [{ endDate: "2024-02-30" }, 'the end date "2024-02-30" is not a date of the form YYYY-MM-DD'],
    [
      { startDate: "2024-06-01", endDate: "2024-05-01" },
      "the start date 2024-06-01 is after the end date 2024-05-01",
    ],
    [{ page: 0 }, "the page must be a whole number of at least 1, not 0"],
    [{ pageSize: 2.5 }, "the page size must be a whole number of at least 1, not 2.5"],
  ])("rejects %j before any request", async (query, message) => {
    const error = await failure(client.leads(query));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.message).toBe(message);
    expect(backend.requests).toHaveLength(0);
  });

  it("retries a 500 and a dropped connection, then succeeds", async () => {
    backend.handle((ctx) => {
      if (ctx.hit === 1) ctx.json(500, {});
      else if (ctx.hit === 2) ctx.destroy();
      else ctx.json(200, { code: 0, data: leadsPage() });
    });
    expect((await client.leads()).total).toBe(31);
    expect(backend.requests).toHaveLength(3);
  });

  it.each([400, 401])("does not retry a %i", async (status) => {
    backend.handle((ctx) => ctx.json(status, {}));
    await failure(client.leads());
    expect(backend.requests).toHaveLength(1);
  });

  it("does not retry an ApiError or a malformed page", async () => {
    backend.handle((ctx) => ctx.json(200, { code: 3, msg: "bad range" }));
    expect((await failure(client.leads())).message).toBe(`backend ${LEADS}: code 3: bad range`);
    backend.handle(ok({ leads: [{ name: "x" }], page: 1, page_size: 10, total: 1 }));
    expect(await failure(client.leads())).toBeInstanceOf(ProtocolError);
    expect(backend.requests).toHaveLength(2);
  });
});

describe("base URL", () => {
  it("joins a path prefix with or without a trailing slash", async () => {
    backend.handle(ok(leadsPage()));
    for (const base of [`${backend.url}/proxy`, `${backend.url}/proxy/`]) {
      const prefixed = createBackendClient({ baseUrl: base, apiKey: API_KEY, botUid: BOT_UID });
      extra.push(prefixed);
      await prefixed.leads();
    }
    expect(backend.requests.map((r) => r.url)).toEqual([`/proxy${LEADS}`, `/proxy${LEADS}`]);
  });

  it("refuses response headers larger than maxHttpHeaderBytes", async () => {
    const small = testClient(backend.url, { maxHttpHeaderBytes: 1024 });
    extra.push(small);
    backend.handle((ctx) =>
      ctx.json(200, { code: 0, data: {} }, { "x-padding": "p".repeat(4096) }),
    );
    const error = await failure(small.chat({ question: "hi" }));
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.message).toBe(`backend ${CHAT}: protocol error: response headers too large`);
  });

  it("closes twice without complaint", async () => {
    await client.close();
    await client.close();
  });
});
