import type { PhrasingContent, Root, Table } from "mdast";
import { labelDisguisesTarget } from "../../src/markdown/link-label.ts";
import { noteWithCode } from "../../src/markdown/note-code.ts";
import { parseMarkdown } from "../../src/markdown/parse.ts";
import {
  BULLETS,
  columnWidths,
  type MarkdownRenderer,
  TEXT,
  type Walk,
  type WalkContext,
  walkMarkdown,
  withLastText,
} from "../../src/markdown/walk.ts";
import type { Renderer } from "../../src/ports.ts";
import { escapeAttribute, escapeHtml, escapeText, measureHtml } from "./escape.ts";

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
  note: (text) =>
    noteWithCode(text, { code: (v) => wrap("code", escapeHtml(v)), text: escapeText }),
  measure: measureHtml,
};

interface Context extends WalkContext {
  /** Inside a blockquote: no nested quote, code entity or link. */
  readonly inQuote: boolean;
  /** Inside a link's label: no nested link or code entity. */
  readonly inLink: boolean;
}

const TAGS = { strong: "b", emphasis: "i", delete: "s" } as const;

const HTML: MarkdownRenderer<string, Context> = {
  output: TEXT,
  heading: (node, ctx, walk) => wrap("b", walk.inline(node.children, ctx)),
  thematicBreak: () => "———",
  blockquote: (children, ctx, walk) =>
    ctx.inQuote
      ? walk.blocks(children, ctx)
      : wrap("blockquote", walk.blocks(children, { ...ctx, inQuote: true })),
  listItem: (item, place, ctx, walk) => {
    const marker = place.number ?? BULLETS[Math.min(place.depth, BULLETS.length - 1)] ?? "•";
    const check = place.box ? `${place.box} ` : "";
    const body = walk.blocks(item.children, ctx, "\n");
    const indent = " ".repeat(marker.length + 1);
    return `${marker} ${check}${body.replace(/\n/g, `\n${indent}`)}`;
  },
  code: (node, ctx) => codeBlock(node.value, node.lang, ctx),
  table,
  footnoteDefinition: (node, label, ctx, walk) =>
    `[${escapeHtml(label)}] ${walk.blocks(node.children, ctx, "\n")}`,
  text: escapeText,
  span: (node, ctx, walk) => wrap(TAGS[node.type], walk.inline(node.children, ctx)),
  inlineCode: (value, ctx) =>
    ctx.inQuote || ctx.inLink ? escapeText(value) : wrap("code", escapeHtml(value)),
  link: (node, url, ctx, walk) => link(url, node.children, ctx, walk),
  image: (node, url, ctx, walk) => image(url, node.alt, ctx, walk),
  unresolved: (node, ctx, walk) =>
    node.type === "linkReference"
      ? `[${walk.inline(node.children, ctx)}]`
      : escapeText(`![${node.alt ?? ""}]`),
  footnoteReference: (label) => escapeHtml(`[^${label}]`),
};

export function renderMarkdown(markdown: string): string {
  return renderTree(parseMarkdown(markdown), markdown);
}

// An emphasis, strikethrough or code opener: a delimiter run that starts a word.
const OPENER = /(^|[\s([{"'“‘])([*_~`]{1,3})(?=[^\s*_~`])/gu;

/**
 * Renders an answer that is still streaming: an opener whose closer has not arrived yet
 * (`Hello! **Th`) is left out instead of showing as stars for a whole edit interval; the
 * text becomes bold once the closer arrives. Only the last text of the answer is touched
 * (an opener closed earlier is markup already), and the final text is always rendered whole
 * with `renderMarkdown`, so a literal `**` in a finished answer stays.
 */
export function renderStreaming(markdown: string): string {
  const tree = withLastText(parseMarkdown(markdown), (text) => text.replace(OPENER, "$1"));
  return renderTree(tree, markdown);
}

function renderTree(tree: Root, markdown: string): string {
  return walkMarkdown(tree, markdown, HTML, { inQuote: false, inLink: false, depth: 0 }).trim();
}

function codeBlock(value: string, lang: string | null | undefined, ctx: Context): string {
  if (value === "") return "";
  if (ctx.inQuote) return escapeText(value);
  const language = lang && /^[\w+#.-]{1,32}$/.test(lang) ? lang : undefined;
  return language
    ? `<pre><code class="language-${escapeAttribute(language)}">${escapeHtml(value)}</code></pre>`
    : `<pre>${escapeHtml(value)}</pre>`;
}

/** Telegram has no tables: columns aligned in a monospace block. */
function table(node: Table, ctx: Context): string {
  const rows = node.children.map((row) => row.children.map((cell) => plain(cell.children)));
  const widths = columnWidths(rows, (cell) => cell.length);
  const lines = rows.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join(" | ")
      .trimEnd(),
  );
  if (lines.length > 1) lines.splice(1, 0, widths.map((w) => "-".repeat(w)).join("-|-"));
  return codeBlock(lines.join("\n"), undefined, ctx);
}

function link(
  url: string,
  children: readonly PhrasingContent[],
  ctx: Context,
  walk: Walk<string, Context>,
): string {
  const href = httpUrl(url);
  const label = walk.inline(children, { ...ctx, inLink: true });
  const labelText = plain(children);
  if (!href) return label;
  const shown = label.trim() === "" ? escapeHtml(href) : label;
  if (ctx.inLink) return shown;
  if (ctx.inQuote) return labelText === url ? shown : `${shown} (${escapeHtml(href)})`;
  // A label that reads as another address than the target would disguise the link.
  if (labelDisguisesTarget(labelText, href)) {
    return `${label} (<a href="${escapeAttribute(href)}">${escapeHtml(href)}</a>)`;
  }
  return `<a href="${escapeAttribute(href)}">${shown}</a>`;
}

function image(
  url: string,
  alt: string | null | undefined,
  ctx: Context,
  walk: Walk<string, Context>,
): string {
  const text = alt?.trim() ? alt : "image";
  return link(url, [{ type: "text", value: `🖼 ${text}` }], ctx, walk);
}

/** The URL when it is a real http(s) link; anything else (javascript:, tg://) is no link. */
function httpUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** The text of inline nodes without any markup (table cells, link labels). */
function plain(nodes: readonly PhrasingContent[]): string {
  return nodes
    .map((node) => {
      if ("children" in node) return plain(node.children as PhrasingContent[]);
      if (node.type === "image" || node.type === "imageReference") return node.alt ?? "";
      if (node.type === "break") return " ";
      return "value" in node ? node.value : "";
    })
    .join("");
}

function wrap(tag: string, content: string): string {
  return content === "" ? "" : `<${tag}>${content}</${tag}>`;
}
