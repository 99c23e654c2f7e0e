import { describe, expect, it } from "vitest";
import { renderTerminal, terminalRenderer } from "../../adapters/console/render.ts";
import { settledPrefix } from "../../adapters/console/settle.ts";
import { firstDifference, toAnsi } from "../../adapters/console/styled-text.ts";
import { composeAnswer } from "../../src/simulator/answers.ts";
import { resolveLanguage } from "../../src/simulator/languages.ts";
import { prefixesOf } from "../support/prefixes.ts";
import { VirtualTerminal } from "../support/virtual-terminal.ts";

const ESC = "\u001b";

/** The rendering as a terminal 200 columns wide shows it. */
function screenOf(markdown: string): VirtualTerminal {
  const screen = new VirtualTerminal(200, 50);
  screen.write(terminalRenderer.render(markdown));
  return screen;
}

function has(screen: VirtualTerminal, text: string, attribute: "bold" | "italic" | "strike") {
  return screen.attributesOf(text)?.every((a) => a.has(attribute)) ?? false;
}

const SIMULATED = composeAnswer({
  question: "What can you do?",
  language: resolveLanguage("en", "What can you do?"),
  memory: { turn: 2, firstQuestion: "hi", previousQuestion: "hi", forgotten: false },
});

const ANSWERS = [
  SIMULATED,
  [
    "## Plans",
    "",
    "Compare them *before* you buy, see https://example.com/plans. Or mail sales@example.com.",
    "",
    "| Plan | Price | Notes |",
    "|------|------:|-------|",
    "| Free | 0 | **limited** |",
    "| Pro | 20 | `api` access, www.example.com |",
    "",
    "1. Sign up",
    "2. Pick a plan:",
    "   - monthly",
    "   - yearly",
    "",
    "- a loose item",
    "",
    "- another, with snake_case and 2 * 3 = 6",
    "",
    "> Quoted **advice** over",
    "> two lines",
    "",
    "---",
    "",
    "```python",
    "print('|not a table|')",
    "```",
    "",
    "Done: ~~old~~ new, see ![logo](https://example.com/logo.png)!",
  ].join("\n"),
];

describe("the console's terminal rendering", () => {
  it("styles bold, italic, struck text, headings and code, and shows links as text (url)", () => {
    const screen = screenOf(
      "# Title\n\n**bold**, _italic_, ~~gone~~ and `code`, [the docs](https://example.com/docs), https://example.com/x and [a ref][r].\n\n[r]: https://example.com/r",
    );
    expect(screen.text()).toBe(
      "Title\n\nbold, italic, gone and code, the docs (https://example.com/docs), https://example.com/x and a ref (https://example.com/r).",
    );
    expect(has(screen, "Title", "bold")).toBe(true);
    expect(has(screen, "bold", "bold")).toBe(true);
    expect(has(screen, "italic", "italic")).toBe(true);
    expect(has(screen, "gone", "strike")).toBe(true);
    expect(screen.attributesOf("code,")?.[0]?.has("color")).toBe(true);
    expect(has(screen, ", ", "bold")).toBe(false);
  });

  it("lays out lists, quotes, code blocks and tables", () => {
    expect(screenOf(ANSWERS[1] ?? "").text()).toBe(
      [
        "Plans",
        "",
        "Compare them before you buy, see https://example.com/plans. Or mail sales@example.com.",
        "",
        "Plan │ Price │ Notes",
        `─────┼───────┼${"─".repeat(28)}`,
        "Free │ 0     │ limited",
        "Pro  │ 20    │ api access, www.example.com",
        "",
        "1. Sign up",
        "2. Pick a plan:",
        "   ◦ monthly",
        "   ◦ yearly",
        "",
        "• a loose item",
        "• another, with snake_case and 2 * 3 = 6",
        "",
        "│ Quoted advice over",
        "│ two lines",
        "",
        "────────────────────────",
        "",
        "```python",
        "print('|not a table|')",
        "```",
        "",
        "Done: old new, see 🖼 logo (https://example.com/logo.png)!",
      ].join("\n"),
    );
  });

  it("closes every style at the end of its line", () => {
    const ansi = terminalRenderer.render("**bold over\ntwo lines** and `code`");
    for (const line of ansi.split("\n")) expect(line.endsWith(`${ESC}[0m`)).toBe(true);
  });

  it("shows terminal controls from the backend as text, never as controls", () => {
    const ansi = terminalRenderer.render(`red ${ESC}[31mtext${ESC}]0;title\u0007 and \u009b2J`);
    for (const control of [`${ESC}[31m`, `${ESC}]`, "\u0007", "\u009b"]) {
      expect(ansi).not.toContain(control);
    }
    expect(ansi).toContain("\uFFFD[31mtext");
  });

  it("renders each streaming prefix that matters so that what is printed only grows", () => {
    for (const answer of ANSWERS) {
      let before = renderTerminal("");
      for (const prefix of prefixesOf(answer)) {
        const now = renderTerminal(settledPrefix(prefix));
        const changedAt = firstDifference(before, now);
        if (changedAt < before.text.length) {
          expect.fail(
            `prefix ${JSON.stringify(prefix)} changed printed text ${JSON.stringify(toAnsi(before))} into ${JSON.stringify(toAnsi(now))}`,
          );
        }
        before = now;
      }
      const final = renderTerminal(answer);
      expect(firstDifference(before, final)).toBe(before.text.length);
    }
  });
});
