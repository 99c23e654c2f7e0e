import { afterEach, describe, expect, it } from "vitest";
import { MAX_MESSAGE_LENGTH, MAX_RICH_TEXT_LENGTH } from "../../adapters/telegram/limits.ts";
import { renderMarkdown } from "../../adapters/telegram/render.ts";
import { telegramRichRenderer } from "../../adapters/telegram/rich-render.ts";
import { HIDDEN_CHARACTER, INVISIBLE_ANSWER, KEPT_SEQUENCES } from "../support/invisible-text.ts";
import { hasLoneSurrogate, parseTelegramHtml } from "../support/telegram-html.ts";
import { parseRichHtml } from "../support/telegram-rich.ts";
import { answered, type Rig, refusedCalls, startRig } from "./rig.ts";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

// An odd-length first paragraph, then 4-byte emoji only: the message limit falls between the
// two halves of one, and there is no space to break at.
const HOSTILE_HEAD =
  "<b>not bold</b> & **unbalanced _open `tick [x](javascript:alert(1)) @alice_example.";

/** Each kind of message with its limit, an answer just past it, and what a person reads of one. */
const LONG_ANSWERS = [
  {
    kind: "an HTML message",
    limit: MAX_MESSAGE_LENGTH,
    richMessages: false,
    answer: `${HOSTILE_HEAD}\n\n${"😀".repeat(2_100)}`,
    read: (answer: string) => parseTelegramHtml(renderMarkdown(answer)).text,
  },
  {
    kind: "a rich message",
    limit: MAX_RICH_TEXT_LENGTH,
    richMessages: true,
    answer: `${HOSTILE_HEAD}\n\n${"😀".repeat(16_500)}`,
    read: (answer: string) => parseRichHtml(telegramRichRenderer.render(answer)).text,
  },
];

describe("Telegram with hostile text", () => {
  for (const { kind, limit, richMessages, answer, read } of LONG_ANSWERS) {
    it(`splits a long answer below ${kind}'s ${limit} characters without cutting an emoji in half`, async () => {
      rig = await startRig({ answer, channel: { richMessages } });
      const { fake, alice, group } = rig;
      await answered(
        rig,
        fake.write({ chat: group.id, from: alice, text: "@ChatBridgeBot emoji please" }),
      );

      const messages = fake.botMessages(group.id);
      expect(messages).toHaveLength(2);
      for (const message of messages) {
        expect(message.text.length).toBeLessThanOrEqual(limit);
        expect(hasLoneSurrogate(message.text)).toBe(false);
        // Sent in the form TELEGRAM_RICH_MESSAGES asks for: HTML, or rich (no parse_mode).
        expect(message.parseMode).toBe(richMessages ? undefined : "HTML");
        expect(message.rich !== undefined).toBe(richMessages);
      }
      expect(messages[0]?.text.length).toBeGreaterThan(limit - 100);
      const first = messages[0]?.text ?? "";
      expect(
        first.startsWith("<b>not bold</b> & **unbalanced _open `tick x @\u2060alice_example."),
      ).toBe(true);
      expect(messages[0]?.entities).toEqual([]);
      // Joined, the messages are the whole answer: nothing lost at the cut.
      const all = messages.map((m) => m.text).join("");
      expect(all.replace(/\s+/g, "")).toBe(read(answer).replace(/\s+/g, ""));
      expect(refusedCalls(fake).filter((c) => c.method !== "getUpdates")).toEqual([]);
    });
  }

  it("echoes a person's markup, ampersands and mentions as plain text", async () => {
    rig = await startRig();
    const { fake, alice, group } = rig;
    const text = "@ChatBridgeBot <b>hi</b> & <i> **half @bob_example";
    await answered(rig, fake.write({ chat: group.id, from: alice, text }));
    const [answer] = fake.botMessages(group.id);
    expect(answer?.text).toContain("You asked: “<b>hi</b> & <i> **half @\u2060bob_example”");
    expect(answer?.raw).toContain("&lt;b&gt;hi&lt;/b&gt; &amp; &lt;i&gt; **half");
  });

  it("loses its invisible characters but keeps emoji and Persian joiners", async () => {
    rig = await startRig({ answer: INVISIBLE_ANSWER });
    const { fake, alice, dm } = rig;
    await answered(rig, fake.write({ chat: dm.id, from: alice, text: "pay whom?" }));
    const [answer, ...others] = fake.botMessages(dm.id);
    expect(others).toEqual([]);
    const text = answer?.text ?? "";
    expect(text).toContain("0130 0099 only.");
    expect(text).toContain('const role = "user\\u202E \\u2066// admin\\u2069";');
    expect(HIDDEN_CHARACTER.exec(text)).toBeNull();
    for (const sequence of KEPT_SEQUENCES) expect(text).toContain(sequence);
  });
});
