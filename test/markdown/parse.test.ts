import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";
import { parseAnswer } from "../../adapters/slack/markdown.ts";
import { parseMarkdown, type Root } from "../../src/markdown/parse.ts";
import { inSession, ParseSession } from "../../src/markdown/parse-session.ts";
import { proseTree } from "../../src/markdown/prose-tree.ts";
import { HOSTILE_STREAMS, SAMPLES } from "../slack/samples.ts";
import { prefixesOf } from "../support/prefixes.ts";

const FULL_GFM = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };
const AS_TEXT = {
  extensions: [gfm(), { disable: { null: ["characterReference", "htmlFlow", "htmlText"] } }],
  mdastExtensions: [gfmFromMarkdown()],
};

const LINKS = [
  "Write to ana@example.org or visit www.example.com, WWW.Example.org and https://example.com/a?b.",
  "HTTP://EXAMPLE.COM/x and Www.example.net. and mail me: a.b-c@d.example",
  "no links here, just @mentions and a www without a dot, and a colon: // slashes",
  "plain prose with no markers at all, as most of an answer is",
];

/** Prose a parse can be skipped for, and near misses that must be parsed. */
const PROSE = [
  "streaming answers grow in place while the backend is still writing them. ",
  "t=1732250000123.456; First paragraph, 3.5 times longer than it needs to be!\n\nSecond one, (with an aside) and a question? Yes; no: maybe.\nA soft break.\n",
  "\n\nStarts after blank lines,\n\n\nand ends with spaces   ",
  "1. a list\n2. of two",
  "- a bullet",
  "# a heading",
  "> a quote",
  "    indented code",
  "a line  \nwith a hard break",
  "a line \nending in a space",
  "Setext\n===",
  "Setext\n---",
  "a\tb",
  "non\u00a0breaking\u00a0space\u00a0",
  "3) a list that starts with a parenthesis",
  "2024. A year that starts a line",
  "one\r\ntwo",
];

/** Blocks whose last one may still change what came before it, or take in what follows. */
const BLOCKS = [
  "A paragraph.\n\nAnother\n===\n\n- a list\n- of items\n\n  still the second item\nlazy line\n\nafter.",
  "Intro:\n1. one\n2. two\n\n3. three\n\n> quoted\ncontinued\n\n> again\n\n---\n\ntext\n---\n\nend",
  "Code:\n\n```js\nlet a = 1;\n\nlet b = 2;\n```\n\n    indented\n\n    still code\n\nand `inline` **bold**",
  "| a | b |\n| - | - |\n| 1 | 2 |\nrow without pipes\n\n<div>\nhtml block\n</div>\n\n<!-- a\n\ncomment -->\n\nlast",
  "Para\n- interrupting list\n\nPara\n2. not a list\n\n# Heading\nText\n\n* * *\n\n~~~\nfence\n~~~",
  "A [link][ref] early\n\nand the definition later\n\n[ref]: https://example.com\n\nNote[^1].\n\n[^1]: a footnote",
  "text *em\n</pre>\n  indented\n\n<div>\n\n- a\n\n3\n\n3.",
];

/** The trees of a whole parse of `prefix`, full GFM and as text; both tests compare to them. */
const wholeParses = new Map<string, [Root, Root]>();
function wholeParse(prefix: string): [Root, Root] {
  let trees = wholeParses.get(prefix);
  if (!trees) {
    trees = [fromMarkdown(prefix, FULL_GFM), fromMarkdown(prefix, AS_TEXT)];
    wholeParses.set(prefix, trees);
  }
  return trees;
}

/**
 * The prefixes tried: every one where syntax opens or closes (see prefixEnds), and of the plain
 * words between, every 29th: a session's cut and the skipped constructs turn on syntax, and
 * each prefix here costs six parses.
 */
const PREFIXES = { stride: 29 };

describe("parsing the chatbot's Markdown", () => {
  it("parses a growing message from its last block on, to the tree of a whole parse", () => {
    for (const text of [...BLOCKS, ...PROSE, ...SAMPLES, ...HOSTILE_STREAMS]) {
      const session = new ParseSession();
      for (const prefix of prefixesOf(text, PREFIXES)) {
        const [gfm, answer] = inSession(session, () => [
          parseMarkdown(prefix),
          parseAnswer(prefix),
        ]);
        const [whole, asText] = wholeParse(prefix);
        expect(gfm, prefix).toEqual(whole);
        expect(answer, prefix).toEqual(asText);
      }
    }
    // CPU-bound (six parses a prefix): a machine busy with other work stretches it.
  }, 60_000);

  it("gives the tree of full GFM for each prefix that matters (see prefixEnds), though it skips what a text cannot hold", () => {
    for (const text of [...PROSE, ...LINKS, ...SAMPLES, ...HOSTILE_STREAMS]) {
      for (const prefix of prefixesOf(text, PREFIXES)) {
        const [whole, asText] = wholeParse(prefix);
        expect(parseMarkdown(prefix), prefix).toEqual(whole);
        expect(parseAnswer(prefix), prefix).toEqual(asText);
      }
    }
    // The prose among them is not parsed at all.
    for (const text of PROSE.slice(0, 3)) expect(proseTree(text), text).toBeDefined();
  });
});
