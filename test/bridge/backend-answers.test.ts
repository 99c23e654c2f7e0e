import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createBackendClient } from "../../src/backend/client.ts";
import { STREAM_DELIMITER } from "../../src/backend/stream-parser.ts";
import type { Bridge } from "../../src/bridge/bridge.ts";
import { createLogger } from "../../src/log.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { Store } from "../../src/store/types.ts";
import { within } from "../backend/fixtures.ts";
import { incoming, OPEN_BRIDGE, startBridge } from "../support/bridge-harness.ts";
import {
  HIDDEN_CHARACTER,
  INVISIBLE_ANSWER,
  INVISIBLE_ANSWER_SHOWN,
  KEPT_SEQUENCES,
} from "../support/invisible-text.ts";
import { MemorySurface } from "../support/memory-surface.ts";
import { type RawBackend, type Script, startRawBackend } from "../support/raw-backend.ts";

/** The pipeline over a scripted backend, with the warnings it logs. */
interface Rig {
  bridge: Bridge;
  backend: RawBackend;
  warnings: { msg: string }[];
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(
  script: Script,
  answerTimeoutMs?: number,
  maxAnswerChars?: number,
): Promise<Rig> {
  const backend = await startRawBackend(script);
  cleanups.push(() => backend.close());
  const client = createBackendClient({
    baseUrl: backend.url,
    apiKey: "key",
    botUid: "bot",
    answerTimeoutMs,
  });
  cleanups.push(() => client.close());
  const dataDir = await mkdtemp(join(tmpdir(), "bridge-test-"));
  const store: Store = await openStore({ dataDir });
  cleanups.push(async () => {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const warnings: { msg: string }[] = [];
  const log = createLogger({
    level: "warn",
    secrets: [],
    pretty: false,
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString("utf8").split("\n").filter(Boolean))
          warnings.push(JSON.parse(line));
        done();
      },
    }),
  });
  const bridge = await startBridge({
    backend: client,
    store,
    log,
    ...OPEN_BRIDGE,
    ...(maxAnswerChars && { maxAnswerChars }),
  });
  return { bridge, backend, warnings };
}

const header = (fields: Record<string, unknown>) =>
  JSON.stringify({ answer: "", question: "q", related_docs: [], is_qa_mode: false, ...fields });

/** Streams the header and then `answer` in pieces of `size` characters. */
async function stream(ctx: Parameters<Script>[0], head: string, answer: string, size = 400) {
  ctx.res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
  await ctx.write(`${head}${STREAM_DELIMITER}`, 1);
  const characters = Array.from(answer);
  for (let at = 0; at < characters.length; at += size) {
    await ctx.write(characters.slice(at, at + size).join(""), 1);
  }
  ctx.res.end();
}

describe("answers from a backend that bends the rules", () => {
  it("shows an answer whose header names no conversation, keeping the thread's conversation", async () => {
    const headers = [
      header({ conversation_uid: "conv-1" }),
      header({ conversation_uid: null }),
      header({ conversation_uid: 7 }),
      header({ conversation_uid: "conv-1" }),
    ];
    const rig = await start((ctx) => stream(ctx, headers[ctx.hit - 1] ?? "", `Answer ${ctx.hit}.`));
    const surface = new MemorySurface();
    for (const question of ["one", "two", "three", "four"]) {
      await rig.bridge.handle(incoming(question), surface);
    }
    expect(surface.messages).toEqual(["Answer 1.", "Answer 2.", "Answer 3.", "Answer 4."]);
    const sentUids = rig.backend.requests.map((r) => JSON.parse(r.body).conversation_uid);
    // The answers without one changed nothing: the thread still continues conv-1.
    expect(sentUids).toEqual([undefined, "conv-1", "conv-1", "conv-1"]);
    expect(rig.warnings.map((w) => w.msg)).toEqual([
      "the chatbot's answer named no conversation: the thread keeps its previous one",
      "the chatbot's answer named no conversation: the thread keeps its previous one",
    ]);
  });

  it("cuts an answer that drips past CHATBOT_ANSWER_TIMEOUT_MS with the cut note, and hangs up", async () => {
    let closed: Promise<void> = Promise.resolve();
    const rig = await start(async (ctx) => {
      closed = ctx.closedPromise;
      ctx.res.writeHead(200);
      await ctx.write(`${header({ conversation_uid: "c" })}${STREAM_DELIMITER}Le train`);
      // A byte every 20 ms: never idle long enough for the idle timeout, never finished.
      for (let i = 0; i < 100 && !ctx.closed; i++) await ctx.write(".", 20);
      ctx.res.end();
    }, 300);
    const surface = new MemorySurface();
    await within(rig.bridge.handle(incoming("when?"), surface), 4_000, "the answer deadline");
    expect(surface.messages).toHaveLength(1);
    expect(surface.messages[0]).toMatch(
      /^Le train\.*\n\n⚠️ answer cut off: the chatbot took longer than 300 ms$/,
    );
    await within(closed, 2_000, "the backend connection to close");
  });

  it("strips invisible characters from an answer streamed in any pieces, keeping joiners", async () => {
    for (const size of [1, 3, 400]) {
      const rig = await start((ctx) =>
        stream(ctx, header({ conversation_uid: "c" }), INVISIBLE_ANSWER, size),
      );
      const surface = new MemorySurface();
      await rig.bridge.handle(incoming("pay whom?"), surface);
      expect(surface.messages, `pieces of ${size}`).toEqual([INVISIBLE_ANSWER_SHOWN]);
      for (const sequence of KEPT_SEQUENCES) expect(surface.messages[0]).toContain(sequence);
      // The text only grows: every state shown is a prefix of the final one.
      for (const call of surface.calls) {
        expect(HIDDEN_CHARACTER.test(call.text)).toBe(false);
        if (call.text !== "…") expect(INVISIBLE_ANSWER_SHOWN.startsWith(call.text)).toBe(true);
      }
    }
  });

  it("cuts an answer past the cap with its note while the system message is on its way", async () => {
    // 80 lines that end in CRLF: 240 characters from the backend, 160 once the carriage
    // returns (hidden characters) are dropped, so past the cap of 100 either way.
    const rig = await start(
      (ctx) =>
        stream(
          ctx,
          header({ conversation_uid: "c", system_message: "Plan ends soon" }),
          "a\r\n".repeat(80),
          10,
        ),
      undefined,
      100,
    );
    class SlowNotices extends MemorySurface {
      override async notice(...args: Parameters<MemorySurface["notice"]>): Promise<void> {
        await new Promise((resolve) => setTimeout(resolve, 200));
        await super.notice(...args);
      }
    }
    const surface = new SlowNotices();
    await rig.bridge.handle(incoming("hi"), surface);
    expect(surface.notices.map((n) => n.text)).toEqual(["Plan ends soon"]);
    expect(surface.messages).toEqual([`${"a\n".repeat(50)}\n\n(truncated)`]);
  });

  it("strips invisible characters from the chatbot's system message", async () => {
    const rig = await start((ctx) =>
      stream(ctx, header({ conversation_uid: "c", system_message: "Plan\u202e ends soon" }), "ok"),
    );
    const surface = new MemorySurface();
    await rig.bridge.handle(incoming("hi"), surface);
    expect(surface.notices.map((n) => n.text)).toEqual(["Plan ends soon"]);
  });
});
