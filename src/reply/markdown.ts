import type { Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";

export type { Root };

/**
 * Parses the chatbot's Markdown (CommonMark plus GitHub's tables, strikethrough, task
 * lists and autolinks) into a syntax tree that each channel's renderer walks. A prefix of an
 * answer parses too: an unclosed `**` is plain text until its closer arrives, so renderers
 * built on the tree emit balanced markup for every prefix.
 */
export function parseMarkdown(markdown: string): Root {
  return fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
}
