import type { ListItem, Nodes, PhrasingContent, Root, Table } from "mdast";
import { noteWithCode } from "../../src/markdown/note-code.ts";
import {
  BULLETS,
  columnWidths,
  type ListItemPlace,
  type MarkdownRenderer,
  TEXT,
  type Walk,
  type WalkContext,
  walkMarkdown,
} from "../../src/markdown/walk.ts";
import type { Renderer } from "../../src/ports.ts";
import { encodeLinkTarget, escapeMrkdwn } from "./escape.ts";
import { linkShape } from "./link-shape.ts";
import { nodeSource, parseAnswer, plainText, quoted } from "./markdown.ts";

/**
 * The chatbot's Markdown as Slack mrkdwn, for `chat.postMessage` and `chat.update`. Built on
 * the syntax tree, so every prefix of an answer renders to balanced markup (an unclosed `**`
 * is text until its closer arrives), and everything from the backend is escaped: it cannot
 * ping, hide a link or break the markup. https://docs.slack.dev/messaging/formatting-message-text
 */
export const slackRenderer: Renderer = {
  render: renderMrkdwn,
  // Code cannot ping, link or carry markup (see inlineCode).
  note: (text) => noteWithCode(text, { code: inlineCode, text: literal }),
  // Slack counts characters; UTF-16 units count a character at least once, so this errs low.
  measure: (rendered) => rendered.length,
};

const INDENT = "    ";
const MARKERS = { strong: "*", emphasis: "_", delete: "~" } as const;

const MRKDWN: MarkdownRenderer<string, WalkContext> = {
  output: TEXT,
  // mrkdwn cannot nest bold: the heading is bold as a whole, its own ** markers dropped.
  heading: (node, ctx, walk) => wrap("*", walk.inline(unbolded(node.children), ctx)),
  thematicBreak: () => "──────────",
  blockquote: (children, ctx, walk) => quoted(walk.blocks(children, ctx)),
  listItem,
  code: (node) => codeBlock(node.value),
  table: (node) => table(node),
  footnoteDefinition: (node, label, ctx, walk) =>
    `${literal(`[^${label}]:`)} ${walk.blocks(node.children, ctx)}`,
  text: literal,
  span: (node, ctx, walk) => wrap(MARKERS[node.type], walk.inline(node.children, ctx)),
  inlineCode: (value) => inlineCode(value),
  link: (node, url, _ctx, walk) => link(node, url, plainText(node), walk.source),
  image: (node, url, _ctx, walk) => link(node, url, node.alt ?? "", walk.source),
  unresolved: (node, _ctx, walk) => literal(nodeSource(node, walk.source)),
  footnoteReference: (label) => literal(`[^${label}]`),
};

export function renderMrkdwn(markdown: string): string {
  return mrkdwnOf(parseAnswer(markdown), markdown);
}

/** The mrkdwn of `tree`, parsed from `markdown`. */
export function mrkdwnOf(tree: Root, markdown: string): string {
  return walkMarkdown(tree, markdown, MRKDWN, { depth: 0 });
}

function listItem(
  item: ListItem,
  place: ListItemPlace,
  inner: WalkContext,
  walk: Walk<string, WalkContext>,
): string {
  const indent = INDENT.repeat(place.depth);
  const bullet = BULLETS[place.depth % BULLETS.length] ?? "•";
  const marker = [place.number ?? (place.box ? undefined : bullet), place.box]
    .filter(Boolean)
    .join(" ");
  const [first, ...rest] = item.children;
  const head = first?.type === "paragraph" ? walk.inline(first.children, inner) : "";
  const tail = (first?.type === "paragraph" ? rest : item.children).map((child) => {
    const text = walk.block(child, inner);
    // Lists and code keep their own lines; other continuation text lines up under the
    // item's words.
    return child.type === "list" || child.type === "code" ? text : prefixLines(text, `${indent}  `);
  });
  return [`${indent}${marker} ${head}`.trimEnd(), ...tail.filter(Boolean)].join("\n");
}

function prefixLines(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((line) => (line ? prefix + line : line))
    .join("\n");
}

/** Fenced code, language dropped (mrkdwn has no highlighting); a ``` inside cannot end it. */
function codeBlock(value: string): string {
  return `\`\`\`\n${escapeMrkdwn(value).replace(/```/g, "`\u200b``")}\n\`\`\``;
}

/** mrkdwn has no tables: a monospaced grid keeps the columns readable. */
function table(node: Table): string {
  const rows = node.children.map((row) =>
    row.children.map((cell) => plainText(cell).replace(/\s+/g, " ").trim()),
  );
  const widths = columnWidths(rows, (cell) => [...cell].length);
  const line = (row: readonly string[]) =>
    widths
      .map((width, c) => pad(row[c] ?? "", width))
      .join(" | ")
      .trimEnd();
  const [header, ...body] = rows;
  const separator = widths.map((width) => "-".repeat(Math.max(1, width))).join("-+-");
  const lines = header ? [line(header), separator, ...body.map(line)] : [];
  return codeBlock(lines.join("\n"));
}

function pad(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - [...text].length));
}

/**
 * Wraps each line of `content` in a formatting marker. Slack formats within a line only, and
 * only when the marker touches a non-space character, so spaces stay outside.
 */
function wrap(marker: string, content: string): string {
  return content
    .split("\n")
    .map((line) => {
      const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(line);
      const [, lead = "", body = "", trail = ""] = match ?? [];
      return body ? `${lead}${marker}${body}${marker}${trail}` : line;
    })
    .join("\n");
}

const ZERO_WIDTH_SPACE = "\u200b";
const WORD = /[\p{L}\p{N}]/u;

/**
 * Text as text. mrkdwn has no escape for its formatting characters: a `*`, `_` or `~` that
 * could open or close a span (not inside a word like snake_case) and every backtick get a
 * zero-width space on each side, which keeps Slack from pairing them and shows nothing.
 */
function literal(text: string): string {
  const escaped = escapeMrkdwn(text);
  let out = "";
  for (let i = 0; i < escaped.length; i++) {
    const char = escaped[i] ?? "";
    const inWord = WORD.test(escaped[i - 1] ?? "") && WORD.test(escaped[i + 1] ?? "");
    out +=
      char === "`" || ((char === "*" || char === "_" || char === "~") && !inWord)
        ? ZERO_WIDTH_SPACE + char + ZERO_WIDTH_SPACE
        : char;
  }
  return out;
}

/** A backtick cannot be escaped inside mrkdwn code: it shows as the look-alike ˋ instead. */
function inlineCode(value: string): string {
  return value ? `\`${escapeMrkdwn(value.replace(/`/g, "ˋ"))}\`` : "";
}

/** A link as `<url|text>` where it may be one (see linkShape), a target kept to itself. */
function link(node: Nodes, url: string, text: string, markdown: string): string {
  const shape = linkShape(node, url, text, markdown);
  switch (shape.kind) {
    case "text":
      return literal(shape.text);
    case "link": {
      const target = encodeLinkTarget(shape.url);
      return shape.words === undefined ? `<${target}>` : `<${target}|${literal(shape.words)}>`;
    }
    case "beside":
      return `${literal(shape.words)} (<${encodeLinkTarget(shape.url)}>)`;
  }
}

/** Inline content with `strong` nodes replaced by their children. */
function unbolded(nodes: readonly PhrasingContent[]): PhrasingContent[] {
  return nodes.flatMap((node) => (node.type === "strong" ? unbolded(node.children) : [node]));
}
