import { describe, it } from "vitest";
import type { BackendClientOptions } from "../../src/backend/client.ts";
import { AnswerCutError, ServerError, TimeoutError } from "../../src/errors.ts";
import { type Script, startRawBackend } from "../support/raw-backend.ts";
import {
  BOT_PATH,
  collect,
  failure,
  HEADER_JSON,
  streamBody,
  testClient,
  within,
} from "./fixtures.ts";

const CHAT = `${BOT_PATH}/chat`;

// undici checks its header and body timeouts on a 500 ms tick, so a 200 ms timeout fires
// after 0.5 to 1 s: these tests run side by side to keep the suite quick.
describe.concurrent("timeouts and waits", () => {
  async function setup(
    script: Script,
    options: Partial<BackendClientOptions>,
    onTestFinished: (fn: () => Promise<void>) => void,
  ) {
    const backend = await startRawBackend(script);
    const client = testClient(backend.url, options);
    onTestFinished(async () => {
      await client.close();
      await backend.close();
    });
    return { backend, client };
  }

  it("times out waiting for the headers", async ({ expect, onTestFinished }) => {
    const { backend, client } = await setup(() => {}, { timeoutMs: 200 }, onTestFinished);
    const result = await collect(client, { question: "hi" });
    expect(result.error).toBeInstanceOf(TimeoutError);
    expect((result.error as TimeoutError).phase).toBe("headers");
    expect(result.error?.message).toBe(`backend ${CHAT}: no response within 200 ms`);
    expect(result.error?.userMessage).toBe("the chatbot did not respond in time");
    // The question may have reached the server: never sent twice.
    expect(backend.requests).toHaveLength(1);
  });

  it("times out on silence before the header as TimeoutError('idle')", async ({
    expect,
    onTestFinished,
  }) => {
    const script: Script = async (ctx) => {
      ctx.res.writeHead(200);
      await ctx.write('{"conversation_uid":');
    };
    const { client } = await setup(script, { idleTimeoutMs: 200 }, onTestFinished);
    const result = await collect(client, { question: "hi" });
    expect(result.error).toBeInstanceOf(TimeoutError);
    expect((result.error as TimeoutError).phase).toBe("idle");
    expect(result.error?.message).toBe(`backend ${CHAT}: stream silent for 200 ms`);
    expect(result.events).toEqual([]);
  });

  it("cuts the answer on silence after the header", async ({ expect, onTestFinished }) => {
    const script: Script = async (ctx) => {
      ctx.res.writeHead(200);
      await ctx.write(streamBody(HEADER_JSON, "Le train part à"));
    };
    const { client } = await setup(script, { idleTimeoutMs: 200 }, onTestFinished);
    const result = await collect(client, { question: "hi" });
    expect(result.text).toBe("Le train part à");
    expect(result.error).toBeInstanceOf(AnswerCutError);
    expect((result.error as AnswerCutError).reason).toBeInstanceOf(TimeoutError);
    expect(result.error?.message).toBe(`answer cut off: backend ${CHAT}: stream silent for 200 ms`);
    expect(result.error?.userMessage).toBe("answer cut off: the chatbot stopped sending");
  });

  it("cuts an answer that drips past the answer deadline and closes the connection", async ({
    expect,
    onTestFinished,
  }) => {
    let closed: Promise<void> = Promise.resolve();
    // One byte every 20 ms: never silent long enough for the idle timeout, never done.
    const script: Script = async (ctx) => {
      closed = ctx.closedPromise;
      ctx.res.writeHead(200);
      await ctx.write(streamBody(HEADER_JSON, "Le train"));
      for (let i = 0; i < 100 && !ctx.closed; i++) await ctx.write(".", 20);
      ctx.res.end();
    };
    const { client } = await setup(
      script,
      { idleTimeoutMs: 2_000, answerTimeoutMs: 400 },
      onTestFinished,
    );
    const result = await within(collect(client, { question: "hi" }), 4_000, "the answer deadline");
    expect(result.text).toMatch(/^Le train\.*$/);
    expect(result.error).toBeInstanceOf(AnswerCutError);
    const reason = (result.error as AnswerCutError).reason;
    expect(reason).toBeInstanceOf(TimeoutError);
    expect((reason as TimeoutError).phase).toBe("answer");
    expect(result.error?.message).toBe(
      `answer cut off: backend ${CHAT}: answer longer than 400 ms`,
    );
    expect(result.error?.userMessage).toBe("answer cut off: the chatbot took longer than 400 ms");
    await within(closed, 2_000, "the backend connection to close");
  });

  it("gives up before the header once the answer deadline passes", async ({
    expect,
    onTestFinished,
  }) => {
    const script: Script = async (ctx) => {
      ctx.res.writeHead(200);
      for (let i = 0; i < 100 && !ctx.closed; i++) await ctx.write(" ", 20);
      ctx.res.end();
    };
    const { client } = await setup(
      script,
      { idleTimeoutMs: 2_000, answerTimeoutMs: 300 },
      onTestFinished,
    );
    const result = await within(collect(client, { question: "hi" }), 4_000, "the answer deadline");
    expect(result.error).toBeInstanceOf(TimeoutError);
    expect((result.error as TimeoutError).phase).toBe("answer");
    expect(result.events).toEqual([]);
  });

  it("retries leads after a headers timeout", async ({ expect, onTestFinished }) => {
    const script: Script = (ctx) => {
      if (ctx.hit > 1)
        ctx.json(200, { code: 0, data: { leads: [], page: 1, page_size: 10, total: 0 } });
    };
    const { backend, client } = await setup(script, { timeoutMs: 200 }, onTestFinished);
    expect((await client.leads()).total).toBe(0);
    expect(backend.requests).toHaveLength(2);
  });

  it("waits as long as a 429's Retry-After says before trying leads again", async ({
    expect,
    onTestFinished,
  }) => {
    const at: number[] = [];
    const script: Script = (ctx) => {
      at.push(Date.now());
      if (ctx.hit === 1) ctx.json(429, {}, { "retry-after": "1" });
      else ctx.json(200, { code: 0, data: { leads: [], page: 1, page_size: 10, total: 0 } });
    };
    const { backend, client } = await setup(script, {}, onTestFinished);
    expect((await client.leads()).page).toBe(1);
    expect(backend.requests).toHaveLength(2);
    expect((at[1] ?? 0) - (at[0] ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it("gives up when Retry-After asks for longer than the cap", async ({
    expect,
    onTestFinished,
  }) => {
    const script: Script = (ctx) => ctx.json(429, {}, { "retry-after": "120" });
    const { backend, client } = await setup(script, {}, onTestFinished);
    const error = await failure(client.leads());
    expect(error).toBeInstanceOf(ServerError);
    expect(error.userMessage).toBe("the chatbot is busy (HTTP 429); please try again shortly");
    expect(backend.requests).toHaveLength(1);
  });
});
