import type { ImageReference, LinkReference, PhrasingContent, Table } from "mdast";
import { withoutDanglingOpener } from "../../src/markdown/dangling-opener.ts";
import { labelDisguisesTarget } from "../../src/markdown/link-label.ts";
import { parseMarkdown } from "../../src/markdown/parse.ts";
import {
  BULLETS,
  columnWidths,
  type ListItemPlace,
  type MarkdownRenderer,
  type Walk,
  type WalkContext,
  walkMarkdown,
} from "../../src/markdown/walk.ts";
import { escapeAttribute, escapeHtml, escapeText } from "./escape.ts";

/**
 * What Telegram's two HTML forms build alike from the chatbot's Markdown: the classic parse
 * mode (render.ts) and rich messages (rich-render.ts). Both take the same safety rules from
 * here: only http(s) targets become links, a label never hides its target, and a language
 * name only of the characters a class may hold.
 */

/**
 * Renders `markdown` with `html` from the context `top`. While it `streams`, an opener whose
 * closer has not arrived yet is left out (see withoutDanglingOpener); the final text is
 * rendered whole.
 */
export function renderHtml<C extends WalkContext>(
  html: MarkdownRenderer<string, C>,
  top: C,
  markdown: string,
  streams = false,
): string {
  const tree = parseMarkdown(markdown);
  return walkMarkdown(streams ? withoutDanglingOpener(tree) : tree, markdown, html, top).trim();
}

/** The tags of bold, italic and strikethrough spans. */
export const SPAN_TAGS = { strong: "b", emphasis: "i", delete: "s" } as const;

/** How a link may show where it stands. */
export type LinkForm =
  /** As a link. */
  | "anchor"
  /** As text where no link may be: its label, and its address when that is not the label. */
  | "text"
  /** Inside another link's label: its label only. */
  | "label";

/**
 * A Markdown link to `url` as Telegram HTML, its label (`children`, rendered in `labelCtx`)
 * shown as `form` allows. A target other than http(s) (javascript:, tg://, mailto:) is no
 * link, and a label that reads as another address than the target is shown with the real
 * address beside it, so it cannot disguise where the link goes.
 */
export function linkHtml<C>(
  url: string,
  children: readonly PhrasingContent[],
  walk: Walk<string, C>,
  labelCtx: C,
  form: LinkForm,
): string {
  const href = httpUrl(url);
  const label = walk.inline(children, labelCtx);
  if (!href) return label;
  const labelText = plain(children);
  const shown = label.trim() === "" ? escapeHtml(href) : label;
  if (form === "label") return shown;
  if (form === "text") return labelText === url ? shown : `${shown} (${escapeHtml(href)})`;
  if (labelDisguisesTarget(labelText, href)) {
    return `${label} (<a href="${escapeAttribute(href)}">${escapeHtml(href)}</a>)`;
  }
  return `<a href="${escapeAttribute(href)}">${shown}</a>`;
}

/**
 * What an image shows as: a link labelled with its alt text, never the picture, so the bot
 * never has Telegram fetch an address the chatbot chose.
 */
export function imageLabel(alt: string | null | undefined): PhrasingContent[] {
  return [{ type: "text", value: `🖼 ${alt?.trim() ? alt : "image"}` }];
}

/** `[text][ref]` or `![alt][ref]` with no definition: shown as written. */
export function unresolvedHtml<C>(
  node: LinkReference | ImageReference,
  ctx: C,
  walk: Walk<string, C>,
): string {
  return node.type === "linkReference"
    ? `[${walk.inline(node.children, ctx)}]`
    : escapeText(`![${node.alt ?? ""}]`);
}

/** A footnote reference, as written (its label may be a name to ping). */
export function footnoteReferenceHtml(label: string): string {
  return escapeText(`[^${label}]`);
}

/** Inline code: plain text in monospace (it cannot ping or link). */
export function codeHtml(value: string): string {
  return wrap("code", escapeHtml(value));
}

/** A code block's language, when its name is one a class attribute may carry. */
export function codeLanguage(lang: string | null | undefined): string | undefined {
  return lang && /^[\w+#.-]{1,32}$/.test(lang) ? lang : undefined;
}

/** A `pre` block of `value`, its language named when there is one. */
export function preHtml(value: string, language: string | undefined): string {
  return language
    ? `<pre><code class="language-${escapeAttribute(language)}">${escapeHtml(value)}</code></pre>`
    : `<pre>${escapeHtml(value)}</pre>`;
}

/** A table's columns aligned in monospace text, for a `pre` block where no table can be. */
export function tableGrid(node: Table): string {
  const rows = node.children.map((row) => row.children.map((cell) => plain(cell.children)));
  const widths = columnWidths(rows, (cell) => cell.length);
  const lines = rows.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join(" | ")
      .trimEnd(),
  );
  if (lines.length > 1) lines.splice(1, 0, widths.map((w) => "-".repeat(w)).join("-|-"));
  return lines.join("\n");
}

/** The URL when it is a real http(s) link; anything else (javascript:, tg://) is no link. */
export function httpUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** The text of inline nodes without any markup (table cells, link labels). */
export function plain(nodes: readonly PhrasingContent[]): string {
  return nodes
    .map((node) => {
      if ("children" in node) return plain(node.children as PhrasingContent[]);
      if (node.type === "image" || node.type === "imageReference") return node.alt ?? "";
      if (node.type === "break") return " ";
      return "value" in node ? node.value : "";
    })
    .join("");
}

/** A list item's marker as Telegram's HTML draws lists: its number, else a bullet by depth. */
export function itemMarker(place: ListItemPlace): string {
  return place.number ?? BULLETS[Math.min(place.depth, BULLETS.length - 1)] ?? "•";
}

export function wrap(tag: string, content: string): string {
  return content === "" ? "" : `<${tag}>${content}</${tag}>`;
}
