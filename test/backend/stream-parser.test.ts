import { describe, expect, it } from "vitest";
import {
  ChatStreamParser,
  type ChatStreamParserOptions,
  STREAM_DELIMITER,
} from "../../src/backend/stream-parser.ts";
import { ApiError, ProtocolError } from "../../src/errors.ts";
import {
  ANSWER,
  type Collected,
  collected,
  HEADER,
  HEADER_JSON,
  recordError,
  recorder,
  streamBody,
} from "./fixtures.ts";

const path = "/api/v1/backend/chatbot/b/chat";

/** Pushes `chunks` into a parser, then ends the body; a throw ends it and is returned. */
function parseChunks(
  chunks: Iterable<string | Uint8Array>,
  options: ChatStreamParserOptions = { path },
): Collected {
  const result = collected();
  const parser = new ChatStreamParser(recorder(result), options);
  try {
    for (const chunk of chunks) {
      parser.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
    }
    parser.end();
  } catch (error) {
    recordError(result, error);
  }
  return result;
}

const parse = (...parts: (string | Uint8Array)[]) => parseChunks(parts);

describe("ChatStreamParser", () => {
  it("reads the delimiter as the two spec halves joined", () => {
    expect(STREAM_DELIMITER).toBe("645130146e8d07b175fd8b1d5682d520");
  });

  it("hands on the header first, then the answer, for a split at every byte", () => {
    const body = streamBody();
    for (let at = 0; at <= body.length; at++) {
      const result = parse(body.subarray(0, at), body.subarray(at));
      expect(result.error, `split at ${at}`).toBeUndefined();
      expect(result.events[0]).toEqual({ type: "header", header: HEADER });
      expect(result.text, `split at ${at}`).toBe(ANSWER);
      // Pieces are whole characters: no replacement character from a split sequence.
      expect(result.events.slice(1).every((e) => e.type === "text" && e.text !== "")).toBe(true);
    }
  });

  it("survives one byte per chunk", () => {
    const body = streamBody();
    const bytes = Array.from({ length: body.length }, (_, i) => body.subarray(i, i + 1));
    const result = parse(...bytes);
    expect(result.header).toEqual(HEADER);
    expect(result.text).toBe(ANSWER);
  });

  it("keeps later copies of the delimiter as answer text", () => {
    const answer = `a${STREAM_DELIMITER}b${STREAM_DELIMITER}`;
    const result = parse(streamBody(HEADER_JSON, answer));
    expect(result.header).toEqual(HEADER);
    expect(result.text).toBe(answer);
  });

  it("accepts an empty answer", () => {
    const result = parse(streamBody(HEADER_JSON, ""));
    expect(result.events).toEqual([{ type: "header", header: HEADER }]);
    expect(result.error).toBeUndefined();
  });

  it("defaults the optional header fields", () => {
    const result = parse(streamBody({ conversation_uid: "c1" }, "hi"));
    expect(result.header).toEqual({
      conversationUid: "c1",
      question: "",
      isQaMode: false,
      systemMessage: "",
      relatedDocs: [],
    });
    expect(result.text).toBe("hi");
  });

  it("unwraps a header sent as a JSON-encoded string", () => {
    const result = parse(streamBody(JSON.stringify(JSON.stringify(HEADER_JSON)), "x"));
    expect(result.header).toEqual(HEADER);
  });

  it("unwraps a header wrapped in a success envelope", () => {
    const result = parse(streamBody({ code: 0, msg: "ok", data: HEADER_JSON }, "x"));
    expect(result.header).toEqual(HEADER);
    expect(result.text).toBe("x");
  });

  it("throws ApiError for an error envelope in the header position", () => {
    const result = parse(streamBody({ code: 1003, msg: "bot disabled" }, ""));
    expect(result.error).toBeInstanceOf(ApiError);
    expect(result.error?.message).toBe(`backend ${path}: code 1003: bot disabled`);
    expect(result.events).toEqual([]);
  });

  it.each([
    [
      { code: 4001, msg: "quota exceeded" },
      "code 4001: quota exceeded",
      "(code 4001): quota exceeded",
    ],
    [
      { code: 4002, message: "bad question" },
      "code 4002: bad question",
      "(code 4002): bad question",
    ],
    [{ code: 4003, data: null }, "code 4003", "(code 4003)"],
  ])("throws ApiError for an envelope instead of a stream: %j", (envelope, text, shown) => {
    const json = JSON.stringify(envelope);
    const result = parse(json.slice(0, 5), json.slice(5));
    expect(result.error).toBeInstanceOf(ApiError);
    expect(result.error?.message).toBe(`backend ${path}: ${text}`);
    expect(result.error?.userMessage).toBe(`the chatbot returned an error ${shown}`);
  });

  it("throws ProtocolError for a success envelope instead of a stream", () => {
    const result = parse(JSON.stringify({ code: 0, msg: "ok", data: {} }));
    expect(result.error).toBeInstanceOf(ProtocolError);
    expect(result.error?.message).toBe(
      `backend ${path}: protocol error: an envelope with code 0 came instead of a stream`,
    );
  });

  it("throws ProtocolError for text that is neither stream nor envelope, and for nothing", () => {
    const junk = parse("<html>Bad gateway</html>");
    expect(junk.error?.message).toBe(
      `backend ${path}: protocol error: stream ended before the delimiter`,
    );
    const empty = parse();
    expect(empty.error?.message).toBe(`backend ${path}: protocol error: empty response`);
    expect(empty.error?.userMessage).toBe("the chatbot sent a response this bot cannot read");
  });

  it("throws ProtocolError when the header is not JSON", () => {
    const result = parse(`{conversation_uid: c1${STREAM_DELIMITER}hello`);
    expect(result.error).toBeInstanceOf(ProtocolError);
    expect(result.error?.message).toBe(
      `backend ${path}: protocol error: stream header is not JSON`,
    );
    expect(result.events).toEqual([]);
  });

  it.each([[{ question: "q" }], [{ conversation_uid: "" }], [{ conversation_uid: 42 }]])(
    "reads a header without a usable conversation_uid as naming none: %j",
    (header) => {
      const result = parse(streamBody(header, "hello"));
      expect(result.error).toBeUndefined();
      expect(result.header?.conversationUid).toBeUndefined();
      expect(result.text).toBe("hello");
    },
  );

  it("stops at the header limit without buffering an endless body", () => {
    let pulled = 0;
    function* endless(): Generator<Uint8Array> {
      const kib = Buffer.alloc(1024, "a");
      for (;;) {
        pulled += kib.length;
        yield kib;
      }
    }
    const result = parseChunks(endless(), { path, maxHeaderBytes: 8 * 1024 });
    expect(result.error).toBeInstanceOf(ProtocolError);
    expect(result.error?.message).toBe(
      `backend ${path}: protocol error: no stream delimiter within 8192 bytes`,
    );
    expect(pulled).toBe(9 * 1024);
  });

  it("still finds a delimiter that ends right at the limit", () => {
    const header = JSON.stringify({ conversation_uid: "c1", question: "x".repeat(100) });
    const body = streamBody(header, "ok");
    const limit = Buffer.byteLength(header);
    const split = limit + 10; // mid-delimiter
    const result = parseChunks([body.subarray(0, split), body.subarray(split)], {
      path,
      maxHeaderBytes: limit,
    });
    expect(result.error).toBeUndefined();
    expect(result.text).toBe("ok");
  });
});
