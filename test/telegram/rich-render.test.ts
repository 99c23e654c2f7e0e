import { describe, expect, it } from "vitest";
import {
  MAX_RICH_BLOCKS,
  MAX_RICH_NESTING,
  MAX_RICH_TABLE_COLUMNS,
  MAX_RICH_TEXT_LENGTH,
} from "../../adapters/telegram/limits.ts";
import {
  measureRich,
  renderRich,
  renderRichStreaming,
  telegramRichRenderer,
} from "../../adapters/telegram/rich-render.ts";
import { hugeAnswer } from "../../src/simulator/answers.ts";
import { NESTED, simulated } from "../support/markdown-samples.ts";
import { prefixesOf } from "../support/prefixes.ts";

/** What a rich HTML text holds, as far as the limits and a reader go. */
interface RichShape {
  /** The text a person reads: blocks on lines of their own, white space run together. */
  text: string;
  /** Characters of text (a line break is one), as the length limit counts them. */
  length: number;
  /** Blocks, list items and table rows, an item's bare text a paragraph of its own. */
  blocks: number;
  /** Deepest nesting of elements, an item's bare text inside the paragraph it makes. */
  depth: number;
}

const BLOCK_TAGS = new Set([
  ..."p h1 h2 h3 h4 h5 h6 pre hr ul ol li blockquote table tr".split(" "),
]);
const INLINE_TAGS = new Set(["b", "i", "s", "code", "a", "br"]);
const TEXT_HOLDERS = new Set([..."p h1 h2 h3 h4 h5 h6 th td b i s a code".split(" ")]);
const VOID_TAGS = new Set(["br", "hr", "input"]);
const ATTRIBUTES: Record<string, RegExp> = {
  ol: /^start="\d+"$/,
  th: /^align="(left|center|right)"$/,
  td: /^align="(left|center|right)"$/,
  a: /^href="https?:\/\/[^"]+"$/,
  code: /^class="language-[\w+#.-]+"$/,
  input: /^type="checkbox"( checked)?$/,
};
const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"' };
const TOKEN = /<(\/?)([a-z][a-z0-9]*)((?:\s[^<>]*?)?)(\/?)>|([^<]+)/gy;

/**
 * Checks `html` against the rich HTML this renderer may write, the way a strict parser would
 * read it: only its tags and attributes, every tag closed in order, blocks only where blocks
 * go (a list holds items, a table rows, a row cells, a paragraph text), and only the four
 * named entities it escapes with. Throws at the first fault.
 */
function checkRich(html: string): RichShape {
  const stack: { tag: string; bare: boolean; filled: boolean }[] = [];
  let read = 0;
  let text = "";
  let length = 0;
  let blocks = 0;
  let depth = 0;
  let at = 0;
  const fail = (why: string): never => {
    throw new Error(`${why} at ${at}: …${html.slice(Math.max(0, at - 40), at + 40)}…`);
  };
  const newLine = () => {
    if (text !== "" && !text.endsWith("\n")) text += "\n";
  };
  for (const match of html.matchAll(TOKEN)) {
    at = match.index;
    const [, closing, tag = "", attributes = "", selfClosed, chars] = match;
    read = match.index + match[0].length;
    const parent = stack.at(-1);
    const inPre = stack.some((open) => open.tag === "pre");
    const first = parent !== undefined && !parent.filled;
    if (parent) parent.filled = true;
    if (chars !== undefined) {
      if (/&(?!amp;|lt;|gt;|quot;)/.test(chars)) fail("an entity it does not write");
      if (/>/.test(chars)) fail("a bare >");
      if (chars.trim() === "" && !inPre) continue;
      const holder = parent?.tag ?? "root";
      if (!TEXT_HOLDERS.has(holder) && holder !== "pre" && holder !== "li")
        fail(`text in ${holder}`);
      if (holder === "li" && parent && !parent.bare) {
        parent.bare = true;
        blocks++;
      }
      depth = Math.max(depth, stack.length + (holder === "li" ? 1 : 0));
      const decoded = chars.replace(/&[a-z]+;/g, (entity) => ENTITIES[entity] ?? entity);
      text += inPre ? decoded : decoded.replace(/\s+/g, " ");
      length += decoded.length;
      continue;
    }
    if (closing) {
      if (parent?.tag !== tag) fail(`</${tag}> closes <${parent?.tag}>`);
      stack.pop();
      continue;
    }
    const attribute = attributes.trim();
    if (attribute && !ATTRIBUTES[tag]?.test(attribute)) fail(`<${tag} ${attribute}>`);
    if (selfClosed && tag !== "br" && tag !== "hr") fail(`<${tag}/>`);
    const holder = parent?.tag ?? "root";
    const inline = INLINE_TAGS.has(tag);
    if (tag === "li" ? holder !== "ul" && holder !== "ol" : holder === "ul" || holder === "ol") {
      fail(`<${tag}> in <${holder}>`);
    }
    if (tag === "tr" ? holder !== "table" : holder === "table") fail(`<${tag}> in <${holder}>`);
    if (tag === "th" || tag === "td" ? holder !== "tr" : holder === "tr") {
      fail(`<${tag}> in <${holder}>`);
    }
    if (tag === "input" && (holder !== "li" || !first)) fail("a box not first in its item");
    if (holder === "pre" && tag !== "code") fail(`<${tag}> in <pre>`);
    if (tag === "code" && attribute && holder !== "pre") fail("a language outside <pre>");
    if (holder === "code") fail(`<${tag}> in <code>`);
    if (tag === "a" && stack.some((open) => open.tag === "a")) fail("a link in a link");
    if (BLOCK_TAGS.has(tag) && TEXT_HOLDERS.has(holder)) fail(`<${tag}> in <${holder}>`);
    if (!BLOCK_TAGS.has(tag) && !inline && !["th", "td", "input"].includes(tag)) {
      fail(`<${tag}>`);
    }
    if (inline && !TEXT_HOLDERS.has(holder) && holder !== "li" && holder !== "pre") {
      fail(`<${tag}> in ${holder}`);
    }
    if (tag === "tr") newLine();
    if (tag === "td" || tag === "th") text += " | ";
    if (tag === "br") {
      text += "\n";
      length++;
    }
    if (tag === "input") text += attribute.includes("checked") ? "[x] " : "[ ] ";
    if (holder === "li" && inline && parent && !parent.bare) {
      parent.bare = true;
      blocks++;
    }
    if (BLOCK_TAGS.has(tag)) {
      blocks++;
      newLine();
      if (parent) parent.bare = false;
    }
    if (VOID_TAGS.has(tag)) continue;
    stack.push({ tag, bare: false, filled: false });
    depth = Math.max(depth, stack.length + (inBareRun(stack) ? 1 : 0));
  }
  at = read;
  if (read !== html.length) fail("markup it cannot read");
  if (stack.length > 0) fail(`<${stack.at(-1)?.tag}> left open`);
  return { text: text.trim(), length, blocks, depth };
}

/** Whether the innermost open element is inline content straight inside a list item. */
function inBareRun(stack: readonly { tag: string }[]): boolean {
  for (let i = stack.length - 1; i >= 0; i--) {
    const tag = stack[i]?.tag ?? "";
    if (!INLINE_TAGS.has(tag)) return tag === "li";
  }
  return false;
}

const PLANS = [
  "## Plans",
  "",
  "| Plan | Price | Seats |",
  "| :--- | ---: | :-: |",
  "| **Free** | 0 € | 1 |",
  "| Pro & Co | `9 €` | [up to 5](https://example.com/seats) |",
  "| Team | <b>29</b> |",
  "",
  "Prices include VAT.",
].join("\n");

const STEPS = [
  "And then:",
  "",
  "5. Then this",
  "6. and that",
  "",
  "Setext heading",
  "---",
  "",
  "- - -",
  "",
  "a soft",
  "line break",
].join("\n");

const HOSTILE = [
  '<b>not bold</b> & <script>alert(1)</script> <tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>',
  "",
  '<details open><summary>open me</summary>hidden</details> <tg-button type="url" url="tg://user?id=1">x</tg-button>',
  "",
  '<img src="https://evil.example/track.gif"/> <tg-time unix="1647531900">now</tg-time> <a href="tg://user?id=7">me</a>',
  "",
  "**unbalanced _open `tick [label](",
  "",
  "[click](javascript:alert(1)) [tg](tg://user?id=42) [mail](mailto:x@evil.example) [https://good.example](https://evil.example/x)",
  "",
  "![👍](tg://emoji?id=5368324170671202286) ![22:45](tg://time?unix=1647531900) ![pic](https://evil.example/p.jpg)",
  "",
  "Hi @everyone_here and @alice_example, mail bob@example.com; footnote[^@carol_example]",
  "",
  "[^@carol_example]: @dave_example",
  "",
  "| @erin_example | [paypal.com](https://evil.example) |",
  "| - | - |",
  "| x | y |",
  "",
  '```"><script>',
  "unclosed fence with <tags> & stuff",
].join("\n");

/** Blocks a text whose measure is within the limit leaves spare below Telegram's limit. */
const SPARE_BLOCKS = MAX_RICH_BLOCKS - Math.floor(MAX_RICH_TEXT_LENGTH / measureRich("<hr/>"));

const SAMPLES = {
  "simulated, first question": simulated("What can you do?", 1),
  "simulated, Chinese, third question": simulated("你好，你能做什么？", 3),
  "a table answer": PLANS,
  "nested lists, code, quotes, a table": NESTED,
  "numbered from 5, a setext heading, a rule": STEPS,
  hostile: HOSTILE,
};

describe("the Telegram rich message renderer", () => {
  for (const [name, sample] of Object.entries(SAMPLES)) {
    it(`gives balanced rich HTML on each prefix that matters, as it streams and final: ${name}`, () => {
      let mostBlocks = 0;
      // The prefixes that may render differently, each on a whole character (a stream never
      // splits one).
      for (const prefix of prefixesOf(sample, { wholeCharacters: true })) {
        const html = renderRich(prefix);
        const shape = checkRich(html);
        checkRich(renderRichStreaming(prefix));
        expect(shape.depth).toBeLessThanOrEqual(MAX_RICH_NESTING);
        expect(measureRich(html)).toBeGreaterThanOrEqual(shape.length);
        // The blocks grow with the answer, but for the few of a lone `-` or `*` that more text
        // turns into text: never more than the limit leaves spare below a measure within it,
        // so a split's head shorter than a text that fits has no more blocks than Telegram's.
        expect(shape.blocks).toBeGreaterThanOrEqual(mostBlocks - SPARE_BLOCKS);
        mostBlocks = Math.max(mostBlocks, shape.blocks);
      }
    });
  }

  it("draws a table as a table: a header row, each column's alignment, formatting in cells", () => {
    const html = renderRich(PLANS);
    expect(html).toBe(
      [
        "<h2>Plans</h2>",
        "",
        "<table>" +
          '<tr><th align="left">Plan</th><th align="right">Price</th><th align="center">Seats</th></tr>' +
          '<tr><td align="left"><b>Free</b></td><td align="right">0 €</td><td align="center">1</td></tr>' +
          '<tr><td align="left">Pro &amp; Co</td><td align="right"><code>9 €</code></td>' +
          '<td align="center"><a href="https://example.com/seats">up to 5</a></td></tr>' +
          // A short row is filled; raw HTML in a cell is text.
          '<tr><td align="left">Team</td><td align="right">&lt;b&gt;29&lt;/b&gt;</td><td align="center"></td></tr>' +
          "</table>",
        "",
        "<p>Prices include VAT.</p>",
      ].join("\n"),
    );
    expect(checkRich(html).text).toContain("| Pro & Co | 9 € | up to 5");
    // An unaligned column has no align; cells past the header's are left out, as GitHub does.
    expect(renderRich("| a | b |\n| - | - |\n| 1 | 2 | 3 |")).toBe(
      "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>",
    );
  });

  it("draws headings, paragraphs, line breaks, rules and code as rich blocks", () => {
    expect(renderRich("# One\n\n### Three\n\n###### Six")).toBe(
      "<h1>One</h1>\n\n<h3>Three</h3>\n\n<h6>Six</h6>",
    );
    // A single line end inside a paragraph stays one: rich HTML runs white space together.
    expect(renderRich("first line\nsecond  \nthird\\\nfourth")).toBe(
      "<p>first line<br/>second<br/>third<br/>fourth</p>",
    );
    expect(renderRich("a\n\n---\n\nb")).toBe("<p>a</p>\n\n<hr/>\n\n<p>b</p>");
    expect(renderRich("```ts\nconst a = 1 < 2;\n```")).toBe(
      '<pre><code class="language-ts">const a = 1 &lt; 2;</code></pre>',
    );
    expect(renderRich("```\n  indented\n```")).toBe("<pre>  indented</pre>");
    expect(renderRich("**b** _i_ ~~s~~ `c`")).toBe(
      "<p><b>b</b> <i>i</i> <s>s</s> <code>c</code></p>",
    );
  });

  it("draws lists as lists: nested, numbered from their start, with task boxes", () => {
    const html = renderRich(NESTED);
    expect(html).toContain(
      "<ol><li><p>Install <b>Node 20</b></p>\n" +
        "<ul><li>with <code>nvm install 20</code></li>" +
        '<li>or from <a href="https://nodejs.org/en/download">nodejs.org</a>\n' +
        "<ol><li>pick <i>LTS</i></li></ol></li></ul></li>" +
        "<li><p>Run:</p>\n" +
        '<pre><code class="language-bash">npm ci &amp;&amp; npm start</code></pre></li></ol>',
    );
    expect(renderRich(STEPS)).toContain('<ol start="5"><li>Then this</li><li>and that</li></ol>');
    expect(html).toContain(
      '<ul><li><input type="checkbox" checked>done</li>' +
        '<li><input type="checkbox">not yet <s>maybe</s></li></ul>',
    );
    // An item whose text is still to come is an empty item, as Markdown reads it.
    expect(renderRich("- one\n- ")).toBe("<ul><li>one</li><li></li></ul>");
  });

  it("draws quotes as quotes, nested and holding any block", () => {
    expect(renderRich(NESTED)).toContain(
      "<blockquote><p>Quoted <b>advice</b> with a " +
        '<a href="https://example.com/q">link</a> and <code>code</code>,</p>\n' +
        "<blockquote><p>nested quote</p></blockquote>\n" +
        '<pre><code class="language-js">const x = 1 &lt; 2 &amp;&amp; 3 &gt; 2;</code></pre>' +
        "</blockquote>",
    );
    expect(renderRich("> - a\n>   > b")).toBe(
      "<blockquote><ul><li>a\n<blockquote><p>b</p></blockquote></li></ul></blockquote>",
    );
  });

  it("shows hostile text as text: no tag it did not write, no scheme but http(s), no ping", () => {
    const html = renderRich(HOSTILE);
    const { text } = checkRich(html);
    // Raw HTML, Telegram's own tags among it, is text.
    expect(text).toContain(
      '<b>not bold</b> & <script>alert(1)</script> <tg-emoji emoji-id="5368324170671202286">👍</tg-emoji>',
    );
    expect(text).toContain(
      '<details open><summary>open me</summary>hidden</details> <tg-button type="url" url="tg://user?id=1">x</tg-button>',
    );
    expect(text).toContain('<img src="https://evil.example/track.gif"/> <tg-time');
    expect(text).toContain("**unbalanced _open `tick [label](");
    // Only http(s) targets become links; a label naming another site shows the real address.
    expect(html.match(/<a href="[^"]*"/g)).toEqual([
      '<a href="https://evil.example/x"',
      '<a href="https://evil.example/p.jpg"',
      '<a href="https://evil.example/"',
    ]);
    expect(text).toContain("click tg mail https://good.example (https://evil.example/x)");
    expect(html).toContain(
      'https://good.example (<a href="https://evil.example/x">https://evil.example/x</a>)',
    );
    // An image is a link to it, never a media block; tg:// emoji and times are not even links.
    expect(text).toContain("🖼 👍 🖼 22:45 🖼 pic");
    expect(html).toContain('<a href="https://evil.example/p.jpg">🖼 pic</a>');
    // Mentions are defused wherever the chatbot's text goes: paragraphs, footnotes, cells.
    expect(text).toContain(
      "Hi @\u2060everyone_here and @\u2060alice_example, mail bob@example.com",
    );
    for (const name of ["carol_example", "dave_example", "erin_example"]) {
      expect(html).toContain(`@\u2060${name}`);
      expect(html).not.toMatch(new RegExp(`@${name}`));
    }
    expect(html).toContain(
      '<th>paypal.com (<a href="https://evil.example/">https://evil.example/</a>)</th>',
    );
    // A language that is no name is no class: the fence is plain code.
    expect(html).toContain("<pre>unclosed fence with &lt;tags&gt; &amp; stuff</pre>");
  });

  it("keeps within the rich nesting limit: deeper lists and quotes are drawn flat", () => {
    const cases: [string, string[]][] = [
      [
        `${"- ".repeat(30)}deep **bold** [link](https://example.com) \`code\``,
        ["deep", "bold", "link", "code"],
      ],
      [`${"> ".repeat(30)}deep **bold _italic_**`, ["deep", "bold", "italic"]],
      [`${"1. ".repeat(20)}numbered`, ["numbered"]],
      [`${"> - ".repeat(12)}mixed *deep*`, ["mixed", "deep"]],
      [
        [
          `${"- ".repeat(6)}in a list`,
          ...["| a | b |", "| - | - |", "| **1** | 2 |"].map((line) => "  ".repeat(6) + line),
        ].join("\n"),
        ["in a list", "a", "b", "1", "2"],
      ],
    ];
    for (const [markdown, words] of cases) {
      const shape = checkRich(renderRich(markdown));
      expect(shape.depth).toBeLessThanOrEqual(MAX_RICH_NESTING);
      // The words are all there, in the order written.
      expect(shape.text).toMatch(new RegExp(words.join("[\\s\\S]*")));
    }
    // Seven lists deep fit (two levels each, and the item's text); the eighth is drawn flat.
    expect(renderRich(`${"- ".repeat(8)}deep`)).toContain(
      `${"<ul><li>".repeat(7)}<p>▪ deep</p>${"</li></ul>".repeat(7)}`,
    );
    // A table in quotes too deep for its three levels is a grid.
    const quoted = ["| a | b |", "| - | - |", "| 1 | 2 |"].map((line) => "> ".repeat(14) + line);
    expect(renderRich(quoted.join("\n"))).toContain("<pre>a | b\n--|--\n1 | 2</pre>");
  });

  it("draws a table wider than the rich limit as a monospaced grid", () => {
    const row = (cells: string[]) => `| ${cells.join(" | ")} |`;
    const table = (columns: number) => {
      const names = Array.from({ length: columns }, (_, i) => `c${i + 1}`);
      return [row(names), row(names.map(() => "-")), row(names.map((n) => `**${n}**`))].join("\n");
    };
    const widest = renderRich(table(MAX_RICH_TABLE_COLUMNS));
    expect(widest.match(/<th>/g)).toHaveLength(MAX_RICH_TABLE_COLUMNS);
    const wider = renderRich(table(MAX_RICH_TABLE_COLUMNS + 1));
    expect(wider).not.toContain("<table>");
    expect(wider).toMatch(/^<pre>c1 \| c2 \| .* \| c21\n---\|---/);
    expect(checkRich(wider).text).toContain("c1 | c2 | c3");
  });

  it("measures so that a text within the limit fits both the characters and the blocks", () => {
    const cases = {
      "long prose": hugeAnswer(40_000),
      "many short items": Array.from({ length: 600 }, (_, i) => `- item ${i}`).join("\n"),
      "many loose items": Array.from({ length: 300 }, (_, i) => `1. step ${i}`).join("\n\n"),
      "a long table": `| a | b |\n| - | - |\n${"| 1 | 2 |\n".repeat(600)}`,
      "many headings": Array.from({ length: 600 }, (_, i) => `## ${i}`).join("\n\n"),
      "emoji and line breaks": "😀\n".repeat(20_000),
    };
    for (const [name, markdown] of Object.entries(cases)) {
      // The longest prefix whose rendering measures within the limit, as the split finds it.
      let low = 0;
      let high = markdown.length;
      while (low < high) {
        const mid = Math.ceil((low + high) / 2);
        if (measureRich(renderRich(markdown.slice(0, mid))) <= MAX_RICH_TEXT_LENGTH) low = mid;
        else high = mid - 1;
      }
      const shape = checkRich(renderRich(markdown.slice(0, low)));
      expect(shape.length, name).toBeLessThanOrEqual(MAX_RICH_TEXT_LENGTH);
      expect(shape.blocks, name).toBeLessThanOrEqual(MAX_RICH_BLOCKS);
      // And it does not give away much: the limit that binds is nearly reached.
      expect(
        Math.max(shape.length / MAX_RICH_TEXT_LENGTH, shape.blocks / MAX_RICH_BLOCKS),
        name,
      ).toBeGreaterThan(0.9);
    }
  });

  it("counts each block: an item's bare text as a paragraph, a table's rows", () => {
    const weight = measureRich("<hr/>");
    expect(measureRich("<ul><li>a</li><li><p>b</p></li><li></li></ul>")).toBe(6 * weight);
    expect(measureRich(renderRich(PLANS))).toBe(checkRich(renderRich(PLANS)).blocks * weight);
    expect(measureRich(`<p>${"x".repeat(1_000)}<br/>😀</p>`)).toBe(1_000 + 1 + 2);
  });

  it("leaves out an opener whose closer has not streamed in yet, until the answer is final", () => {
    expect(renderRichStreaming("Hello! **Th")).toBe("<p>Hello! Th</p>");
    expect(renderRichStreaming("- run `npm i")).toBe("<ul><li>run npm i</li></ul>");
    expect(renderRichStreaming("Hello! **This**")).toBe("<p>Hello! <b>This</b></p>");
    expect(renderRich("Hello! **Th")).toBe("<p>Hello! **Th</p>");
    expect(telegramRichRenderer.interim?.("| a |\n| - |\n| _x")).toBe(
      "<table><tr><th>a</th></tr><tr><td>x</td></tr></table>",
    );
  });

  it("shows a note as a paragraph of its own, its commands as code", () => {
    expect(telegramRichRenderer.note("<b>⚠️ cut</b>: send `/stop` @someone_here")).toBe(
      "<p>&lt;b&gt;⚠️ cut&lt;/b&gt;: send <code>/stop</code> @\u2060someone_here</p>",
    );
    expect(telegramRichRenderer.note("two\nlines")).toBe("<p>two<br/>lines</p>");
  });
});
