import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { STREAM_DELIMITER } from "../../src/backend/stream-parser.ts";
import type { BackendClient } from "../../src/backend/types.ts";
import {
  AbortedError,
  AnswerCutError,
  ApiError,
  NetworkError,
  ProtocolError,
} from "../../src/errors.ts";
import { type RawBackend, type ScriptContext, startRawBackend } from "../support/raw-backend.ts";
import {
  ANSWER,
  API_KEY,
  BOT_PATH,
  collect,
  HEADER,
  HEADER_JSON,
  streamBody,
  testClient,
  within,
} from "./fixtures.ts";

const CHAT = `${BOT_PATH}/chat`;

let backend: RawBackend;
let client: BackendClient;

beforeEach(async () => {
  backend = await startRawBackend();
  client = testClient(backend.url);
});

afterEach(async () => {
  await client.close();
  await backend.close();
});

/** A script that writes `parts` as separate chunks, then ends the response. */
function writes(...parts: (string | Uint8Array)[]) {
  return writesPaced(5, ...parts);
}

function writesPaced(pauseMs: number, ...parts: (string | Uint8Array)[]) {
  return async (ctx: ScriptContext) => {
    ctx.res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    for (const part of parts) await ctx.write(part, pauseMs);
    ctx.res.end();
  };
}

/**
 * A backend that sends the header and `text`, then holds its response open; the function
 * returned waits until the server sees the client close the connection.
 */
function holdOpenAfter(text: string): () => Promise<void> {
  let closed: Promise<void> = Promise.resolve();
  backend.handle(async (ctx) => {
    closed = ctx.closedPromise;
    ctx.res.writeHead(200);
    await ctx.write(streamBody(HEADER_JSON, text));
    await ctx.closedPromise;
  });
  return () => within(closed, 2_000, "the server to see the connection close");
}

const ask = (signal?: AbortSignal, onText?: (text: string) => boolean) =>
  collect(client, { question: "Où est la gare ?", language: "fr", signal }, onText);

describe("streamChat over HTTP", () => {
  it("sends the question with the key and gets header then text", async () => {
    backend.handle(writes(streamBody()));
    const result = await collect(client, {
      question: "Où est la gare ?",
      conversationUid: "conv-41",
      language: "fr",
    });
    expect(result.error).toBeUndefined();
    expect(result.events[0]).toEqual({ type: "header", header: HEADER });
    expect(result.text).toBe(ANSWER);
    const [request] = backend.requests;
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe(CHAT);
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(request?.body ?? "")).toEqual({
      q: "Où est la gare ?",
      conversation_uid: "conv-41",
      language: "fr",
      stream: true,
    });
  });

  it("reads the stream split into two chunks at every byte", async () => {
    const body = streamBody();
    const chunks: number[] = [];
    const onChunk = (message: unknown) => {
      chunks.push((message as { chunk: Buffer }).chunk.length);
    };
    subscribe("undici:request:bodyChunkReceived", onChunk);
    try {
      for (let at = 1; at < body.length; at++) {
        backend.handle(writesPaced(1, body.subarray(0, at), body.subarray(at)));
        // A loaded machine may merge the two writes into one read; such a split is retried
        // so that every byte index is really crossed once.
        for (let tries = 0; ; tries++) {
          chunks.length = 0;
          const result = await ask();
          expect(result.error, `split at ${at}`).toBeUndefined();
          expect(result.header, `split at ${at}`).toEqual(HEADER);
          expect(result.text, `split at ${at}`).toBe(ANSWER);
          if (chunks.length === 2 || tries === 5) {
            expect(chunks, `split at ${at}`).toEqual([at, body.length - at]);
            break;
          }
        }
      }
    } finally {
      unsubscribe("undici:request:bodyChunkReceived", onChunk);
    }
  });

  it("keeps the delimiter text inside the answer and accepts an empty answer", async () => {
    const answer = `see ${STREAM_DELIMITER} here`;
    backend.handle(writes(streamBody(HEADER_JSON, answer)));
    expect((await ask()).text).toBe(answer);

    backend.handle(writes(streamBody(HEADER_JSON, "")));
    const empty = await ask();
    expect(empty.events).toEqual([{ type: "header", header: HEADER }]);
    expect(empty.error).toBeUndefined();
  });

  it("hands on the text so far, then AnswerCutError, when the connection drops", async () => {
    backend.handle(async (ctx) => {
      ctx.res.writeHead(200);
      await ctx.write(streamBody(HEADER_JSON, "Bonjour, la "));
      await ctx.write("gare est");
      ctx.destroy();
    });
    const result = await ask();
    expect(result.header).toEqual(HEADER);
    expect(result.text).toBe("Bonjour, la gare est");
    expect(result.error).toBeInstanceOf(AnswerCutError);
    const reason = (result.error as AnswerCutError).reason;
    expect(reason).toBeInstanceOf(NetworkError);
    expect((reason as NetworkError).beforeRequestSent).toBe(false);
    expect(result.error?.userMessage).toBe("answer cut off: connection lost");
    expect(backend.requests).toHaveLength(1);
  });

  it.each([
    [{ code: 1001, msg: "not subscribed" }, "code 1001: not subscribed"],
    [{ code: 1002, message: "bot busy" }, "code 1002: bot busy"],
    [{ code: 1003 }, "code 1003"],
  ])("throws ApiError for an envelope %j instead of a stream", async (envelope, text) => {
    backend.handle((ctx) => ctx.json(200, { ...envelope, request_id: "r1" }));
    const result = await ask();
    expect(result.events).toEqual([]);
    expect(result.error).toBeInstanceOf(ApiError);
    expect(result.error?.message).toBe(`backend ${CHAT}: ${text}`);
  });

  it("gives up on a body with no delimiter within the limit and closes it", async () => {
    await client.close();
    client = testClient(backend.url, { maxStreamHeaderBytes: 4096 });
    let written = 0;
    let sawClose: Promise<void> = Promise.resolve();
    backend.handle(async (ctx) => {
      sawClose = ctx.closedPromise;
      ctx.res.writeHead(200);
      while (!ctx.closed) {
        await ctx.write("a".repeat(1024), 1);
        written += 1024;
      }
    });
    const result = await ask();
    expect(result.error).toBeInstanceOf(ProtocolError);
    expect(result.error?.message).toBe(
      `backend ${CHAT}: protocol error: no stream delimiter within 4096 bytes`,
    );
    await within(sawClose, 2_000, "the server to see the connection close");
    expect(written).toBeLessThan(64 * 1024);
  });

  it("throws ProtocolError for a header that is not JSON", async () => {
    backend.handle(writes(`<html>${STREAM_DELIMITER}hi`));
    const notJson = await ask();
    expect(notJson.error?.message).toBe(
      `backend ${CHAT}: protocol error: stream header is not JSON`,
    );
    expect(notJson.error?.userMessage).toBe("the chatbot sent a response this bot cannot read");
  });

  it.each([
    ["absent", { question: "q", is_qa_mode: false }],
    ["null", { question: "q", conversation_uid: null }],
    ["a number", { question: "q", conversation_uid: 42 }],
    ["empty", { question: "q", conversation_uid: "" }],
  ])(
    "hands on the answer of a header whose conversation_uid is %s, naming none",
    async (_, header) => {
      backend.handle(writes(streamBody(header, "Voici la réponse.")));
      const result = await ask();
      expect(result.error).toBeUndefined();
      expect(result.header?.conversationUid).toBeUndefined();
      expect(result.text).toBe("Voici la réponse.");
    },
  );

  it("aborts mid-stream: text so far, AnswerCutError(AbortedError), socket released", async () => {
    const connectionClosed = holdOpenAfter("Première partie");
    const controller = new AbortController();
    const result = await ask(controller.signal, () => {
      controller.abort();
      return true;
    });
    expect(result.events).toEqual([
      { type: "header", header: HEADER },
      { type: "text", text: "Première partie" },
    ]);
    expect(result.error).toBeInstanceOf(AnswerCutError);
    expect((result.error as AnswerCutError).reason).toBeInstanceOf(AbortedError);
    expect(result.error?.userMessage).toBe("answer cut off: interrupted");
    await connectionClosed();
  });

  it("aborts while waiting for headers as AbortedError", async () => {
    backend.handle(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await ask(controller.signal);
    expect(result.error).toBeInstanceOf(AbortedError);
    expect(result.error?.userMessage).toBe("interrupted");
  });

  it("closes the request when the reader reads no further, and ends the answer there", async () => {
    const connectionClosed = holdOpenAfter("un");
    const result = await within(
      ask(undefined, () => false),
      2_000,
      "the answer to end",
    );
    expect(result.events).toEqual([
      { type: "header", header: HEADER },
      { type: "text", text: "un" },
    ]);
    expect(result.error).toBeUndefined();
    await connectionClosed();
  });

  it("passes a reader's own error on as it is, not as the backend's, and closes the request", async () => {
    const connectionClosed = holdOpenAfter("un");
    const bug = new TypeError("a bug in the bridge");
    const answering = client.streamChat(
      { question: "Où est la gare ?" },
      {
        header: () => undefined,
        text: () => {
          throw bug;
        },
      },
    );
    await expect(within(answering, 2_000, "the answer to end")).rejects.toBe(bug);
    await connectionClosed();
  });
});
