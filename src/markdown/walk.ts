import type {
  Code,
  Definition,
  Delete,
  Emphasis,
  FootnoteDefinition,
  Heading,
  Image,
  ImageReference,
  Link,
  LinkReference,
  List,
  ListItem,
  Nodes,
  PhrasingContent,
  Root,
  RootContent,
  Strong,
  Table,
} from "mdast";

/**
 * How a channel's output is put together: strings for Slack and Telegram, styled runs for a
 * terminal.
 */
export interface Output<Out> {
  /** Text as it is, for the walker's separators and line breaks. */
  raw(text: string): Out;
  /** The parts in order, `separator` between each two. */
  join(parts: readonly Out[], separator: string): Out;
  /** Whether a block shows nothing: it is left out, with its separator. */
  isBlank(out: Out): boolean;
}

/** Output as one string. */
export const TEXT: Output<string> = {
  raw: (text) => text,
  join: (parts, separator) => parts.join(separator),
  isBlank: (text) => text === "",
};

/** The state every walk carries: the walker counts lists, the channel adds its own. */
export interface WalkContext {
  /** Lists around the node: a top-level list's items are at depth 0. */
  readonly depth: number;
}

/** What a handler may ask the walker to render: the children of the node it handles. */
export interface Walk<Out, C> {
  /** The Markdown the tree was parsed from (positions are offsets into it). */
  readonly source: string;
  /** Block nodes, each rendered, blank ones left out, `separator` (a blank line) between. */
  blocks(nodes: readonly RootContent[], ctx: C, separator?: string): Out;
  block(node: RootContent, ctx: C): Out;
  inline(nodes: readonly PhrasingContent[], ctx: C): Out;
}

/** Where a list item stands, worked out by the walker; the channel draws its marker. */
export interface ListItemPlace {
  /** "3." in an ordered list (counting on from its start), undefined in a bulleted one. */
  number: string | undefined;
  /** A task item's box: "☑" done, "☐" to do; undefined for an item that is no task. */
  box: "☑" | "☐" | undefined;
  /** Lists around the item's own list (0: a top-level list), for indentation and bullets. */
  depth: number;
  /** Whether its list is loose (a blank line between or inside its items): paragraphs apart. */
  loose: boolean;
}

/** The bullets of nested lists, outermost first. */
export const BULLETS = ["•", "◦", "▪"] as const;

/**
 * One channel's output for each kind of node. The walker visits the tree, resolves link
 * references, numbers lists and joins blocks; a handler writes its node in the channel's
 * markup and escaping, asking `walk` for its children. `ctx` is the channel's state for the
 * node (inside a quote, a link, a style), passed down as the handlers change it.
 */
export interface MarkdownRenderer<Out, C extends WalkContext> {
  output: Output<Out>;
  /**
   * A paragraph (and a block of raw HTML, as its text) from its inline content; unset: the
   * content as it is.
   */
  paragraph?(children: readonly PhrasingContent[], ctx: C, walk: Walk<Out, C>): Out;
  heading(node: Heading, ctx: C, walk: Walk<Out, C>): Out;
  thematicBreak(): Out;
  blockquote(children: readonly RootContent[], ctx: C, walk: Walk<Out, C>): Out;
  /** One item; `ctx` is already one list deeper (what its children are rendered in). */
  listItem(item: ListItem, place: ListItemPlace, ctx: C, walk: Walk<Out, C>): Out;
  /** A list's items put together; unset: one per line, a blank line between in a loose list. */
  list?(items: readonly Out[], node: List, ctx: C): Out;
  code(node: Code, ctx: C, walk: Walk<Out, C>): Out;
  table(node: Table, ctx: C, walk: Walk<Out, C>): Out;
  footnoteDefinition(node: FootnoteDefinition, label: string, ctx: C, walk: Walk<Out, C>): Out;
  /** Text of the answer (raw HTML too: it is shown as written). */
  text(value: string, ctx: C): Out;
  span(node: Strong | Emphasis | Delete, ctx: C, walk: Walk<Out, C>): Out;
  inlineCode(value: string, ctx: C): Out;
  /** A hard line break inside a paragraph; unset: a line end. */
  lineBreak?(ctx: C): Out;
  /** A link, or a link reference whose definition is known: `url` is where it goes. */
  link(node: Link | LinkReference, url: string, ctx: C, walk: Walk<Out, C>): Out;
  image(node: Image | ImageReference, url: string, ctx: C, walk: Walk<Out, C>): Out;
  /** `[text][ref]` or `![alt][ref]` whose definition the walker did not find: no link. */
  unresolved(node: LinkReference | ImageReference, ctx: C, walk: Walk<Out, C>): Out;
  footnoteReference(label: string, ctx: C): Out;
}

/** Renders a parsed answer with a channel's handlers. */
export function walkMarkdown<Out, C extends WalkContext>(
  tree: Root,
  source: string,
  renderer: MarkdownRenderer<Out, C>,
  ctx: C,
): Out {
  return new TreeWalk(renderer, source, tree).blocks(tree.children, ctx);
}

class TreeWalk<Out, C extends WalkContext> implements Walk<Out, C> {
  readonly #r: MarkdownRenderer<Out, C>;
  readonly #out: Output<Out>;
  readonly #tree: Root;
  /** Found when a reference first needs them: most answers have none. */
  #definitions: ReadonlyMap<string, Definition> | undefined;
  readonly #empty: Out;
  readonly source: string;

  constructor(renderer: MarkdownRenderer<Out, C>, source: string, tree: Root) {
    this.#r = renderer;
    this.#out = renderer.output;
    this.#tree = tree;
    this.#empty = renderer.output.join([], "");
    this.source = source;
  }

  blocks(nodes: readonly RootContent[], ctx: C, separator = "\n\n"): Out {
    const parts: Out[] = [];
    for (const node of nodes) {
      const part = this.block(node, ctx);
      if (!this.#out.isBlank(part)) parts.push(part);
    }
    return this.#out.join(parts, separator);
  }

  block(node: RootContent, ctx: C): Out {
    const r = this.#r;
    switch (node.type) {
      case "paragraph":
        return this.#paragraph(node.children, ctx);
      case "heading":
        return r.heading(node, ctx, this);
      case "thematicBreak":
        return r.thematicBreak();
      case "blockquote":
        return r.blockquote(node.children, ctx, this);
      case "list": {
        const inner = { ...ctx, depth: ctx.depth + 1 };
        const start = node.start ?? 1;
        const loose = node.spread === true || node.children.some((item) => item.spread === true);
        const items = node.children.map((item, index) =>
          r.listItem(
            item,
            {
              number: node.ordered ? `${start + index}.` : undefined,
              box: item.checked === true ? "☑" : item.checked === false ? "☐" : undefined,
              depth: ctx.depth,
              loose,
            },
            inner,
            this,
          ),
        );
        return r.list
          ? r.list(items, node, ctx)
          : this.#out.join(items, node.spread ? "\n\n" : "\n");
      }
      case "code":
        return r.code(node, ctx, this);
      case "table":
        return r.table(node, ctx, this);
      case "html":
        return this.#paragraph([{ type: "text", value: node.value }], ctx);
      case "footnoteDefinition":
        return r.footnoteDefinition(node, node.label ?? node.identifier, ctx, this);
      case "definition":
        // Shown where a reference uses it.
        return this.#empty;
      default:
        // Anything else (front matter, a kind a later mdast adds): its text, if any.
        return this.#paragraph([node as PhrasingContent], ctx);
    }
  }

  #paragraph(children: readonly PhrasingContent[], ctx: C): Out {
    const r = this.#r;
    return r.paragraph ? r.paragraph(children, ctx, this) : this.inline(children, ctx);
  }

  inline(nodes: readonly PhrasingContent[], ctx: C): Out {
    return this.#out.join(
      nodes.map((node) => this.#phrasing(node, ctx)),
      "",
    );
  }

  #phrasing(node: PhrasingContent, ctx: C): Out {
    const r = this.#r;
    switch (node.type) {
      case "text":
      case "html":
        return r.text(node.value, ctx);
      case "strong":
      case "emphasis":
      case "delete":
        return r.span(node, ctx, this);
      case "inlineCode":
        return r.inlineCode(node.value, ctx);
      case "break":
        return r.lineBreak ? r.lineBreak(ctx) : this.#out.raw("\n");
      case "link":
        return r.link(node, node.url, ctx, this);
      case "image":
        return r.image(node, node.url, ctx, this);
      case "linkReference": {
        const definition = this.#definition(node.identifier);
        return definition ? r.link(node, definition.url, ctx, this) : r.unresolved(node, ctx, this);
      }
      case "imageReference": {
        const definition = this.#definition(node.identifier);
        return definition
          ? r.image(node, definition.url, ctx, this)
          : r.unresolved(node, ctx, this);
      }
      case "footnoteReference":
        return r.footnoteReference(node.label ?? node.identifier, ctx);
      default: {
        // A node kind a later mdast adds: its text, without markup.
        const other = node as { children?: PhrasingContent[]; value?: unknown };
        if (other.children) return this.inline(other.children, ctx);
        return typeof other.value === "string" ? r.text(other.value, ctx) : this.#empty;
      }
    }
  }

  #definition(identifier: string): Definition | undefined {
    this.#definitions ??= definitionsOf(this.#tree);
    return this.#definitions.get(identifier);
  }
}

/** Link reference definitions by their normalized identifier (the last one of a name wins). */
export function definitionsOf(tree: Root): Map<string, Definition> {
  const found = new Map<string, Definition>();
  const visit = (node: Nodes) => {
    if (node.type === "definition") found.set(node.identifier, node);
    if ("children" in node) for (const child of node.children) visit(child);
  };
  visit(tree);
  return found;
}

/** The last node of the tree in reading order (undefined for an empty tree). */
export function lastLeaf(tree: Root): Nodes | undefined {
  let last: Nodes = tree;
  while ("children" in last && last.children.length > 0) last = last.children.at(-1) as Nodes;
  return last === tree ? undefined : last;
}

/**
 * The tree with the value of its last node changed, when that is text: how a renderer shows
 * a prefix of an answer differently at its growing end. The parsed tree is shared (parses are
 * kept), so only the nodes on the way to that text are copied.
 */
export function withLastText(tree: Root, change: (value: string) => string): Root {
  const copy = (node: Nodes): Nodes => {
    if (node.type === "text") return { ...node, value: change(node.value) };
    if (!("children" in node) || node.children.length === 0) return node;
    const children = [...node.children] as Nodes[];
    children[children.length - 1] = copy(children.at(-1) as Nodes);
    return { ...node, children } as Nodes;
  };
  return lastLeaf(tree)?.type === "text" ? (copy(tree) as Root) : tree;
}

/** Widths of a table's columns: the widest cell of each, as `measure` counts. */
export function columnWidths<Cell>(
  rows: readonly (readonly Cell[])[],
  measure: (cell: Cell) => number,
): number[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, measure(cell));
    });
  }
  return widths;
}
