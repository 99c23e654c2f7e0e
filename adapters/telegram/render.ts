import type {
  Definition,
  List,
  ListItem,
  Nodes,
  PhrasingContent,
  Root,
  RootContent,
  Table,
} from "mdast";
import type { Renderer } from "../../src/ports.ts";
import { labelDisguisesTarget } from "../../src/reply/link-label.ts";
import { parseMarkdown } from "../../src/reply/markdown.ts";
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
  note: escapeText,
  measure: measureHtml,
};

interface Context {
  definitions: ReadonlyMap<string, Definition>;
  /** Inside a blockquote: no nested quote, code entity or link. */
  inQuote: boolean;
  /** Inside a link's label: no nested link or code entity. */
  inLink: boolean;
  /** Depth of list nesting, for bullets. */
  depth: number;
}

const BULLETS = ["•", "◦", "▪"];

export function renderMarkdown(markdown: string): string {
  return renderTree(parseMarkdown(markdown));
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
  const tree = parseMarkdown(markdown);
  let last: Nodes | undefined = tree;
  while (last && "children" in last && last.children.length > 0) last = last.children.at(-1);
  if (last?.type !== "text") return renderTree(tree);
  // The tree is shared (parses are kept): changed for this render only.
  const whole = last.value;
  last.value = whole.replace(OPENER, "$1");
  try {
    return renderTree(tree);
  } finally {
    last.value = whole;
  }
}

function renderTree(tree: Root): string {
  const definitions = new Map<string, Definition>();
  collectDefinitions(tree, definitions);
  return blocks(tree.children, { definitions, inQuote: false, inLink: false, depth: 0 }).trim();
}

function collectDefinitions(node: Nodes, into: Map<string, Definition>): void {
  if (node.type === "definition") into.set(node.identifier, node);
  if ("children" in node) for (const child of node.children) collectDefinitions(child, into);
}

function blocks(nodes: readonly RootContent[], ctx: Context, separator = "\n\n"): string {
  return nodes
    .map((node) => block(node, ctx))
    .filter((html) => html !== "")
    .join(separator);
}

function block(node: RootContent, ctx: Context): string {
  switch (node.type) {
    case "paragraph":
      return inline(node.children, ctx);
    case "heading":
      return wrap("b", inline(node.children, ctx));
    case "thematicBreak":
      return "———";
    case "blockquote":
      if (ctx.inQuote) return blocks(node.children, ctx);
      return wrap("blockquote", blocks(node.children, { ...ctx, inQuote: true }));
    case "list":
      return list(node, ctx);
    case "code":
      return codeBlock(node.value, node.lang, ctx);
    case "table":
      return table(node, ctx);
    case "html":
      return escapeText(node.value);
    case "footnoteDefinition":
      return `[${escapeHtml(node.label ?? node.identifier)}] ${blocks(node.children, ctx, "\n")}`;
    case "definition":
      return "";
    default:
      return "children" in node
        ? inline(node.children as PhrasingContent[], ctx)
        : "value" in node
          ? escapeText(String(node.value))
          : "";
  }
}

function list(node: List, ctx: Context): string {
  const start = node.start ?? 1;
  const inner = { ...ctx, depth: ctx.depth + 1 };
  return node.children
    .map((item, index) => {
      const marker = node.ordered
        ? `${start + index}.`
        : (BULLETS[Math.min(ctx.depth, BULLETS.length - 1)] ?? "•");
      return listItem(item, marker, inner);
    })
    .join(node.spread ? "\n\n" : "\n");
}

function listItem(item: ListItem, marker: string, ctx: Context): string {
  const check = item.checked === true ? "☑ " : item.checked === false ? "☐ " : "";
  const body = blocks(item.children, ctx, "\n");
  const indent = " ".repeat(marker.length + 1);
  return `${marker} ${check}${body.replace(/\n/g, `\n${indent}`)}`;
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
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  const lines = rows.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join(" | ")
      .trimEnd(),
  );
  if (lines.length > 1) lines.splice(1, 0, widths.map((w) => "-".repeat(w)).join("-|-"));
  return codeBlock(lines.join("\n"), undefined, ctx);
}

function inline(nodes: readonly PhrasingContent[], ctx: Context): string {
  return nodes.map((node) => phrasing(node, ctx)).join("");
}

function phrasing(node: PhrasingContent, ctx: Context): string {
  switch (node.type) {
    case "text":
      return escapeText(node.value);
    case "strong":
      return wrap("b", inline(node.children, ctx));
    case "emphasis":
      return wrap("i", inline(node.children, ctx));
    case "delete":
      return wrap("s", inline(node.children, ctx));
    case "inlineCode":
      return ctx.inQuote || ctx.inLink
        ? escapeText(node.value)
        : wrap("code", escapeHtml(node.value));
    case "break":
      return "\n";
    case "link":
      return link(node.url, node.children, ctx);
    case "image":
      return image(node.url, node.alt, ctx);
    case "linkReference": {
      const definition = ctx.definitions.get(node.identifier);
      if (definition) return link(definition.url, node.children, ctx);
      return `[${inline(node.children, ctx)}]`;
    }
    case "imageReference": {
      const definition = ctx.definitions.get(node.identifier);
      if (definition) return image(definition.url, node.alt, ctx);
      return escapeText(`![${node.alt ?? ""}]`);
    }
    case "footnoteReference":
      return escapeHtml(`[^${node.label ?? node.identifier}]`);
    case "html":
      return escapeText(node.value);
    default: {
      // A node kind added by a later mdast: its text, without markup.
      const other = node as { children?: PhrasingContent[]; value?: unknown };
      if (other.children) return inline(other.children, ctx);
      return typeof other.value === "string" ? escapeText(other.value) : "";
    }
  }
}

function link(url: string, children: readonly PhrasingContent[], ctx: Context): string {
  const href = httpUrl(url);
  const label = inline(children, { ...ctx, inLink: true });
  const labelText = plain(children);
  if (!href) return label;
  const shown = label.trim() === "" ? escapeHtml(href) : label;
  if (ctx.inLink) return shown;
  if (ctx.inQuote) return labelText === url ? shown : `${shown} (${escapeHtml(href)})`;
  // A label that reads as another address than the target would disguise the link.
  if (looksLikeOtherAddress(labelText, href)) {
    return `${label} (<a href="${escapeAttribute(href)}">${escapeHtml(href)}</a>)`;
  }
  return `<a href="${escapeAttribute(href)}">${shown}</a>`;
}

function image(url: string, alt: string | null | undefined, ctx: Context): string {
  const text = alt?.trim() ? alt : "image";
  return link(url, [{ type: "text", value: `🖼 ${text}` }], ctx);
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

function looksLikeOtherAddress(label: string, href: string): boolean {
  return labelDisguisesTarget(label, href);
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
