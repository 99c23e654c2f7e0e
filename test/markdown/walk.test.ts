import { describe, expect, it } from "vitest";
import { parseMarkdown } from "../../src/markdown/parse.ts";
import {
  type MarkdownRenderer,
  TEXT,
  type WalkContext,
  walkMarkdown,
  withLastText,
} from "../../src/markdown/walk.ts";

/** A channel that marks what the walker hands it, to see what the walker decides itself. */
const OUTLINE: MarkdownRenderer<string, WalkContext> = {
  output: TEXT,
  heading: (node, ctx, walk) => `H(${walk.inline(node.children, ctx)})`,
  thematicBreak: () => "---",
  blockquote: (children, ctx, walk) => `Q(${walk.blocks(children, ctx)})`,
  listItem: (item, place, ctx, walk) =>
    `${"  ".repeat(place.depth)}${place.number ?? "-"}${place.box ?? ""} ${walk.blocks(item.children, ctx, " / ")}`,
  code: (node) => `C(${node.value})`,
  table: () => "T",
  footnoteDefinition: (_node, label) => `F(${label})`,
  text: (value) => value,
  span: (node, ctx, walk) => `${node.type}(${walk.inline(node.children, ctx)})`,
  inlineCode: (value) => `\`${value}\``,
  link: (node, url, ctx, walk) => `L(${walk.inline(node.children, ctx)}→${url})`,
  image: (node, url) => `I(${node.alt ?? ""}→${url})`,
  unresolved: (node) => `U(${node.identifier})`,
  footnoteReference: (label) => `^${label}`,
};

const outline = (markdown: string) =>
  walkMarkdown(parseMarkdown(markdown), markdown, OUTLINE, { depth: 0 });

describe("the Markdown walker", () => {
  it("numbers ordered lists from their start, nests depth, and hands task boxes over", () => {
    expect(outline("3. three\n4. four\n   - [x] done\n   - [ ] to do")).toBe(
      "3. three\n4. four /   -☑ done\n  -☐ to do",
    );
  });

  it("resolves references through their definitions; one with none is text", () => {
    expect(outline("[docs][d] ![logo][d] [gone][x]\n\n[d]: https://example.com/d")).toBe(
      "L(docs→https://example.com/d) I(logo→https://example.com/d) [gone][x]",
    );
  });

  it("leaves blank blocks out, with their separators", () => {
    expect(outline("one\n\n[d]: https://example.com\n\ntwo")).toBe("one\n\ntwo");
  });

  it("changes the last text of a prefix without touching the shared parse", () => {
    const tree = parseMarkdown("a **b** and *c");
    const changed = withLastText(tree, (text) => text.toUpperCase());
    expect(walkMarkdown(changed, "", OUTLINE, { depth: 0 })).toBe("a strong(b) AND *C");
    expect(outline("a **b** and *c")).toBe("a strong(b) and *c");
  });
});
