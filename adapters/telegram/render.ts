import type { PhrasingContent, Table } from "mdast";
import { noteWithCode } from "../../src/markdown/note-code.ts";
import {
  type MarkdownRenderer,
  TEXT,
  type Walk,
  type WalkContext,
} from "../../src/markdown/walk.ts";
import type { Renderer } from "../../src/ports.ts";
import { escapeText, measureHtml } from "./escape.ts";
import {
  codeHtml,
  codeLanguage,
  footnoteReferenceHtml,
  imageLabel,
  itemMarker,
  linkHtml,
  preHtml,
  renderHtml,
  SPAN_TAGS,
  tableGrid,
  unresolvedHtml,
  wrap,
} from "./html-pieces.ts";
/**
 * The chatbot's Markdown as Telegram HTML: `b`, `i`, `s`, `code`, `pre` (with the language),
 * `a` for http(s) links and `blockquote`; everything else is escaped text. Built on the
 * Markdown syntax tree, so every prefix of an answer gives balanced tags, and it keeps
 * Telegram's nesting rules (https://core.telegram.org/bots/api#formatting-options): `code`
 * and `pre` hold plain text only, and links, code and quotes never contain each other
 * (inside a quote, code shows as plain text and a link as its label with the address).
 */
export const telegramRenderer: Renderer = {
  render: renderMarkdown,
  note: (text) => noteWithCode(text, { code: codeHtml, text: escapeText }),
  measure: measureHtml,
};

interface Context extends WalkContext {
  /** Inside a blockquote: no nested quote, code entity or link. */
  readonly inQuote: boolean;
  /** Inside a link's label: no nested link or code entity. */
  readonly inLink: boolean;
}

const HTML: MarkdownRenderer<string, Context> = {
  output: TEXT,
  heading: (node, ctx, walk) => wrap("b", walk.inline(node.children, ctx)),
  thematicBreak: () => "———",
  blockquote: (children, ctx, walk) =>
    ctx.inQuote
      ? walk.blocks(children, ctx)
      : wrap("blockquote", walk.blocks(children, { ...ctx, inQuote: true })),
  listItem: (item, place, ctx, walk) => {
    const marker = itemMarker(place);
    const check = place.box ? `${place.box} ` : "";
    const body = walk.blocks(item.children, ctx, "\n");
    const indent = " ".repeat(marker.length + 1);
    return `${marker} ${check}${body.replace(/\n/g, `\n${indent}`)}`;
  },
  code: (node, ctx) => codeBlock(node.value, node.lang, ctx),
  table,
  footnoteDefinition: (node, label, ctx, walk) =>
    `${escapeText(`[${label}]`)} ${walk.blocks(node.children, ctx, "\n")}`,
  text: escapeText,
  span: (node, ctx, walk) => wrap(SPAN_TAGS[node.type], walk.inline(node.children, ctx)),
  inlineCode: (value, ctx) => (ctx.inQuote || ctx.inLink ? escapeText(value) : codeHtml(value)),
  link: (node, url, ctx, walk) => link(url, node.children, ctx, walk),
  image: (node, url, ctx, walk) => link(url, imageLabel(node.alt), ctx, walk),
  unresolved: unresolvedHtml,
  footnoteReference: footnoteReferenceHtml,
};

const TOP: Context = { inQuote: false, inLink: false, depth: 0 };

export function renderMarkdown(markdown: string): string {
  return renderHtml(HTML, TOP, markdown);
}

/** Renders an answer that is still streaming (see renderHtml). */
export function renderStreaming(markdown: string): string {
  return renderHtml(HTML, TOP, markdown, true);
}

function codeBlock(value: string, lang: string | null | undefined, ctx: Context): string {
  if (value === "") return "";
  if (ctx.inQuote) return escapeText(value);
  return preHtml(value, codeLanguage(lang));
}

/** Telegram has no tables: columns aligned in a monospace block. */
function table(node: Table, ctx: Context): string {
  return codeBlock(tableGrid(node), undefined, ctx);
}

function link(
  url: string,
  children: readonly PhrasingContent[],
  ctx: Context,
  walk: Walk<string, Context>,
): string {
  const form = ctx.inLink ? "label" : ctx.inQuote ? "text" : "anchor";
  return linkHtml(url, children, walk, { ...ctx, inLink: true }, form);
}
