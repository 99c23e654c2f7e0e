import type { Definition, List, ListItem, Nodes, PhrasingContent, RootContent, Table } from "mdast";
import type { Renderer } from "../../src/ports.ts";
import { parseMarkdown } from "../../src/reply/markdown.ts";
import { type Run, STYLE, type StyledText, styledText, toAnsi } from "./styled-text.ts";
import { cellsOf } from "./width.ts";

// C0 controls but tab and newline, DEL, and C1 controls: an escape sequence from the backend
// could otherwise move the cursor, recolour or retitle the person's terminal.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Piped output: the chatbot's Markdown as it is written, minus terminal controls. */
export const verbatimRenderer: Renderer = {
  render: (markdown) => sanitize(markdown),
  note: (text) => sanitize(text),
  measure: (rendered) => rendered.length,
};

/**
 * A terminal: the chatbot's Markdown with ANSI styles (bold, italic, struck, code in colour,
 * headings in bold), lists with bullets and links as `text (url)`. Built on the syntax tree,
 * so a prefix of an answer renders to lines whose styles are all closed.
 */
export const terminalRenderer: Renderer = {
  render: (markdown) => toAnsi(renderTerminal(markdown)),
  note: (text) => sanitize(text),
  measure: (rendered) => rendered.length,
};

export function sanitize(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(CONTROL, "\uFFFD");
}

interface Context {
  definitions: ReadonlyMap<string, Definition>;
  source: string;
  /** Style of the text around (a link inside bold text is bold too). */
  style: number;
  /** Nesting of lists, for the bullet shape. */
  depth: number;
}

const BULLETS = ["•", "◦", "▪"] as const;
const RULE = "─".repeat(24);

/** The chatbot's Markdown (or a prefix of it) as styled terminal text. */
export function renderTerminal(markdown: string): StyledText {
  const source = sanitize(markdown);
  const tree = parseMarkdown(source);
  const definitions = new Map<string, Definition>();
  collectDefinitions(tree, definitions);
  const runs = blocks(tree.children, { definitions, source, style: 0, depth: 0 }, "\n\n");
  return styledText(runs);
}

function collectDefinitions(node: Nodes, into: Map<string, Definition>): void {
  if (node.type === "definition") into.set(node.identifier, node);
  if ("children" in node) for (const child of node.children) collectDefinitions(child, into);
}

function blocks(nodes: readonly RootContent[], ctx: Context, separator: string): Run[] {
  const parts = nodes.map((node) => block(node, ctx)).filter(hasText);
  return parts.flatMap((part, i) => (i === 0 ? part : [plain(separator), ...part]));
}

function block(node: RootContent, ctx: Context): Run[] {
  switch (node.type) {
    case "paragraph":
      return inline(node.children, ctx);
    case "heading":
      return inline(node.children, { ...ctx, style: ctx.style | STYLE.bold });
    case "thematicBreak":
      return [{ text: RULE, style: STYLE.dim }];
    case "blockquote":
      return prefixLines(blocks(node.children, ctx, "\n\n"), { text: "│ ", style: STYLE.dim });
    case "list":
      return list(node, ctx);
    case "code":
      return codeBlock(node, ctx);
    case "table":
      return table(node, ctx);
    case "html":
      return [plain(node.value)];
    case "definition":
      return [];
    case "footnoteDefinition":
      return [plain(`[^${node.label ?? node.identifier}]: `), ...blocks(node.children, ctx, "\n")];
    default:
      return "children" in node ? blocks(node.children as RootContent[], ctx, "\n\n") : [];
  }
}

/**
 * Items one per line, loose or not: a list turns loose only once a later item arrives, and
 * what is already on the terminal should not have to move.
 */
function list(node: List, ctx: Context): Run[] {
  const start = node.start ?? 1;
  const inner = { ...ctx, depth: ctx.depth + 1 };
  const items = node.children.map((item, index) => {
    const bullet = BULLETS[ctx.depth % BULLETS.length] ?? "•";
    const box = item.checked === true ? "☑" : item.checked === false ? "☐" : undefined;
    return listItem(item, node.ordered ? `${start + index}.` : (box ?? bullet), inner);
  });
  return items.flatMap((item, i) => (i === 0 ? item : [plain("\n"), ...item]));
}

function listItem(item: ListItem, marker: string, ctx: Context): Run[] {
  const body = blocks(item.children, ctx, "\n");
  const indented = prefixLines(body, plain(" ".repeat(marker.length + 1)), false);
  return hasText(indented) ? [plain(`${marker} `), ...indented] : [plain(marker)];
}

/** Fenced code as written, fences dimmed, code in colour; the closing fence once it came. */
function codeBlock(node: Extract<RootContent, { type: "code" }>, ctx: Context): Run[] {
  const fence = { text: `\`\`\`${node.lang ?? ""}`, style: STYLE.dim };
  const code = node.value ? [plain("\n"), { text: node.value, style: STYLE.code }] : [];
  return [
    fence,
    ...code,
    ...(isClosed(node, ctx.source) ? [plain("\n"), { ...fence, text: "```" }] : []),
  ];
}

function isClosed(node: Nodes, source: string): boolean {
  const start = node.position?.start.offset ?? 0;
  const end = node.position?.end.offset ?? source.length;
  const text = source.slice(start, end);
  const opening = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1];
  if (!opening) return true;
  const lines = text.split("\n");
  const last = lines.at(-1)?.trim() ?? "";
  return lines.length > 1 && last.startsWith(opening) && /^(`+|~+)$/.test(last);
}

/** Columns aligned by their width on screen, the header row bold. */
function table(node: Table, ctx: Context): Run[] {
  const rows = node.children.map((row) => row.children.map((cell) => inline(cell.children, ctx)));
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cellsOf(textOf(cell)));
    });
  }
  const separator = { text: " │ ", style: STYLE.dim };
  const line = (row: Run[][], style: number): Run[] =>
    widths.flatMap((width, i) => {
      const cell = (row[i] ?? []).map((run) => ({ ...run, style: run.style | style }));
      // The last column needs no padding: trailing blanks could only wrap a narrow screen.
      const pad = plain(i === widths.length - 1 ? "" : " ".repeat(width - cellsOf(textOf(cell))));
      return i === 0 ? [...cell, pad] : [separator, ...cell, pad];
    });
  const [header, ...body] = rows;
  if (!header) return [];
  const rule = { text: widths.map((w) => "─".repeat(w)).join("─┼─"), style: STYLE.dim };
  const lines = [line(header, STYLE.bold), [rule], ...body.map((row) => line(row, 0))];
  return lines.flatMap((runs, i) => (i === 0 ? runs : [plain("\n"), ...runs]));
}

function inline(nodes: readonly PhrasingContent[], ctx: Context): Run[] {
  return nodes.flatMap((node) => phrasing(node, ctx));
}

function phrasing(node: PhrasingContent, ctx: Context): Run[] {
  const styled = (style: number, children: readonly PhrasingContent[]) =>
    inline(children, { ...ctx, style: ctx.style | style });
  switch (node.type) {
    case "text":
      return [{ text: node.value, style: ctx.style }];
    case "strong":
      return styled(STYLE.bold, node.children);
    case "emphasis":
      return styled(STYLE.italic, node.children);
    case "delete":
      return styled(STYLE.strike, node.children);
    case "inlineCode":
      return [{ text: node.value, style: ctx.style | STYLE.code }];
    case "break":
      return [plain("\n")];
    case "link":
      return link(node.url, inline(node.children, ctx), ctx);
    case "image":
      return link(node.url, [{ text: `🖼 ${node.alt || "image"}`, style: ctx.style }], ctx);
    case "linkReference":
    case "imageReference": {
      const definition = ctx.definitions.get(node.identifier);
      const label =
        node.type === "imageReference"
          ? [{ text: `🖼 ${node.alt || "image"}`, style: ctx.style }]
          : inline(node.children, ctx);
      return definition ? link(definition.url, label, ctx) : [plain("["), ...label, plain("]")];
    }
    case "footnoteReference":
      return [plain(`[^${node.label ?? node.identifier}]`)];
    case "html":
      return [{ text: node.value, style: ctx.style }];
    default: {
      // A node kind added by a later mdast: its text, without style.
      const other = node as { children?: PhrasingContent[]; value?: unknown };
      if (other.children) return inline(other.children, ctx);
      return typeof other.value === "string" ? [plain(other.value)] : [];
    }
  }
}

/**
 * A terminal cannot hide a link's target behind words: the address is shown after them,
 * underlined, unless the words are the address already (a bare URL or e-mail address, left
 * as written: while it streams, its growing text is only just turning into a link).
 */
function link(url: string, label: Run[], ctx: Context): Run[] {
  const words = textOf(label).trim();
  if (words && [words, `mailto:${words}`, `http://${words}`].includes(url)) return label;
  const target = { text: url, style: ctx.style | STYLE.underline };
  return words ? [...label, plain(" ("), target, plain(")")] : [target];
}

/** `runs` with `prefix` at the start of every line (after the first when `first` is false). */
function prefixLines(runs: readonly Run[], prefix: Run, first = true): Run[] {
  const out: Run[] = first ? [prefix] : [];
  for (const run of runs) {
    const lines = run.text.split("\n");
    lines.forEach((text, i) => {
      if (i > 0) out.push(plain("\n"), prefix);
      if (text) out.push({ text, style: run.style });
    });
  }
  return out;
}

function plain(text: string): Run {
  return { text, style: 0 };
}

function textOf(runs: readonly Run[]): string {
  return runs.map((run) => run.text).join("");
}

function hasText(runs: readonly Run[]): boolean {
  return runs.some((run) => run.text.trim() !== "");
}
