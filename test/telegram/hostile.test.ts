import { afterEach, describe, expect, it } from "vitest";
import { renderMarkdown } from "../../adapters/telegram/render.ts";
import { HIDDEN_CHARACTER, INVISIBLE_ANSWER, KEPT_SEQUENCES } from "../support/invisible-text.ts";
import { hasLoneSurrogate, parseTelegramHtml } from "../support/telegram-html.ts";
import { answered, type Rig, startRig } from "./rig.ts";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

// An odd-length first paragraph, then 4-byte emoji only: the 4,096 limit falls between the
// two halves of one, and there is no space to break at.
const HOSTILE_ANSWER = `<b>not bold</b> & **unbalanced _open \`tick [x](javascript:alert(1)) @alice_example.\n\n${"😀".repeat(2_100)}`;

describe("Telegram with hostile text", () => {
  it("splits a long answer below 4,096 characters without cutting an emoji in half", async () => {
    rig = await startRig({ answer: HOSTILE_ANSWER });
    const { fake, alice, group } = rig;
    await answered(
      rig,
      fake.write({ chat: group.id, from: alice, text: "@ChatBridgeBot emoji please" }),
    );

    const messages = fake.botMessages(group.id);
    expect(messages).toHaveLength(2);
    for (const message of messages) {
      expect(message.text.length).toBeLessThanOrEqual(4_096);
      expect(hasLoneSurrogate(message.text)).toBe(false);
      expect(message.parseMode).toBe("HTML");
    }
    expect(messages[0]?.text.length).toBeGreaterThan(4_000);
    const first = messages[0]?.text ?? "";
    expect(
      first.startsWith("<b>not bold</b> & **unbalanced _open `tick x @\u2060alice_example."),
    ).toBe(true);
    expect(messages[0]?.entities).toEqual([]);
    // Joined, the messages are the whole answer: nothing lost at the cut.
    const all = messages.map((m) => m.text).join("");
    const expected = parseTelegramHtml(renderMarkdown(HOSTILE_ANSWER)).text;
    expect(all.replace(/\s+/g, "")).toBe(expected.replace(/\s+/g, ""));
    expect(
      fake.calls.filter((c) => c.errorCode !== undefined && c.method !== "getUpdates"),
    ).toEqual([]);
  });

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
