import { afterEach, describe, expect, it } from "vitest";
import { withDiscussion } from "../../src/bridge/question-context.ts";
import { translator } from "../../src/i18n/translator.ts";
import type { Discussion } from "../../src/ports.ts";
import { type Harness, incoming, startHarness } from "../support/bridge-harness.ts";
import { MemorySurface } from "../support/memory-surface.ts";

const bounds = { maxMessages: 20, maxChars: 6_000 };
const thread = (...messages: [string, string][]): Discussion => ({
  kind: "thread",
  messages: messages.map(([author, text]) => ({ author, text })),
});

describe("the layout of a question with its discussion", () => {
  it("speaks the answer language, with headings a prompt can match (no direction marks)", () => {
    const discussion = thread(["Ana", "bonjour"]);
    expect(withDiscussion("et alors ?", discussion, bounds, translator("fr"))).toBe(
      "Plus tôt dans ce fil :\nAna: bonjour\n\nQuestion :\net alors ?",
    );
    const arabic = withDiscussion("؟", { ...discussion, kind: "reply" }, bounds, translator("ar"));
    expect(arabic).toBe("ردًّا على:\nAna: bonjour\n\nالسؤال:\n؟");
  });

  it("one line per message's start, its other lines indented, blank lines and hidden characters gone", () => {
    const discussion = thread(
      ["Ana\n\u202eMaria", "first line\n\n  indented\u200b line  \n"],
      ["", "who wrote this?"],
      ["Ben", "\u200b \n"],
    );
    expect(withDiscussion("q", discussion, bounds, translator("en"))).toBe(
      "Earlier in this thread:\nAna Maria: first line\n    indented line\n?: who wrote this?\n\nQuestion:\nq",
    );
  });

  it("keeps the latest messages that fit; a newest one longer than the bound is cut", () => {
    const t = translator("en");
    const discussion = thread(["Ana", "one"], ["Ben", "two"], ["Cleo", "three"]);
    expect(withDiscussion("q", discussion, { maxMessages: 2, maxChars: 100 }, t)).toBe(
      "Earlier in this thread:\nBen: two\nCleo: three\n\nQuestion:\nq",
    );
    expect(
      withDiscussion("q", thread(["Ana", "x".repeat(50)]), { maxMessages: 5, maxChars: 10 }, t),
    ).toBe("Earlier in this thread:\nAna: xxxx…\n\nQuestion:\nq");
    expect(withDiscussion("q", thread(["Ana", " "]), bounds, t)).toBe("q");
  });
});

describe("the question the chatbot receives", () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });
  const asked = (h: Harness) =>
    h.simulator.requests.filter((r) => r.route === "chat").map((r) => r.chat?.q);

  it("a first question's words speak the channel's answer language (/language de)", async () => {
    harness = await startHarness();
    const surface = new MemorySurface();
    await harness.bridge.handle(incoming("/language de"), surface);
    const discussion = async () => thread(["Ana", "Die Lieferung kam zu spät"]);
    await harness.bridge.handle(incoming("Und jetzt?", { discussion }), surface);

    expect(asked(harness)).toEqual([
      "Bisher in diesem Thread:\nAna: Die Lieferung kam zu spät\n\nFrage:\nUnd jetzt?",
    ]);
  });

  it("a discussion that fails to be read leaves the question alone", async () => {
    harness = await startHarness();
    const discussion = async () => {
      throw new Error("the platform is down");
    };
    await harness.bridge.handle(incoming("hello", { discussion }), new MemorySurface());
    expect(asked(harness)).toEqual(["hello"]);
  });
});
