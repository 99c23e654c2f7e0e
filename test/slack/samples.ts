import { composeAnswer, hugeAnswer } from "../../src/simulator/answers.ts";
import { resolveLanguage } from "../../src/simulator/languages.ts";

/** The simulator's answer to a first question, exactly as it streams it. */
export function simulatedAnswer(question: string, turn = 1, firstQuestion?: string): string {
  return composeAnswer({
    question,
    language: resolveLanguage("auto", question),
    memory: { turn, firstQuestion, previousQuestion: firstQuestion, forgotten: false },
  });
}

/** Text a hostile or careless backend may send: Slack markup that must stay text. */
export const HOSTILE =
  "Hi <!channel> and <!here>, ping <@U1> and <!subteam^S1|sales>. " +
  "Open <https://evil.example|bank> or [https://bank.example](https://evil.example). " +
  "Prices &amp; terms: 1 < 2 > 0 & more.";

/** The pieces of HOSTILE a person must see written out. */
export const HOSTILE_LITERALS = [
  "<!channel>",
  "<!here>",
  "<@U1>",
  "<!subteam^S1|sales>",
  "<https://evil.example|bank>",
  "&amp;",
  "1 < 2 > 0 & more",
];

/** Real-looking answers covering what a renderer meets: nesting, code, links, tables. */
export const SAMPLES: readonly string[] = [
  simulatedAnswer("What can you do?"),
  [
    "## Setting up the *widget*",
    "",
    "1. Install it:",
    "   ```sh",
    "   npm install widget && widget --init",
    "   ```",
    "2. Configure **three** things:",
    "   - the `host` (see [the docs](https://example.com/docs?a=1&b=2))",
    "   - the ~~port~~ socket, e.g. `<path>`",
    "     - nested: _deep **bold** text_",
    "   - [x] done already",
    "3. Run it.",
    "",
    "> Note: values like 5 * 3 and snake_case_names stay as written.",
    "> A second quoted line with a link: <https://example.org/a_b>.",
    "",
    "| Option | Default | Meaning |",
    "| --- | :---: | --- |",
    "| `host` | localhost | where to listen |",
    "| port | 8080 | **the** port |",
    "",
    "Footnote[^1] and an image ![logo](https://example.com/logo.png).",
    "",
    "[^1]: The end.",
  ].join("\n"),
  [
    "Here is code with markup inside:",
    "",
    "```html",
    "<b>bold</b> & <!-- comment --> ``` not a fence",
    "```",
    "",
    "Inline `a`b` and www.example.com, then ***both*** and **bold\nacross lines**.",
    "",
    "---",
    "",
    hugeAnswer(120),
  ].join("\n"),
  HOSTILE,
];
