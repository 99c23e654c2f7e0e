import type { Root } from "mdast";
import { fromMarkdown, type Options } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { withinBounds } from "./bounds.ts";
import { currentSession, extendTree } from "./parse-session.ts";
import { literalTree, proseTree } from "./prose-tree.ts";

export type { Root };

/**
 * Parses the chatbot's Markdown (CommonMark plus GitHub's tables, strikethrough, task
 * lists and autolinks) into a syntax tree that each channel's renderer walks (walk.ts). A prefix
 * of an answer parses too: an unclosed `**` is plain text until its closer arrives, so renderers
 * built on the tree emit balanced markup for every prefix.
 */
export const parseMarkdown = markdownParser();

/**
 * GFM's literal autolinks, each with what a text must hold for it to match. micromark tries
 * the email one at the start of every word and scans the word for an `@`: in prose that is
 * most of what a parse costs, so a text without the marker is parsed without the construct
 * (the same tree, about twice as fast).
 */
const LITERAL_AUTOLINKS: readonly { name: string; in: (markdown: string) => boolean }[] = [
  { name: "emailAutolink", in: (markdown) => markdown.includes("@") },
  { name: "wwwAutolink", in: (markdown) => /www\./i.test(markdown) },
  { name: "protocolAutolink", in: (markdown) => markdown.includes("://") },
];

/**
 * A GFM parser (see parseMarkdown) with the constructs `disabled` named turned off (raw HTML,
 * character references). It remembers its last few parses, and within a message's parse
 * session (see parse-session.ts) parses a text that extends an earlier one from its last
 * block on.
 */
export function markdownParser(disabled: readonly string[] = []): (markdown: string) => Root {
  const variants = new Map<number, Options>();
  const optionsFor = (markdown: string): Options => {
    let absent = 0;
    for (const [bit, autolink] of LITERAL_AUTOLINKS.entries()) {
      if (!autolink.in(markdown)) absent |= 1 << bit;
    }
    let options = variants.get(absent);
    if (!options) {
      const off = LITERAL_AUTOLINKS.filter((_, bit) => absent & (1 << bit)).map((a) => a.name);
      options = {
        extensions: [gfm(), { disable: { null: [...disabled, ...off] } }],
        mdastExtensions: [gfmFromMarkdown()],
      };
      variants.set(absent, options);
    }
    return options;
  };
  // Text past the bounds that keep a parse cheap is shown as written (see bounds.ts).
  const parseWhole = (markdown: string): Root =>
    proseTree(markdown) ??
    (withinBounds(markdown) ? fromMarkdown(markdown, optionsFor(markdown)) : literalTree(markdown));
  // The trees are shared (kept, and built on by later parses), so their users must not
  // change them.
  const kept = new Map<string, Root>();
  const parser = {};
  return (markdown) => {
    const session = currentSession();
    let tree = kept.get(markdown);
    if (!tree) {
      const earlier = session?.earlier(parser, markdown);
      tree = (earlier && extendTree(earlier, markdown, parseWhole)) ?? parseWhole(markdown);
      if (kept.size >= KEPT_PARSES) kept.delete(kept.keys().next().value as string);
      kept.set(markdown, tree);
    }
    session?.keep(parser, markdown, tree);
    return tree;
  };
}

// Parses kept: an answer's text may be parsed twice in a row (Slack's stream text asks where
// its last line settles, then makes the settled text safe; Telegram renders the same text for
// the stream and for good), and parsing is most of what an answer costs.
const KEPT_PARSES = 8;
