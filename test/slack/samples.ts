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

const ON_AND_ON =
  "and then some more words to keep this line going for a good while, well past anything a " +
  "stream may hold back, with no full stop and no line break for a long time to come, " +
  "because answers from a language model are often single long lines like this one";

/**
 * Hostile or awkward text as a stream meets it: mentions, disguised links, lone openers that
 * never close (or close too late), unbalanced fences, each on one long line. (HOSTILE itself
 * is one of SAMPLES.)
 */
export const HOSTILE_STREAMS: readonly string[] = [
  `<!channel> heads-up: the first words of this line must not wait for its end, ${ON_AND_ON}`,
  `Ping <@U123> and <@U123|boss> and <!here> about it, ${ON_AND_ON}`,
  `Look: [https://good.example](https://evil.example) and [docs](https://evil.example) ${ON_AND_ON}`,
  `Compare values: if a < b then swap them, and [see the docs later ${ON_AND_ON}](https://example.com/docs) and so on.`,
  `[https://good.example ${ON_AND_ON}](https://evil.example)`,
  `Angle <https://example.com/${"a".repeat(150)}> and <https://evil.example|bank> ${ON_AND_ON}`,
  `a lone < here ${ON_AND_ON}`,
  `a lone [ here ${ON_AND_ON}`,
  `a lone *star ${ON_AND_ON}`,
  `a lone **strong ${ON_AND_ON}`,
  `a lone _underscore ${ON_AND_ON}`,
  `a lone ~~strike ${ON_AND_ON}`,
  `a lone \`code <!channel> ${ON_AND_ON}\` and after`,
  `![image text ${ON_AND_ON}](https://evil.example/i.png)`,
  `Intro <!channel>.\n\n\`\`\`js\nconst ok = a < b && [x] * 2; // ${ON_AND_ON}\nno closing fence`,
  `Text \`\`\` not a fence <!here> ${ON_AND_ON}\n\`\`\`\nopened, never closed ${ON_AND_ON}`,
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
