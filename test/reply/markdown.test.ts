import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";
import { parseAnswer } from "../../adapters/slack/markdown.ts";
import { parseMarkdown } from "../../src/reply/markdown.ts";
import { HOSTILE, HOSTILE_STREAMS, SAMPLES } from "../slack/samples.ts";

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

/** Prefixes as an answer streams (every 5th, and the whole): the trees must match for each. */
const prefixes = (text: string) => [
  ...Array.from({ length: Math.ceil(text.length / 5) }, (_, i) => text.slice(0, i * 5)),
  text,
];

describe("parsing the chatbot's Markdown", () => {
  it("gives the tree of full GFM for every prefix, though it skips the autolinks a text cannot hold", () => {
    for (const text of [...LINKS, ...SAMPLES, HOSTILE, ...HOSTILE_STREAMS]) {
      for (const prefix of prefixes(text)) {
        expect(parseMarkdown(prefix), prefix).toEqual(fromMarkdown(prefix, FULL_GFM));
        expect(parseAnswer(prefix), prefix).toEqual(fromMarkdown(prefix, AS_TEXT));
      }
    }
  });
});
