import type { Definition, List, ListItem, Nodes, PhrasingContent, RootContent, Table } from "mdast";
import type { Renderer } from "../../src/ports.ts";
import { encodeLinkTarget, escapeMrkdwn, isSafeLinkTarget, linkTextKind } from "./escape.ts";
import { definitions, linkForm, parseAnswer, plainText } from "./markdown.ts";

/**
 * The chatbot's Markdown as Slack mrkdwn, for `chat.postMessage` and `chat.update`. Built on
 * the syntax tree, so every prefix of an answer renders to balanced markup (an unclosed `**`
 * is text until its closer arrives), and everything from the backend is escaped: it cannot
 * ping, hide a link or break the markup. https://docs.slack.dev/messaging/formatting-message-text
 */
export const slackRenderer: Renderer = {
  render: renderMrkdwn,
  note: (text) => literal(text),
  // Slack counts characters; UTF-16 units count a character at least once, so this errs low.
  measure: (rendered) => rendered.length,
};

interface Context {
  source: string;
  definitions: Map<string, Definition>;
  /** Nesting of lists, for indentation and bullet shape. */
  depth: number;
}

const BULLETS = ["•", "◦", "▪"] as const;
const INDENT = "    ";

export function renderMrkdwn(markdown: string): string {
  const tree = parseAnswer(markdown);
  return blocks(tree.children, { source: markdown, definitions: definitions(tree), depth: 0 });
}

function blocks(nodes: readonly RootContent[], ctx: Context): string {
  return nodes
    .map((node) => block(node, ctx))
    .filter((text) => text !== "")
    .join("\n\n");
}

function block(node: RootContent, ctx: Context): string {
  switch (node.type) {
    case "paragraph":
      return inline(node.children, ctx);
    case "heading":
      // mrkdwn cannot nest bold: the heading is bold as a whole, its own ** markers dropped.
      return wrap("*", inline(unbolded(node.children), ctx));
    case "thematicBreak":
      return "──────────";
    case "blockquote":
      return blocks(node.children, ctx)
        .split("\n")
        .map((line) => (line ? `> ${line}` : ">"))
        .join("\n");
    case "list":
      return list(node, ctx);
    case "code":
      return codeBlock(node.value);
    case "table":
      return table(node);
    case "footnoteDefinition":
      return `${literal(`[^${node.label ?? node.identifier}]:`)} ${blocks(node.children, ctx)}`;
    case "html":
      return literal(node.value);
    default:
      // definitions (resolved where used), front matter: nothing to show.
      return "children" in node ? blocks(node.children as RootContent[], ctx) : "";
  }
}

function list(node: List, ctx: Context): string {
  const items = node.children.map((item, index) => {
    const number = node.ordered ? `${(node.start ?? 1) + index}.` : undefined;
    return listItem(item, number, ctx);
  });
  return items.join(node.spread ? "\n\n" : "\n");
}

function listItem(item: ListItem, number: string | undefined, ctx: Context): string {
  const indent = INDENT.repeat(ctx.depth);
  const box = item.checked === true ? "☑" : item.checked === false ? "☐" : undefined;
  const bullet = BULLETS[ctx.depth % BULLETS.length] ?? "•";
  const marker = [number ?? (box ? undefined : bullet), box].filter(Boolean).join(" ");
  const inner: Context = { ...ctx, depth: ctx.depth + 1 };
  const [first, ...rest] = item.children;
  const head = first?.type === "paragraph" ? inline(first.children, ctx) : "";
  const tail = (first?.type === "paragraph" ? rest : item.children).map((child) => {
    if (child.type === "list") return list(child, inner);
    const text = block(child, inner);
    // Code keeps its own lines; other continuation text lines up under the item's words.
    return child.type === "code" ? text : prefixLines(text, `${indent}  `);
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
  const columns = Math.max(0, ...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, c) =>
    Math.max(0, ...rows.map((row) => [...(row[c] ?? "")].length)),
  );
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

function inline(nodes: readonly PhrasingContent[], ctx: Context): string {
  return nodes.map((node) => phrasing(node, ctx)).join("");
}

function phrasing(node: PhrasingContent, ctx: Context): string {
  switch (node.type) {
    case "text":
      return literal(node.value);
    case "emphasis":
      return wrap("_", inline(node.children, ctx));
    case "strong":
      return wrap("*", inline(node.children, ctx));
    case "delete":
      return wrap("~", inline(node.children, ctx));
    case "inlineCode":
      return inlineCode(node.value);
    case "break":
      return "\n";
    case "link":
      return link(node, node.url, plainText(node), ctx);
    case "image":
      return link(node, node.url, node.alt ?? "", ctx);
    case "linkReference":
    case "imageReference": {
      const definition = ctx.definitions.get(node.identifier);
      const text = node.type === "imageReference" ? (node.alt ?? "") : plainText(node);
      return definition ? link(node, definition.url, text, ctx) : literal(source(node, ctx));
    }
    case "footnoteReference":
      return literal(`[^${node.label ?? node.identifier}]`);
    case "html":
      return literal(node.value);
    default:
      return "";
  }
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

/**
 * A link shows as `<url|text>` only when the text does not claim to be another address;
 * such text is shown as written with the real target beside it. Targets other than web and
 * mail addresses are not made clickable, and `<…>` written in the answer stays text.
 */
function link(node: Nodes, url: string, text: string, ctx: Context): string {
  const words = text.replace(/\s+/g, " ").trim();
  if (!isSafeLinkTarget(url)) {
    if (linkForm(node, ctx.source) === "angle") return literal(source(node, ctx));
    const kind = linkTextKind(words, url);
    return kind === "same" ? literal(url) : `${literal(words)} (${literal(url)})`;
  }
  const target = encodeLinkTarget(url);
  switch (linkTextKind(words, url)) {
    case "same":
      return words && words !== url ? `<${target}|${literal(words)}>` : `<${target}>`;
    case "other-url":
      return `${literal(words)} (<${target}>)`;
    case "words":
      return `<${target}|${literal(words)}>`;
  }
}

function source(node: Nodes, ctx: Context): string {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  return start === undefined || end === undefined ? plainText(node) : ctx.source.slice(start, end);
}

/** Inline content with `strong` nodes replaced by their children. */
function unbolded(nodes: readonly PhrasingContent[]): PhrasingContent[] {
  return nodes.flatMap((node) => (node.type === "strong" ? unbolded(node.children) : [node]));
}
