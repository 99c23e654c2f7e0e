import { describe, expect, it } from "vitest";
import { openFence, splitToFit } from "../../src/reply/split.ts";

const within = (max: number) => (text: string) => text.length <= max;

describe("splitToFit", () => {
  it("returns nothing when the text fits", () => {
    expect(splitToFit("short", within(10))).toBeUndefined();
  });

  it("prefers a paragraph break, then a line, then a sentence, then a space", () => {
    expect(splitToFit("aaaa aaaa\n\nbbbb bbbb", within(15))?.head).toBe("aaaa aaaa\n\n");
    expect(splitToFit("aaaa aaaa\nbbbb bbbb", within(15))?.head).toBe("aaaa aaaa\n");
    expect(splitToFit("Aaaa aaa. Bbbb bbbb", within(15))?.head).toBe("Aaaa aaa.");
    expect(splitToFit("aaaa aaaa bbbb bbbb", within(15))?.head).toBe("aaaa aaaa bbbb ");
  });

  it("never cuts inside an emoji or a grapheme cluster", () => {
    const family = "👨‍👩‍👧‍👦";
    for (const glyph of ["😀", family, "🇫🇷", "é"]) {
      const text = glyph.repeat(20);
      for (let max = glyph.length; max < text.length; max += 1) {
        const split = splitToFit(text, within(max));
        expect(split?.head.length).toBeLessThanOrEqual(max);
        expect(split?.head.length ?? 0).toBeGreaterThan(0);
        expect((split?.head.length ?? 0) % glyph.length).toBe(0);
        expect((split?.head ?? "") + (split?.tail ?? "")).toBe(text);
      }
    }
  });

  it("closes and reopens a code fence it cuts", () => {
    const text = "```py\nprint(1)\nprint(2)\nprint(3)\n```";
    const split = splitToFit(text, within(24));
    expect(split?.head).toBe("```py\nprint(1)\n```");
    expect(split?.tail).toBe("```py\nprint(2)\nprint(3)\n```");
    expect(openFence(split?.head ?? "")).toBeUndefined();
  });
});
