import type { ListItem, Nodes, Root, Table } from "mdast";
import { noteWithCode } from "../../src/markdown/note-code.ts";
import {
  type ListItemPlace,
  type MarkdownRenderer,
  TEXT,
  type Walk,
  type WalkContext,
  walkMarkdown,
} from "../../src/markdown/walk.ts";
import { breakSlackTokens, escapeMarkdownBlock } from "./escape.ts";
import { linkShape } from "./link-shape.ts";
import { nodeSource, plainText, quoted } from "./markdown.ts";

/**
 * The chatbot's Markdown as the text of a Slack markdown block, which Slack renders as it
 * renders a native stream: tables, headings, lists, quotes and code as such. Written anew from
 * the syntax tree, never passed through, with the mrkdwn renderer's discipline: text is text
 * (escaped, `&`, `<` and `>` as entities, so no `<@U1>`, `<!channel>` or `<url|text>` of
 * Slack's can form), code holds no token of Slack's, and a link shows where it goes (see
 * linkShape). https://docs.slack.dev/reference/block-kit/blocks/markdown-block
 */
export function markdownBlockOf(tree: Root, markdown: string): string {
  return walkMarkdown(tree, markdown, BLOCK, { depth: 0, inTable: false });
}

/** A note of the bot's own as markdown block text, its `…` spans as code (see noteWithCode). */
export function markdownBlockNote(text: string): string {
  return noteWithCode(text, {
    code: (value) => inlineCode(value, false),
    text: escapeMarkdownBlock,
  });
}

interface BlockContext extends WalkContext {
  /** Inside a table's cell, where a `|` would end the cell, even in code. */
  readonly inTable: boolean;
}

const MARKERS = { strong: "**", emphasis: "*", delete: "~~" } as const;

const BLOCK: MarkdownRenderer<string, BlockContext> = {
  output: TEXT,
  heading: (node, ctx, walk) => {
    const content = oneLine(walk.inline(node.children, ctx));
    return content ? `${"#".repeat(node.depth)} ${content}` : "";
  },
  thematicBreak: () => "---",
  blockquote: (children, ctx, walk) => quoted(walk.blocks(children, ctx)),
  listItem,
  code: (node) => codeBlock(node.value, node.lang),
  table,
  footnoteDefinition: (node, label, ctx, walk) =>
    `${escapeMarkdownBlock(`[^${label}]:`)} ${walk.blocks(node.children, ctx)}`,
  text: (value) => escapeMarkdownBlock(value),
  span: (node, ctx, walk) => wrap(MARKERS[node.type], walk.inline(node.children, ctx)),
  inlineCode: (value, ctx) => inlineCode(value, ctx.inTable),
  link: (node, url, _ctx, walk) => link(node, url, plainText(node), walk.source),
  image: (node, url, _ctx, walk) => link(node, url, node.alt ?? "", walk.source),
  unresolved: (node, _ctx, walk) => escapeMarkdownBlock(nodeSource(node, walk.source)),
  footnoteReference: (label) => escapeMarkdownBlock(`[^${label}]`),
};

/**
 * An item as `- ` or `3. ` (a task's box after it), its other lines indented under its first
 * word, which is how Markdown nests what the item holds.
 */
function listItem(
  item: ListItem,
  place: ListItemPlace,
  inner: BlockContext,
  walk: Walk<string, BlockContext>,
): string {
  const marker = `${place.number ?? "-"} `;
  const box = item.checked === true ? "[x] " : item.checked === false ? "[ ] " : "";
  const content = walk.blocks(item.children, inner, item.spread ? "\n\n" : "\n");
  const indent = " ".repeat(marker.length);
  const lines = content.split("\n").map((line, i) => (i === 0 || !line ? line : indent + line));
  return `${marker}${box}${lines.join("\n")}`.trimEnd();
}

/** Fenced code in a fence longer than any run of backticks in it, its language kept. */
function codeBlock(value: string, lang: string | null | undefined): string {
  const fence = "`".repeat(Math.max(3, longestRun(value, "`") + 1));
  const language = lang?.replace(/[^\w#+.-]/g, "") ?? "";
  const body = value ? `${breakSlackTokens(value)}\n` : "";
  return `${fence}${language}\n${body}${fence}`;
}

/** A GFM table, its columns aligned as the answer's; a cell holds one line. */
function table(node: Table, ctx: BlockContext, walk: Walk<string, BlockContext>): string {
  const inCell = { ...ctx, inTable: true };
  const rows = node.children.map((row) =>
    row.children.map((cell) => oneLine(walk.inline(cell.children, inCell))),
  );
  const columns = Math.max(node.align?.length ?? 0, ...rows.map((row) => row.length));
  const line = (cells: readonly string[]) =>
    `| ${Array.from({ length: columns }, (_, c) => cells[c] ?? "").join(" | ")} |`;
  const delimiter = Array.from({ length: columns }, (_, c) => {
    const align = node.align?.[c];
    return align === "center"
      ? ":---:"
      : align === "right"
        ? "---:"
        : align === "left"
          ? ":---"
          : "---";
  });
  const [header = [], ...body] = rows;
  return [line(header), line(delimiter), ...body.map(line)].join("\n");
}

/**
 * Code as an inline code span: fenced by more backticks than any run in it, padded where a
 * backtick or a space at an end would be lost, and in a table each `|` escaped (GFM splits a
 * row into cells before it reads code).
 */
function inlineCode(value: string, inTable: boolean): string {
  if (!value) return "";
  const fence = "`".repeat(longestRun(value, "`") + 1);
  const pad = /^[` ]|[` ]$/.test(value) && value.trim() ? " " : "";
  const code = breakSlackTokens(value);
  return `${fence}${pad}${inTable ? code.replace(/\|/g, "\\|") : code}${pad}${fence}`;
}

/** A link as `[text](url)` where it may be one (see linkShape). */
function link(node: Nodes, url: string, text: string, markdown: string): string {
  const shape = linkShape(node, url, text, markdown);
  switch (shape.kind) {
    case "text":
      return escapeMarkdownBlock(shape.text);
    case "link":
      return markdownLink(shape.words ?? shape.url, shape.url);
    case "beside":
      return `${escapeMarkdownBlock(shape.words)} (${markdownLink(shape.url, shape.url)})`;
  }
}

/**
 * `[text](url)`: a space, a parenthesis, an angle bracket, a backslash or a `|` (which would
 * end a table's cell) in the address percent-encoded, which opens the same place.
 */
function markdownLink(text: string, url: string): string {
  return `[${escapeMarkdownBlock(text)}](${url.replace(/[ ()<>\\|]/g, encodeURIComponent)})`;
}

/**
 * Wraps `content` in an emphasis marker, white space at its ends left outside: Markdown reads
 * a marker as one only where it touches a non-space character.
 */
function wrap(marker: string, content: string): string {
  const [, lead = "", body = "", trail = ""] = /^(\s*)([\s\S]*?)(\s*)$/.exec(content) ?? [];
  return body ? `${lead}${marker}${body}${marker}${trail}` : content;
}

/** Text on one line (a heading's, a cell's): its line breaks as spaces. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}

/** The longest run of `char` in `text`. */
function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}
