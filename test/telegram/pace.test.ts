import { afterEach, describe, expect, it } from "vitest";
import { STREAM_DELIMITER } from "../../src/backend/stream-parser.ts";
import { type Budget, RateBudget } from "../../src/coordination/call-budget.ts";
import type { WaitOptions } from "../../src/coordination/wait-queue.ts";
import { AnswerWriter } from "../../src/reply/answer-writer.ts";
import { groupBurst, median } from "../support/group-burst.ts";
import { type RawBackend, startRawBackend } from "../support/raw-backend.ts";
import { answered, groupSurface, type Rig, startRig } from "./rig.ts";

let rig: Rig | undefined;
let backend: RawBackend | undefined;
afterEach(async () => {
  await rig?.close();
  await backend?.close();
  rig = undefined;
  backend = undefined;
});

/** The calls that showed the private chat's answers, oldest first. */
function answerCalls(r: Rig) {
  return r.fake.calls.filter(
    (c) =>
      c.ok &&
      c.params.chat_id === r.dm.id &&
      ["sendMessage", "editMessageText", "sendMessageDraft"].includes(c.method),
  );
}

describe("Telegram at Telegram's pace", () => {
  it("answers ten questions at once in one group: first texts within seconds, finals next, never over the limits", async () => {
    // Time runs five times faster: Telegram's minute lasts 12 s, its second 200 ms. The fake
    // refuses a call past 20 in any minute of a group or past about one a second in a chat.
    const figures = await groupBurst({ scale: 5, answerMs: 20_000 });
    const seen = JSON.stringify(figures);

    expect(figures.exact, seen).toBe(10);
    expect(figures.floodErrors, seen).toBe(0);
    expect(figures.busiestMinute, seen).toBeLessThanOrEqual(20);
    // Telegram allows all ten first texts within about 9 s (a short burst, then one a second).
    expect(median(figures.firstTextMs), seen).toBeLessThanOrEqual(5_000);
    expect(Math.max(...figures.firstTextMs), seen).toBeLessThanOrEqual(10_000);
    // The minute's other ten calls went to the finals, not to edits that would make them wait
    // for the next minute: each answer was complete within seconds of its backend's end.
    expect(Math.max(...figures.completeAfterEndMs), seen).toBeLessThanOrEqual(15_000);
  });

  it("sends a private draft's final text for good as soon as the backend ends, not an edit interval later", async () => {
    const ends: number[] = [];
    backend = await startRawBackend(async (ctx) => {
      const header = { answer: "", question: "", related_docs: [], conversation_uid: "c" };
      ctx.res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      await ctx.write(`${JSON.stringify(header)}${STREAM_DELIMITER}`, 0);
      // Ends within the first edit interval: a quarter of a second.
      for (let i = 0; i < 6; i++) await ctx.write(`part ${i} of the answer, `, i < 5 ? 50 : 0);
      ends.push(performance.now());
      ctx.res.end();
    });
    // One draft update a second, as in production (TELEGRAM_DRAFTS=on).
    rig = await startRig({
      backend: { url: backend.url, apiKey: "k", botUid: "b" },
      channel: { privateEditIntervalMs: 1_000, drafts: true },
    });
    const { fake, alice, dm } = rig;
    const latencies: number[] = [];
    for (let i = 0; i < 3; i++) {
      await answered(rig, fake.write({ chat: dm.id, from: alice, text: `question ${i}` }));
      latencies.push((answerCalls(rig).at(-1)?.at ?? Number.POSITIVE_INFINITY) - (ends[i] ?? 0));
    }
    expect(fake.botMessages(dm.id).map((m) => m.text)).toEqual(
      Array.from({ length: 3 }, () =>
        Array.from({ length: 6 }, (_, i) => `part ${i} of the answer,`).join(" "),
      ),
    );
    expect(median(latencies.sort((a, b) => a - b))).toBeLessThan(150);
  });

  it("in a private chat at Telegram's real pace, starts the next answer at once and ends each at once", async () => {
    const firstChunks: number[] = [];
    const ends: number[] = [];
    backend = await startRawBackend(async (ctx) => {
      const header = { answer: "", question: "", related_docs: [], conversation_uid: "c" };
      ctx.res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      await ctx.write(`${JSON.stringify(header)}${STREAM_DELIMITER}`, 0);
      firstChunks.push(performance.now());
      // A draft goes with the last part, the end 50 ms after it.
      for (let i = 0; i < 9; i++) await ctx.write(`part ${i} of the answer, `, i < 8 ? 250 : 50);
      ends.push(performance.now());
      ctx.res.end();
    });
    // Telegram's own second and the production budget: drafts a second apart use the chat's
    // allowance as they go, yet the final text and the next answer's first find it.
    rig = await startRig({
      backend: { url: backend.url, apiKey: "k", botUid: "b" },
      fake: {
        limits: { chat: { perMinute: 60, burst: 3 }, group: { limit: 20, windowMs: 60_000 } },
      },
      channel: { privateEditIntervalMs: 1_000, budgets: undefined, drafts: true },
    });
    const { fake, alice, dm } = rig;
    const firstTextMs: number[] = [];
    const finalMs: number[] = [];
    const editGapsMs: number[] = [];
    for (let i = 0; i < 2; i++) {
      const asked = performance.now();
      await answered(rig, fake.write({ chat: dm.id, from: alice, text: `question ${i}` }));
      const calls = answerCalls(rig).filter((c) => c.at > asked);
      firstTextMs.push((calls[0]?.at ?? Number.POSITIVE_INFINITY) - (firstChunks[i] ?? 0));
      finalMs.push((calls.at(-1)?.at ?? Number.POSITIVE_INFINITY) - (ends[i] ?? 0));
      // Between the first text and the final one, about a draft a second.
      const growing = calls.slice(0, -1);
      editGapsMs.push(...growing.slice(1).map((c, j) => c.at - (growing[j]?.at ?? 0)));
    }
    const seen = JSON.stringify({ firstTextMs, finalMs, editGapsMs });
    expect(editGapsMs.length, seen).toBeGreaterThanOrEqual(2);
    for (const ms of editGapsMs) expect(ms, seen).toBeGreaterThanOrEqual(990);
    expect(
      fake.calls.filter((c) => c.errorCode === 429),
      seen,
    ).toEqual([]);
    for (const ms of [...firstTextMs, ...finalMs]) expect(ms, seen).toBeLessThan(150);
  });

  it("pauses the chat's budget once for one 429, for an answer and for a notice", async () => {
    rig = await startRig({ start: false });
    const { fake, group } = rig;
    const budget = new CountingBudget(new RateBudget({ perMinute: 6_000, burst: 5 }));
    const surface = groupSurface(fake, group.id, {
      budget,
      store: rig.harness.store,
      minEditIntervalMs: 10,
    });
    const tooMany = {
      chatId: group.id,
      errorCode: 429,
      description: "Too Many Requests: retry after 1",
      retryAfter: 0.1,
    };

    fake.failNext({ method: "sendMessage", ...tooMany });
    const writer = new AnswerWriter(surface, { maxAnswerChars: 10_000 });
    writer.start();
    writer.append("hello");
    await writer.finish({ kind: "complete" });
    expect(fake.botMessages(group.id).map((m) => m.text)).toEqual(["hello"]);
    expect(budget.pauses).toEqual([100]);

    fake.failNext({ method: "sendMessage", ...tooMany });
    await surface.notice("a notice");
    expect(fake.botMessages(group.id).map((m) => m.text)).toEqual(["hello", "a notice"]);
    expect(budget.pauses).toEqual([100, 100]);
  });
});

/** A budget that keeps every pause it is asked for, and otherwise is `inner`. */
class CountingBudget implements Budget {
  readonly pauses: number[] = [];
  constructor(readonly inner: Budget) {}
  acquire(options?: WaitOptions): Promise<void> {
    return this.inner.acquire(options);
  }
  pause(ms: number): void {
    this.pauses.push(ms);
    this.inner.pause(ms);
  }
  get paused(): boolean {
    return this.inner.paused;
  }
  get waiting(): number {
    return this.inner.waiting;
  }
  get idle(): boolean {
    return this.inner.idle;
  }
}
