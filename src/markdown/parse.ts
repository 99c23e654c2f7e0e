import type { Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";

export type { Root };

const GFM = { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] };

/**
 * Parses the chatbot's Markdown (CommonMark plus GitHub's tables, strikethrough, task
 * lists and autolinks) into a syntax tree that each channel's renderer walks (walk.ts). A prefix
 * of an answer parses too: an unclosed `**` is plain text until its closer arrives, so renderers
 * built on the tree emit balanced markup for every prefix.
 */
export const parseMarkdown = lastParses((markdown) => fromMarkdown(markdown, GFM));

// Parses kept: an answer's text is parsed by the reply engine's renderer and again, right
// after, by its surface (Slack's stream text, Telegram's streaming render), and parsing is
// most of what an answer costs.
const KEPT_PARSES = 8;

/**
 * `parse`, remembering its last few results: the same text parsed again gives the same
 * tree. The trees are shared, so their users must not change them.
 */
export function lastParses(parse: (markdown: string) => Root): (markdown: string) => Root {
  const kept = new Map<string, Root>();
  return (markdown) => {
    let tree = kept.get(markdown);
    if (tree) return tree;
    tree = parse(markdown);
    if (kept.size >= KEPT_PARSES) kept.delete(kept.keys().next().value as string);
    kept.set(markdown, tree);
    return tree;
  };
}
