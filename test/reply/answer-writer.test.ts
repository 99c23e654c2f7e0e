import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { RateBudget } from "../../src/coordination/call-budget.ts";
import { AnswerWriter } from "../../src/reply/answer-writer.ts";
import { MemorySurface } from "../support/memory-surface.ts";

const CAP = 100_000;

async function stream(writer: AnswerWriter, chunks: string[], gapMs: number): Promise<void> {
  for (const chunk of chunks) {
    writer.append(chunk);
    if (gapMs > 0) await sleep(gapMs);
  }
}

describe("AnswerWriter", () => {
  it("coalesces 500 tiny chunks into a handful of edits, spaced by the minimum interval", async () => {
    const surface = new MemorySurface({ limits: { minEditIntervalMs: 100 } });
    const writer = new AnswerWriter(surface, { maxAnswerChars: CAP });
    writer.start();
    const chunks = Array.from({ length: 500 }, (_, i) => `w${i} `);
    const started = performance.now();
    await stream(writer, chunks, 1);
    await writer.finish({ kind: "complete" });
    // 500 chunks take 0.5 s or, on a busy machine, several: at most an edit per interval.
    const intervals = Math.ceil((performance.now() - started) / 100);

    expect(surface.messages).toEqual([chunks.join("")]);
    expect(surface.edits).toBeGreaterThan(1);
    expect(surface.edits).toBeLessThanOrEqual(intervals + 1);
    expect(surface.edits).toBeLessThan(chunks.length / 10);
    expect(surface.tooSoon()).toEqual([]);
  });

  it("shows the first text at once, then the final text within one interval of the end", async () => {
    const surface = new MemorySurface({ limits: { minEditIntervalMs: 300 } });
    const writer = new AnswerWriter(surface, { maxAnswerChars: CAP });
    writer.start();
    await sleep(20);
    const firstAt = performance.now();
    writer.append("Hello");
    await sleep(30);
    const first = surface.calls.find((c) => c.text === "Hello");
    expect(first?.at).toBeDefined();
    expect((first?.at ?? Number.POSITIVE_INFINITY) - firstAt).toBeLessThan(25);

    writer.append(", world");
    const endAt = performance.now();
    await writer.finish({ kind: "complete" });
    // One interval, and timers on a busy machine given 150 ms: never a second interval.
    expect(performance.now() - endAt).toBeLessThan(300 + 150);
    expect(surface.messages).toEqual(["Hello, world"]);
  });

  it("replaces the placeholder: no message ever ends as '…'", async () => {
    const surface = new MemorySurface();
    const writer = new AnswerWriter(surface, { maxAnswerChars: CAP });
    writer.start();
    await sleep(10);
    expect(surface.messages).toEqual(["…"]);
    await writer.finish({ kind: "error", note: "⚠️ the chatbot rejected the API key (HTTP 401)" });
    expect(surface.messages).toEqual(["⚠️ the chatbot rejected the API key (HTTP 401)"]);
  });

  it("uses a typing indicator instead of a placeholder where the surface has one", async () => {
    const surface = new MemorySurface({ typing: true });
    const writer = new AnswerWriter(surface, {
      maxAnswerChars: CAP,
      typingIntervalMs: 20,
      typingDelayMs: 0,
    });
    writer.start();
    await sleep(70);
    writer.append("Hi");
    await writer.finish({ kind: "complete" });
    expect(surface.typing).toBeGreaterThanOrEqual(2);
    expect(surface.messages).toEqual(["Hi"]);
    expect(surface.calls.map((c) => c.kind)).toEqual(["post"]);
  });

  it("says (no answer) for an empty answer", async () => {
    const surface = new MemorySurface();
    const writer = new AnswerWriter(surface, { maxAnswerChars: CAP });
    writer.start();
    await writer.finish({ kind: "complete" });
    expect(surface.messages).toEqual(["(no answer)"]);
  });

  it("keeps the text of a cut answer and adds the note", async () => {
    const surface = new MemorySurface({ limits: { minEditIntervalMs: 50 } });
    const writer = new AnswerWriter(surface, { maxAnswerChars: CAP });
    writer.start();
    writer.append("Half an ans");
    await writer.finish({ kind: "cut", note: "⚠️ answer cut off: connection lost" });
    expect(surface.messages).toEqual(["Half an ans\n\n⚠️ answer cut off: connection lost"]);
  });

  it("honours a 429: nothing is sent until retry-after, and the final text still arrives", async () => {
    const surface = new MemorySurface({ limits: { minEditIntervalMs: 20 } });
    const writer = new AnswerWriter(surface, { maxAnswerChars: CAP });
    writer.start();
    writer.append("one ");
    await sleep(30);
    surface.failNextWithRateLimit(250);
    const chunks = Array.from({ length: 40 }, (_, i) => `c${i} `);
    const started = performance.now();
    await stream(writer, chunks, 5);
    await writer.finish({ kind: "complete" });

    expect(surface.rateLimited).toEqual([]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
    expect(surface.messages).toEqual([`one ${chunks.join("")}`]);
  });

  it("splits a 20,000-character answer into in-order messages that join back exactly", async () => {
    const paragraph = (i: number) =>
      `Paragraph ${i}: ${"lorem ipsum dolor sit amet, ".repeat(8)}end of ${i}.\n\n`;
    const answer = Array.from({ length: 90 }, (_, i) => paragraph(i))
      .join("")
      .slice(0, 20_000);
    expect(answer.length).toBe(20_000);
    const surface = new MemorySurface({
      limits: { maxMessageLength: 4_096, minEditIntervalMs: 5 },
    });
    const writer = new AnswerWriter(surface, { maxAnswerChars: CAP });
    writer.start();
    const chunks = answer.match(/[\s\S]{1,97}/g) ?? [];
    await stream(writer, chunks, 0);
    await writer.finish({ kind: "complete" });

    expect(surface.messages.length).toBe(5);
    expect(surface.transcript).toBe(answer);
    for (const message of surface.messages) expect(message.length).toBeLessThanOrEqual(4_096);
    // Each cut falls after a paragraph, never mid-word.
    for (const message of surface.messages.slice(0, -1))
      expect(message.endsWith(".\n\n")).toBe(true);
  });

  it("closes a code block cut by a split and reopens it in the next message", async () => {
    const code = Array.from({ length: 60 }, (_, i) => `console.log(${i});`).join("\n");
    const answer = `Here is code:\n\n\`\`\`js\n${code}\n\`\`\`\nDone.`;
    const surface = new MemorySurface({ limits: { maxMessageLength: 400 } });
    const writer = new AnswerWriter(surface, { maxAnswerChars: CAP });
    writer.start();
    writer.append(answer);
    await writer.finish({ kind: "complete" });

    expect(surface.messages.length).toBeGreaterThan(2);
    for (const [i, message] of surface.messages.entries()) {
      expect(message.length).toBeLessThanOrEqual(400);
      const fences = message.match(/```/g)?.length ?? 0;
      expect(fences % 2, `message ${i} has balanced fences`).toBe(0);
      if (i > 0) expect(message.startsWith("```js\n")).toBe(true);
    }
    const rejoined = surface.messages.join("").replaceAll("``````js\n", "");
    expect(rejoined).toBe(answer);
  });

  it("continues in a new message when a person deleted the one being edited", async () => {
    const surface = new MemorySurface({ limits: { minEditIntervalMs: 10 } });
    const writer = new AnswerWriter(surface, { maxAnswerChars: CAP });
    writer.start();
    writer.append("first part");
    await sleep(30);
    surface.deleteMessage(0);
    writer.append(" and the rest");
    await writer.finish({ kind: "complete" });
    expect(surface.messages.at(-1)).toBe("first part and the rest");
  });

  it("ends an answer over the cap with a visible (truncated)", async () => {
    const surface = new MemorySurface();
    const writer = new AnswerWriter(surface, { maxAnswerChars: 50 });
    writer.start();
    expect(writer.append("x".repeat(40))).toBe(true);
    expect(writer.append("y".repeat(40))).toBe(false);
    const summary = await writer.finish({ kind: "complete" });
    expect(summary.truncated).toBe(true);
    expect(surface.messages).toEqual([`${"x".repeat(40)}${"y".repeat(10)}\n\n(truncated)`]);
  });
});

describe("AnswerWriter, final states", () => {
  it("marks each message's last state final exactly once, even when the text did not change", async () => {
    const surface = new MemorySurface({ limits: { maxMessageLength: 20 } });
    const writer = new AnswerWriter(surface, { maxAnswerChars: CAP });
    writer.start();
    writer.append("aaaa bbbb cccc dddd eeee ffff");
    await sleep(20);
    await writer.finish({ kind: "complete" });
    const finals = surface.calls.filter((c) => c.final);
    expect(finals.map((c) => [c.id, c.text])).toEqual([
      [0, "aaaa bbbb cccc dddd "],
      [1, "eeee ffff"],
    ]);
  });
});

describe("AnswerWriter, typing", () => {
  it("shows no typing sign for an answer whose first text comes within the typing delay", async () => {
    const surface = new MemorySurface({ typing: true });
    const writer = new AnswerWriter(surface, { maxAnswerChars: CAP, typingDelayMs: 300 });
    writer.start();
    await sleep(50);
    writer.append("quick");
    await writer.finish({ kind: "complete" });
    await sleep(350);
    expect(surface.typing).toBe(0);
    expect(surface.messages).toEqual(["quick"]);
  });

  it("shows the typing sign once the backend stays silent past the typing delay", async () => {
    const surface = new MemorySurface({ typing: true });
    const writer = new AnswerWriter(surface, { maxAnswerChars: CAP, typingDelayMs: 100 });
    writer.start();
    await sleep(60);
    expect(surface.typing).toBe(0);
    await sleep(100);
    expect(surface.typing).toBe(1);
    writer.append("slow");
    await writer.finish({ kind: "complete" });
  });

  it("sends no typing action while the platform's wait runs", async () => {
    const budget = new RateBudget({ perMinute: 600, burst: 2 });
    budget.pause(150);
    const surface = new MemorySurface({ typing: true, budget });
    const writer = new AnswerWriter(surface, {
      maxAnswerChars: CAP,
      typingIntervalMs: 20,
      typingDelayMs: 0,
    });
    writer.start();
    await sleep(100);
    expect(surface.typing).toBe(0);
    await sleep(150);
    expect(surface.typing).toBeGreaterThan(0);
    writer.append("done");
    await writer.finish({ kind: "complete" });
  });
});
