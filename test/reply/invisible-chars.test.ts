import { describe, expect, it } from "vitest";
import { InvisibleCharFilter } from "../../src/reply/invisible-chars.ts";

/** The filter's output for `text` fed whole and fed one character at a time: they must agree. */
function filtered(text: string): string {
  const whole = new InvisibleCharFilter().push(text);
  const byChar = new InvisibleCharFilter();
  const pieces = Array.from(text, (char) => byChar.push(char)).join("");
  expect(pieces).toBe(whole);
  return whole;
}

const RLO = "\u202e";

describe("InvisibleCharFilter", () => {
  it("shows hidden characters in a code block of a numbered step, drops them after it", () => {
    const answer = [
      "1. Run:",
      "   ```sh",
      `   echo "${RLO}txt.exe"`,
      "   ```",
      `2. Then open${RLO} it.`,
    ].join("\n");
    expect(filtered(answer)).toBe(
      ["1. Run:", "   ```sh", '   echo "\\u202Etxt.exe"', "   ```", "2. Then open it."].join("\n"),
    );
  });

  it("knows tilde fences, longer closers and quoted code; a fence-like line of inline code is not one", () => {
    const answer = [
      "~~~~",
      `a${RLO}`,
      "~~~",
      `still code${RLO}`,
      "~~~~~",
      `\`\`\`inline\`\`\` text${RLO}`,
      "> ```",
      `> quoted${RLO}`,
      "> ```",
      `after${RLO}`,
    ].join("\n");
    expect(filtered(answer)).toBe(
      [
        "~~~~",
        "a\\u202E",
        "~~~",
        "still code\\u202E",
        "~~~~~",
        "```inline``` text",
        "> ```",
        "> quoted\\u202E",
        "> ```",
        "after",
      ].join("\n"),
    );
  });

  it("turns CRLF line ends into LF in text and in code", () => {
    expect(filtered("a\r\n```\r\nb\r\n```\r\nc")).toBe("a\n```\nb\n```\nc");
  });
});
