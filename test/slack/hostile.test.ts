import { afterEach, describe, expect, it } from "vitest";
import { STREAM_DELIMITER } from "../../src/simulator/index.ts";
import { HIDDEN_CHARACTER, INVISIBLE_ANSWER, KEPT_SEQUENCES } from "../support/invisible-text.ts";
import { TurnWork } from "../support/loop-turns.ts";
import { type RawBackend, startRawBackend } from "../support/raw-backend.ts";
import { mention, type SlackHarness, startSlackHarness } from "../support/slack-harness.ts";
import { HOSTILE, HOSTILE_LITERALS } from "./samples.ts";

let h: SlackHarness | undefined;
let backend: RawBackend | undefined;
afterEach(async () => {
  await h?.close();
  await backend?.close();
  h = undefined;
  backend = undefined;
});

const HEADER = JSON.stringify({
  answer: "",
  question: "q",
  related_docs: [],
  conversation_uid: "conv-hostile",
  is_qa_mode: false,
  system_message: "",
});

/**
 * A backend that streams `answer` (HOSTILE by default) in small pieces of `pieceChars`, as a
 * real one would.
 */
async function hostileBackend(answer = HOSTILE, pieceChars = 7): Promise<RawBackend> {
  return startRawBackend(async (ctx) => {
    ctx.res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    await ctx.write(HEADER + STREAM_DELIMITER, 2);
    // Whole characters: a piece must not end inside an emoji's surrogate pair.
    const characters = Array.from(answer);
    for (let i = 0; i < characters.length; i += pieceChars) {
      await ctx.write(characters.slice(i, i + pieceChars).join(""), 2);
    }
    ctx.res.end();
  });
}

describe("hostile backend text", () => {
  for (const streaming of [false, true]) {
    it(`is shown literally ${streaming ? "in a native stream" : "in posted and edited messages"}`, async () => {
      backend = await hostileBackend();
      h = await startSlackHarness({
        backend: { url: backend.url, apiKey: "k", botUid: "b" },
        slack: { nativeStreaming: streaming },
      });
      const ts = h.nextTs();
      await h.sendEvent(mention("say something nasty", { ts }));
      await h.settle();

      const [answer, ...others] = h.fake.thread("C1", ts);
      expect(others).toEqual([]);
      expect(answer?.format).toBe(streaming ? "markdown" : "mrkdwn");
      // Every state the message went through, not only the last, is safe: its text and,
      // posted, its markdown block.
      for (const view of h.fake.views(answer as NonNullable<typeof answer>)) {
        expect(view.pings).toEqual([]);
        expect(view.disguised).toEqual([]);
      }
      const visible = h.fake
        .view(answer as NonNullable<typeof answer>)
        .visible.replace(/\u200b/g, "");
      for (const literal of HOSTILE_LITERALS) expect(visible).toContain(literal);
    });
  }

  for (const streaming of [false, true]) {
    it(`loses its invisible characters but keeps emoji and Persian joiners ${streaming ? "in a native stream" : "in posted and edited messages"}`, async () => {
      backend = await hostileBackend(INVISIBLE_ANSWER);
      h = await startSlackHarness({
        backend: { url: backend.url, apiKey: "k", botUid: "b" },
        slack: { nativeStreaming: streaming },
      });
      const ts = h.nextTs();
      await h.sendEvent(mention("pay whom?", { ts }));
      await h.settle();

      const [answer, ...others] = h.fake.thread("C1", ts);
      expect(others).toEqual([]);
      const text = answer?.text ?? "";
      expect(text).toContain("0130 0099 only.");
      expect(text).toContain('const role = "user\\u202E \\u2066// admin\\u2069";');
      expect(HIDDEN_CHARACTER.exec(text)).toBeNull();
      for (const sequence of KEPT_SEQUENCES) expect(text).toContain(sequence);
    });
  }

  // Issue 24, item 3: the answer nests a list 5,000 deep (or, with no word after it, is one
  // rule made of 5,000 markers); rendering it stalled the bot for minutes and showed a stub.
  for (const streaming of [true, false]) {
    it.each([
      { name: '"- " × 5,000', answer: "- ".repeat(5_000) },
      { name: '"- " × 5,000 and a word', answer: `${"- ".repeat(5_000)}deep` },
    ])(
      `nesting Markdown $name deep ends as its text ${streaming ? "in a native stream" : "in posted and edited messages"}, and the bot never stalls`,
      async ({ answer }) => {
        backend = await hostileBackend(answer, 100);
        h = await startSlackHarness({
          backend: { url: backend.url, apiKey: "k", botUid: "b" },
          slack: { nativeStreaming: streaming },
        });
        const ts = h.nextTs();
        const turns = new TurnWork().start();
        await h.sendEvent(mention("repeat after me", { ts }));
        await h.settle();
        const longestTurnMs = turns.stop();

        const messages = h.fake.thread("C1", ts);
        const shown = messages.map((m) => h?.fake.view(m).read ?? "").join(" ");
        expect(shown).not.toContain("something went wrong");
        // The whole answer, as the text it is, across the messages it needed.
        expect(shown.replace(/\s+/g, "")).toBe(answer.replace(/\s+/g, ""));
        expect(messages.every((m) => m.stream !== "streaming")).toBe(true);
        expect(longestTurnMs).toBeLessThan(MAX_TURN_WORK_MS);
      },
    );
  }
});

/**
 * Most CPU time one turn of the event loop may take while an answer is shown (the bot, the
 * fake Slack and the backend share this process): the issue asks for a few tens of
 * milliseconds; the bound is generous, far below the seconds of work these took before. It is
 * work, not the loop's delay, so a machine busy with other tests does not break it.
 */
const MAX_TURN_WORK_MS = 300;
