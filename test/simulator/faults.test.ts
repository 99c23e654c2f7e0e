import { describe, expect, it } from "vitest";
import { FAULT_DIRECTIVES, parseFaults } from "../../src/simulator/index.ts";
import {
  chat,
  chatJson,
  DELIMITER,
  getJson,
  joined,
  leadsPath,
  parseStream,
  readChunks,
  simulator,
} from "./helpers.ts";

describe("simulator: fault directives", () => {
  it("parses directives anywhere in the text and ignores other hashtags", () => {
    expect(parseFaults("Tell me #STATUS=503 about C# and #1 priority #cut, #huge=12")).toEqual({
      status: 503,
      cut: true,
      huge: 12,
    });
    expect(parseFaults("#status=200 #code=0 #nonsense #huge")).toEqual({});
    expect(FAULT_DIRECTIVES.map((d) => d.directive)).toContain("#split-delimiter");
  });

  it("#status=500 answers HTTP 500 with an envelope; 503 adds Retry-After; 502 is a proxy page", async () => {
    const sim = await simulator();
    const failed = await chatJson(sim, { q: "boom #status=500", stream: true });
    expect(failed.status).toBe(500);
    expect(failed.body).toMatchObject({ code: 500, data: {}, msg: "internal server error" });
    const busy = await chat(sim, { q: "#status=503" });
    expect(busy.status).toBe(503);
    expect(busy.headers.get("retry-after")).toBe("1");
    const gateway = await chat(sim, { q: "#status=502" });
    expect(gateway.headers.get("content-type")).toBe("text/html");
    expect(await gateway.text()).toContain("<h1>502</h1>");
  });

  it("#code=N answers HTTP 200 with envelope code N, streaming or not", async () => {
    const sim = await simulator();
    for (const stream of [false, true]) {
      const reply = await chatJson(sim, { q: "#code=1234", stream });
      expect(reply.status).toBe(200);
      expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(reply.body).toMatchObject({
        code: 1234,
        data: {},
        msg: "simulated error (code 1234)",
      });
    }
  });

  it("#cut ends the connection after some of the answer", async () => {
    const sim = await simulator();
    const res = await chat(sim, { q: "Cut me #cut", stream: true });
    const { chunks, error } = await readChunks(res);
    expect(error).toBeInstanceOf(Error);
    const { header, answer } = parseStream(joined(chunks));
    expect(header.question).toBe("Cut me #cut");
    expect(answer.startsWith("Hello! **This is the simulated chatbot.**")).toBe(true);
    expect(answer).not.toContain("to see more.");
    await expect.poll(() => sim.requests[0]?.outcome).toBe("aborted");
  });

  it("#cut also cuts a non-streamed body short of its Content-Length", async () => {
    const sim = await simulator();
    const res = await chat(sim, { q: "#cut" });
    await expect(res.text()).rejects.toThrow();
  });

  it("#split-delimiter delivers the delimiter in two separate reads", async () => {
    const sim = await simulator();
    const res = await chat(sim, { q: "Split #split-delimiter", stream: true });
    const { chunks, error } = await readChunks(res);
    expect(error).toBeUndefined();
    const texts = chunks.map((chunk) => Buffer.from(chunk).toString("utf8"));
    const first = texts.findIndex((text) => text.endsWith(DELIMITER.slice(0, 13)));
    expect(first).toBeGreaterThanOrEqual(0);
    expect(texts[first + 1]?.startsWith(DELIMITER.slice(13))).toBe(true);
    expect(texts.some((text) => text.includes(DELIMITER))).toBe(false);
    expect(parseStream(texts.join("")).answer).toContain("You asked: “Split #split-delimiter”");
  });

  it("#split-utf8 cuts multi-byte characters across reads", async () => {
    const sim = await simulator();
    const res = await chat(sim, { q: "Ünïcödé #split-utf8", stream: true });
    const { chunks } = await readChunks(res);
    const strict = new TextDecoder("utf-8", { fatal: true });
    const broken = chunks.filter((chunk) => {
      try {
        strict.decode(chunk);
        return false;
      } catch {
        return true;
      }
    });
    expect(broken.length).toBeGreaterThan(0);
    expect(parseStream(joined(chunks)).header.question).toBe("Ünïcödé #split-utf8");
  });

  it("#stall stops mid-answer until the client goes away", async () => {
    const sim = await simulator();
    const abort = new AbortController();
    const res = await chat(sim, { q: "#stall", stream: true }, { signal: abort.signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const { value } = await reader.read();
    expect(Buffer.from(value as Uint8Array).toString()).toContain(DELIMITER);
    await expect.poll(() => sim.openResponses()).toBe(1);
    abort.abort();
    await expect.poll(() => sim.openResponses()).toBe(0);
    expect(sim.requests[0]?.outcome).toBe("aborted");
  });

  it("#pause=MS stops half-way, then finishes", async () => {
    const sim = await simulator();
    const started = Date.now();
    const res = await chat(sim, { q: "#pause=150", stream: true });
    const { chunks, error } = await readChunks(res);
    expect(error).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(parseStream(joined(chunks)).answer.endsWith("to see more.")).toBe(true);
  });

  it("#stall-headers never sends headers", async () => {
    const sim = await simulator();
    const started = Date.now();
    await expect(
      chat(sim, { q: "#stall-headers" }, { signal: AbortSignal.timeout(150) }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    await expect.poll(() => sim.requests[0]?.status).toBe(undefined);
  });

  it("#huge=N, #empty, #no-delimiter and #bad-header shape the answer", async () => {
    const sim = await simulator();
    const huge = parseStream(
      joined((await readChunks(await chat(sim, { q: "#huge=5000", stream: true }))).chunks),
    );
    expect(huge.answer).toHaveLength(5000);
    expect(huge.answer.startsWith("Paragraph 1. ")).toBe(true);
    expect(huge.answer).toContain("\n\nParagraph 2. ");

    const empty = parseStream(
      joined((await readChunks(await chat(sim, { q: "#empty", stream: true }))).chunks),
    );
    expect(empty.answer).toBe("");
    expect((await chatJson(sim, { q: "#empty" })).body.data.answer).toBe("");

    const bare = joined(
      (await readChunks(await chat(sim, { q: "#no-delimiter", stream: true }))).chunks,
    );
    expect(bare).not.toContain(DELIMITER);
    expect(bare.startsWith('{"answer":"","question":"#no-delimiter"')).toBe(true);

    const bad = joined(
      (await readChunks(await chat(sim, { q: "#bad-header", stream: true }))).chunks,
    );
    expect(() => parseStream(bad)).toThrow(SyntaxError);
    await expect((await chat(sim, { q: "#bad-header" })).json()).rejects.toThrow(SyntaxError);
  });

  it("applies server-wide and one-shot faults to leads", async () => {
    const sim = await simulator({ leadsFaults: "#status=500" });
    expect((await getJson(sim, leadsPath())).status).toBe(500);
    sim.setFaults("", "leads");
    sim.queueFault("#code=77", "leads");
    expect((await getJson(sim, leadsPath())).body.code).toBe(77);
    expect((await getJson(sim, leadsPath())).body.code).toBe(0);
  });

  it("applies server-wide chat faults under the question's own", async () => {
    const sim = await simulator({ faults: "#docs #system" });
    const reply = await chatJson(sim, { q: "plain" });
    expect(reply.body.data.is_qa_mode).toBe(true);
    expect(reply.body.data.system_message).not.toBe("");
    sim.queueFault("#status=429");
    expect((await chatJson(sim, { q: "again" })).status).toBe(429);
    expect((await chat(sim, { q: "#status=503" })).status).toBe(503);
    expect((await chatJson(sim, { q: "fine" })).status).toBe(200);
  });
});
