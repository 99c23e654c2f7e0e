import { composeAnswer } from "../../src/simulator/answers.ts";
import { resolveLanguage } from "../../src/simulator/languages.ts";

/** Answers the Telegram renderers are tried on, classic and rich alike. */

/** The simulated chatbot's answer to `question`, at a turn of its conversation. */
export const simulated = (question: string, turn: number) =>
  composeAnswer({
    question,
    language: resolveLanguage("auto", question),
    memory: { turn, firstQuestion: "first", previousQuestion: "before", forgotten: turn === 3 },
  });

/** Nested lists, code in a list and a quote, quotes, a table, references and line breaks. */
export const NESTED = [
  "## Setup",
  "",
  "1. Install **Node 20**",
  "   - with `nvm install 20`",
  "   - or from [nodejs.org](https://nodejs.org/en/download)",
  "     1. pick *LTS*",
  "2. Run:",
  "",
  "   ```bash",
  "   npm ci && npm start",
  "   ```",
  "",
  "- [x] done",
  "- [ ] not yet ~~maybe~~",
  "",
  "> Quoted **advice** with a [link](https://example.com/q) and `code`,",
  "> > nested quote",
  ">",
  "> ```js",
  "> const x = 1 < 2 && 3 > 2;",
  "> ```",
  "",
  "| Plan | Price |",
  "| --- | ---: |",
  "| Free | 0 € |",
  "| Pro & Co | <b>9</b> |",
  "",
  "Footnote[^1] and a ref [docs][d] and ![logo](https://example.com/logo.png).",
  "",
  "[^1]: The note.",
  "",
  "[d]: https://example.com/docs",
  "",
  "---",
  "",
  "Line with trailing backslash\\",
  "next line, an autolink https://example.com/x?a=1&b=2 and mail a@b.co.",
].join("\n");
