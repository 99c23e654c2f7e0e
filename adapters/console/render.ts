import type { Code, Image, ImageReference, Nodes, Table } from "mdast";
import { parseMarkdown } from "../../src/markdown/parse.ts";
import {
  BULLETS,
  columnWidths,
  type MarkdownRenderer,
  type Output,
  type Walk,
  type WalkContext,
  walkMarkdown,
} from "../../src/markdown/walk.ts";
import type { Renderer } from "../../src/ports.ts";
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

interface Context extends WalkContext {
  /** Style of the text around (a link inside bold text is bold too). */
  readonly style: number;
}

const RULE = "─".repeat(24);
const SPAN_STYLES = { strong: STYLE.bold, emphasis: STYLE.italic, delete: STYLE.strike } as const;

const RUNS: Output<Run[]> = {
  raw: (text) => [plain(text)],
  join: (parts, separator) =>
    separator
      ? parts.flatMap((part, i) => (i === 0 ? part : [plain(separator), ...part]))
      : parts.flat(),
  isBlank: (runs) => !hasText(runs),
};

const TERMINAL: MarkdownRenderer<Run[], Context> = {
  output: RUNS,
  heading: (node, ctx, walk) =>
    walk.inline(node.children, { ...ctx, style: ctx.style | STYLE.bold }),
  thematicBreak: () => [{ text: RULE, style: STYLE.dim }],
  blockquote: (children, ctx, walk) =>
    prefixLines(walk.blocks(children, ctx), { text: "│ ", style: STYLE.dim }),
  // Items one per line, loose or not: a list turns loose only once a later item arrives, and
  // what is already on the terminal should not have to move.
  list: (items) => RUNS.join(items, "\n"),
  listItem: (item, place, ctx, walk) => {
    const marker = place.number ?? place.box ?? BULLETS[place.depth % BULLETS.length] ?? "•";
    const body = walk.blocks(item.children, ctx, "\n");
    const indented = prefixLines(body, plain(" ".repeat(marker.length + 1)), false);
    return hasText(indented) ? [plain(`${marker} `), ...indented] : [plain(marker)];
  },
  code: (node, _ctx, walk) => codeBlock(node, walk.source),
  table,
  footnoteDefinition: (node, label, ctx, walk) => [
    plain(`[^${label}]: `),
    ...walk.blocks(node.children, ctx, "\n"),
  ],
  text: (value, ctx) => [{ text: value, style: ctx.style }],
  span: (node, ctx, walk) =>
    walk.inline(node.children, { ...ctx, style: ctx.style | SPAN_STYLES[node.type] }),
  inlineCode: (value, ctx) => [{ text: value, style: ctx.style | STYLE.code }],
  link: (node, url, ctx, walk) => link(url, walk.inline(node.children, ctx), ctx),
  image: (node, url, ctx) => link(url, imageLabel(node, ctx), ctx),
  unresolved: (node, ctx, walk) => [
    plain("["),
    ...(node.type === "imageReference" ? imageLabel(node, ctx) : walk.inline(node.children, ctx)),
    plain("]"),
  ],
  footnoteReference: (label) => [plain(`[^${label}]`)],
};

/** The chatbot's Markdown (or a prefix of it) as styled terminal text. */
export function renderTerminal(markdown: string): StyledText {
  const source = sanitize(markdown);
  return styledText(walkMarkdown(parseMarkdown(source), source, TERMINAL, { style: 0, depth: 0 }));
}

function imageLabel(node: Image | ImageReference, ctx: Context): Run[] {
  return [{ text: `🖼 ${node.alt || "image"}`, style: ctx.style }];
}

/** Fenced code as written, fences dimmed, code in colour; the closing fence once it came. */
function codeBlock(node: Code, source: string): Run[] {
  const fence = { text: `\`\`\`${node.lang ?? ""}`, style: STYLE.dim };
  const code = node.value ? [plain("\n"), { text: node.value, style: STYLE.code }] : [];
  return [
    fence,
    ...code,
    ...(isClosed(node, source) ? [plain("\n"), { ...fence, text: "```" }] : []),
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
function table(node: Table, ctx: Context, walk: Walk<Run[], Context>): Run[] {
  const rows = node.children.map((row) =>
    row.children.map((cell) => walk.inline(cell.children, ctx)),
  );
  const widths = columnWidths(rows, (cell) => cellsOf(textOf(cell)));
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
