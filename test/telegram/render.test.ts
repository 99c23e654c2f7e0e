import { describe, expect, it } from "vitest";
import { measureHtml, visibleText } from "../../adapters/telegram/escape.ts";
import {
  renderMarkdown,
  renderStreaming,
  telegramRenderer,
} from "../../adapters/telegram/render.ts";
import { hugeAnswer } from "../../src/simulator/answers.ts";
import { NESTED, simulated } from "../support/markdown-samples.ts";
import { prefixesOf } from "../support/prefixes.ts";
import { parseTelegramHtml } from "../support/telegram-html.ts";

const HOSTILE = [
  "<b>not bold</b> & <script>alert(1)</script> &amp; &lt; < > <",
  "",
  "**unbalanced _open `tick [label](",
  "",
  "[click](javascript:alert(1)) [tg](tg://user?id=42) [https://good.example](https://evil.example/x)",
  "",
  "Hi @everyone_here and @alice_example, mail bob@example.com",
  "",
  "```",
  "unclosed fence with <tags> & stuff",
].join("\n");

const SAMPLES = {
  "simulated, first question": simulated("What can you do?", 1),
  "simulated, Chinese, third question": simulated("你好，你能做什么？", 3),
  "nested lists, code, quotes, tables": NESTED,
  hostile: HOSTILE,
};

describe("the Telegram renderer", () => {
  for (const [name, sample] of Object.entries(SAMPLES)) {
    it(`gives valid Telegram HTML on each prefix that matters: ${name}`, () => {
      let checked = 0;
      // The prefixes that may render differently, each on a whole character (a stream never
      // splits one).
      const prefixes = prefixesOf(sample, { wholeCharacters: true });
      for (const prefix of prefixes) {
        for (const html of [renderMarkdown(prefix), renderStreaming(prefix)]) {
          if (html === "") continue;
          const parsed = parseTelegramHtml(html);
          expect(parsed.text).toBe(visibleText(html));
          expect(measureHtml(html)).toBe(parsed.text.length);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(prefixes.length / 2);
    });
  }

  it("renders the simulated answer's formatting as Telegram entities", () => {
    const html = renderMarkdown(simulated("What can you do?", 1));
    expect(html).toContain("<b>This is the simulated chatbot.</b>");
    expect(html).toContain("<i>Answering in English (en), detected from your question.</i>");
    expect(html).toContain("• <b>Bold</b>, <i>italic</i> and <code>inline code</code>");
    expect(html).toContain(
      '<a href="https://example.com/docs/chatbot-backend-api">the Chatbot Backend API</a>',
    );
    expect(html).toContain(
      '<pre><code class="language-ts">const answer = await chatbot.ask("What can you do?");</code></pre>',
    );
    expect(visibleText(html)).toContain("Text beyond ASCII: café, naïve, 你好, 😀");
  });

  it("renders nested lists, quotes and tables within Telegram's nesting rules", () => {
    const html = renderMarkdown(NESTED);
    const { text, entities } = parseTelegramHtml(html);
    expect(html).toContain("<b>Setup</b>");
    expect(text).toContain(
      "1. Install Node 20\n   ◦ with nvm install 20\n   ◦ or from nodejs.org\n     1. pick LTS\n2. Run:",
    );
    expect(text).toContain("• ☑ done\n• ☐ not yet maybe");
    // Inside the quote: no code entity and no link, the address shown instead.
    expect(html).toMatch(
      /<blockquote>Quoted <b>advice<\/b> with a link \(https:\/\/example\.com\/q\) and code,/,
    );
    expect(text).toContain("const x = 1 < 2 && 3 > 2;");
    expect(text).toContain("Plan     | Price\n");
    expect(entities.filter((e) => e.type === "blockquote")).toHaveLength(1);
    expect(html).toContain('<a href="https://example.com/docs">docs</a>');
    expect(html).toContain('<a href="https://example.com/x?a=1&amp;b=2">');
  });

  it("shows hostile text as text: no markup, no scripts, no disguised links, no pings", () => {
    const html = renderMarkdown(HOSTILE);
    const { text, entities } = parseTelegramHtml(html);
    // `&amp;` and `&lt;` are Markdown character references: they read as & and <.
    expect(text).toContain("<b>not bold</b> & <script>alert(1)</script> & < < > <");
    expect(entities.filter((e) => e.type === "bold")).toHaveLength(0);
    expect(text).toContain("**unbalanced _open `tick [label](");
    expect(html).not.toContain("javascript:");
    expect(html).not.toContain("tg://");
    expect(text).toContain("click tg");
    // The label names another site than the link goes to: the real address is shown.
    expect(html).toContain(
      'https://good.example (<a href="https://evil.example/x">https://evil.example/x</a>)',
    );
    expect(text).toContain("@\u2060everyone_here and @\u2060alice_example, mail bob@example.com");
    // A footnote's label is the chatbot's text too.
    const footnote = renderMarkdown("note[^@carol_example]\n\n[^@carol_example]: text");
    expect(footnote).toBe("note[^@\u2060carol_example]\n\n[@\u2060carol_example] text");
    expect(entities.find((e) => e.type === "pre")).toBeDefined();
  });

  it("leaves out an opener whose closer has not streamed in yet, until the answer is final", () => {
    expect(renderStreaming("Hello! **Th")).toBe("Hello! Th");
    expect(renderStreaming("Hello! **This** is _it")).toBe("Hello! <b>This</b> is it");
    expect(renderStreaming("run `npm i")).toBe("run npm i");
    expect(renderStreaming("2 * 3 and snake_case")).toBe("2 * 3 and snake_case");
    expect(renderStreaming("Hello! **This**")).toBe("Hello! <b>This</b>");
    // The final render keeps a literal opener that never closed.
    expect(renderMarkdown("Hello! **Th")).toBe("Hello! **Th");
  });

  it("measures what Telegram counts: visible UTF-16 code units", () => {
    expect(measureHtml(renderMarkdown("**a** & 😀"))).toBe("a & 😀".length);
    expect("😀".length).toBe(2);
    expect(telegramRenderer.note("<b>⚠️ cut</b>")).toBe("&lt;b&gt;⚠️ cut&lt;/b&gt;");
  });

  it("renders a long answer fast enough for the split search", () => {
    const long = hugeAnswer(20_000);
    const started = performance.now();
    for (let i = 0; i < 20; i++) renderMarkdown(long.slice(0, 4_000 + i * 10));
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
