import type { List, ListItem, PhrasingContent, Table } from "mdast";
import { noteWithCode } from "../../src/markdown/note-code.ts";
import {
  type ListItemPlace,
  type MarkdownRenderer,
  TEXT,
  type Walk,
  type WalkContext,
} from "../../src/markdown/walk.ts";
import type { Renderer } from "../../src/ports.ts";
import { escapeHtml, escapeText, measureHtml } from "./escape.ts";
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
import {
  MAX_RICH_BLOCKS,
  MAX_RICH_NESTING,
  MAX_RICH_TABLE_COLUMNS,
  MAX_RICH_TEXT_LENGTH,
} from "./limits.ts";

/**
 * The chatbot's Markdown as the HTML of a Telegram rich message ("Rich HTML style" of
 * InputRichMessage, @grammyjs/types rich.d.ts): `p`, `h1`-`h6`, `b`, `i`, `s`, `code`, `pre`
 * with the language, `ul`/`ol` with task boxes, `blockquote`, `hr`, `table` and `a` for
 * http(s) links, and no other tag. Every text from the chatbot (raw HTML too) is escaped with
 * its mentions defused, and an image is a link to it, never a media block Telegram would
 * fetch. Built on the syntax tree, so every prefix of an answer gives balanced markup; what
 * nests deeper than a rich message may is drawn flat, and a table wider than one may is a
 * monospaced grid.
 */
export const telegramRichRenderer: Renderer = {
  render: renderRich,
  interim: renderRichStreaming,
  // A note is a paragraph of its own under the answer.
  note: (text) => wrap("p", noteWithCode(text, { code: codeHtml, text: richText })),
  measure: measureRich,
};

interface Context extends WalkContext {
  /**
   * Elements open around the node (a tight item's bare text counts as the paragraph Telegram
   * makes of it): whatever it opens must stay within MAX_RICH_NESTING. Blocks are always
   * rendered where one more fits, so a paragraph always can.
   */
  readonly level: number;
  /** In an item of a tight list: paragraphs are the item's bare text, as in HTML. */
  readonly tight: boolean;
  /** Inside a link's label: no nested link. */
  readonly inLink: boolean;
}

const RICH: MarkdownRenderer<string, Context> = {
  output: TEXT,
  paragraph: (children, ctx, walk) => {
    const content = walk.inline(children, deeper(ctx, 1));
    return ctx.tight ? content : wrap("p", content);
  },
  heading: (node, ctx, walk) => wrap(`h${node.depth}`, walk.inline(node.children, deeper(ctx, 1))),
  thematicBreak: () => "<hr/>",
  blockquote: (children, ctx, walk) =>
    fits(ctx, 2)
      ? wrap("blockquote", walk.blocks(children, { ...deeper(ctx, 1), tight: false }, "\n"))
      : walk.blocks(children, { ...ctx, tight: false }, "\n"),
  listItem,
  list,
  code: (node, ctx) =>
    node.value === ""
      ? ""
      : preHtml(node.value, fits(ctx, 2) ? codeLanguage(node.lang) : undefined),
  table,
  footnoteDefinition: (node, label, ctx, walk) =>
    withLead(`${escapeText(`[${label}]`)} `, walk.blocks(node.children, ctx, "\n")),
  text: (value) => richText(value),
  span: (node, ctx, walk) =>
    fits(ctx, 1)
      ? wrap(SPAN_TAGS[node.type], walk.inline(node.children, deeper(ctx, 1)))
      : walk.inline(node.children, ctx),
  inlineCode: (value, ctx) => (fits(ctx, 1) ? codeHtml(value) : escapeText(value)),
  lineBreak: () => LINE_BREAK,
  link: (node, url, ctx, walk) => link(url, node.children, ctx, walk),
  image: (node, url, ctx, walk) => link(url, imageLabel(node.alt), ctx, walk),
  unresolved: unresolvedHtml,
  footnoteReference: footnoteReferenceHtml,
};

const TOP: Context = { depth: 0, level: 0, tight: false, inLink: false };

export function renderRich(markdown: string): string {
  return renderHtml(RICH, TOP, markdown);
}

/** Renders an answer that is still streaming (see renderHtml). */
export function renderRichStreaming(markdown: string): string {
  return renderHtml(RICH, TOP, markdown, true);
}

/** Whether `count` more elements may open around the node. */
function fits(ctx: Context, count: number): boolean {
  return ctx.level + count <= MAX_RICH_NESTING;
}

function deeper(ctx: Context, count: number): Context {
  return { ...ctx, level: ctx.level + count };
}

const LINE_BREAK = "<br/>";
const LINE_END = /\r\n?|\n/g;

/**
 * Text as text: escaped, mentions defused, and each line end the chatbot wrote kept as a line
 * break (rich HTML runs white space together, as HTML does).
 */
function richText(value: string): string {
  const text = escapeText(value);
  // Most texts hold no line end: no pattern to run over them.
  return text.includes("\n") || text.includes("\r") ? text.replace(LINE_END, LINE_BREAK) : text;
}

const CHECKED = '<input type="checkbox" checked>';
const UNCHECKED = '<input type="checkbox">';

/**
 * A list item, its content one list and item deeper, and a paragraph deeper still. Where that
 * would nest past the limit, the item is drawn flat: its blocks where the list stands, led by
 * its marker, as today's HTML draws every list.
 */
function listItem(
  item: ListItem,
  place: ListItemPlace,
  ctx: Context,
  walk: Walk<string, Context>,
): string {
  if (!fits(ctx, 3)) {
    const marker = itemMarker(place);
    const lead = place.box ? `${marker} ${place.box} ` : `${marker} `;
    return withLead(escapeHtml(lead), walk.blocks(item.children, { ...ctx, tight: false }, "\n"));
  }
  const box = place.box === undefined ? "" : place.box === "☑" ? CHECKED : UNCHECKED;
  const inner = { ...deeper(ctx, 2), tight: !place.loose };
  return `<li>${box}${walk.blocks(item.children, inner, "\n")}</li>`;
}

/**
 * A list's items in `ul` or `ol` (numbered from its start), or one after another where they
 * are drawn flat. An empty item stays (a streaming "- " whose text is still to come), as it
 * does in today's HTML: a list's blocks only grow as its answer does.
 */
function list(items: readonly string[], node: List, ctx: Context): string {
  if (!fits(ctx, 3)) return items.join("\n");
  const tag = node.ordered ? "ol" : "ul";
  const start = node.ordered && (node.start ?? 1) !== 1 ? ` start="${node.start}"` : "";
  return `<${tag}${start}>${items.join("")}</${tag}>`;
}

/**
 * A table with its header row in `th` and each column aligned as its delimiter row says;
 * cells hold inline formatting only, as rich messages allow. A row with fewer cells is filled
 * with empty ones, and cells past the header's are left out, as GitHub does. A table wider than
 * a rich message holds, or nested too deep for one, is a monospaced grid as in today's HTML.
 */
function table(node: Table, ctx: Context, walk: Walk<string, Context>): string {
  const columns = node.children[0]?.children.length ?? 0;
  if (columns > MAX_RICH_TABLE_COLUMNS || !fits(ctx, 3)) return preHtml(tableGrid(node), undefined);
  const inCell = deeper(ctx, 3);
  const rows = node.children.map((row, index) => {
    const tag = index === 0 ? "th" : "td";
    let cells = "";
    for (let column = 0; column < columns; column++) {
      const align = node.align?.[column];
      const content = walk.inline(row.children[column]?.children ?? [], inCell);
      cells += `<${tag}${align ? ` align="${align}"` : ""}>${content}</${tag}>`;
    }
    return `<tr>${cells}</tr>`;
  });
  return `<table>${rows.join("")}</table>`;
}

function link(
  url: string,
  children: readonly PhrasingContent[],
  ctx: Context,
  walk: Walk<string, Context>,
): string {
  const form = ctx.inLink ? "label" : fits(ctx, 1) ? "anchor" : "text";
  return linkHtml(url, children, walk, { ...deeper(ctx, 1), inLink: true }, form);
}

const TEXT_BLOCK = /^<(?:p|h[1-6])>/;

/** `blocks` with `lead` (HTML: a flat item's marker, a footnote's label) before their text. */
function withLead(lead: string, blocks: string): string {
  const opening = TEXT_BLOCK.exec(blocks)?.[0];
  if (opening) return opening + lead + blocks.slice(opening.length);
  const own = `<p>${lead.trimEnd()}</p>`;
  return blocks ? `${own}\n${blocks}` : own;
}

/**
 * Room one block takes against the text limit in measureRich: a rendered text measured within
 * MAX_RICH_TEXT_LENGTH has at most 496 blocks, 4 fewer than MAX_RICH_BLOCKS. Those 4 cover
 * what a prefix of an answer may hold more than a longer one: a lone `-` or `*` is an empty
 * list item until what follows makes it text or a rule (`- -` is two lists, `- - -` a rule),
 * so a shorter head of a text within the limit is within Telegram's too.
 */
const BLOCK_WEIGHT = Math.ceil(MAX_RICH_TEXT_LENGTH / MAX_RICH_BLOCKS);
// The opening tag of each block this renderer writes; a list item whose content starts as
// bare text holds a paragraph block too.
const BLOCK = /<(?:p|h[1-6]|pre|hr|ul|ol|li|blockquote|table|tr)[\s/>]/g;
const BARE_ITEM =
  /<li>(?:<input[^>]*>)?(?!<(?:p|h[1-6]|pre|hr|ul|ol|blockquote|table)[\s/>]|<\/li>)/g;
const BREAKS = /<br\/>/g;

/**
 * A rendered text against both limits of one rich message at once: its visible text (in
 * UTF-16 code units, each line break one, white space between blocks too: at least the
 * characters Telegram counts, whether it counts code points or code units), or its blocks,
 * each counted as BLOCK_WEIGHT, whichever is more. Within MAX_RICH_TEXT_LENGTH, a text fits
 * both limits.
 */
export function measureRich(html: string): number {
  const blocks = count(html, BLOCK) + count(html, BARE_ITEM);
  return Math.max(measureHtml(html) + count(html, BREAKS), blocks * BLOCK_WEIGHT);
}

function count(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}
