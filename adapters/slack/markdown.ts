import type { Nodes, Parents, Root } from "mdast";
import { markdownParser } from "../../src/markdown/parse.ts";

export type { Root };

/**
 * The chatbot's Markdown as a tree (CommonMark + GFM, as the core's `parseMarkdown`), except
 * that raw HTML and character references are text: `<!channel>`, `<b>` and `&amp;` are
 * shown as written rather than read as HTML or decoded. Angle-bracket autolinks stay links;
 * the renderers decide what a safe link is.
 */
export const parseAnswer = markdownParser(["characterReference", "htmlFlow", "htmlText"]);

/** How a link node was written: `[text](url)` / `[text][ref]`, `<url>`, or a bare URL. */
export function linkForm(node: Nodes, source: string): "inline" | "angle" | "bare" {
  const start = node.position?.start.offset;
  const first = start === undefined ? "[" : source[start];
  return first === "[" || first === "!" ? "inline" : first === "<" ? "angle" : "bare";
}

/** Each line of `text` behind a quote's marker, as mrkdwn and Markdown both write a quote. */
export function quoted(text: string): string {
  return text
    .split("\n")
    .map((line) => (line ? `> ${line}` : ">"))
    .join("\n");
}

/** The node as the answer wrote it. */
export function nodeSource(node: Nodes, markdown: string): string {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  return start === undefined || end === undefined ? plainText(node) : markdown.slice(start, end);
}

/** The words of a node as a person reads them, markup left out (link text, cell text). */
export function plainText(node: Nodes): string {
  if ("value" in node && typeof node.value === "string") return node.value;
  if (node.type === "image") return node.alt ?? "";
  if (node.type === "break") return "\n";
  if ("children" in node) return (node as Parents).children.map(plainText).join("");
  return "";
}
