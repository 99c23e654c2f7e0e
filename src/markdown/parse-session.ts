import type { Nodes, Root, RootContent } from "mdast";

interface Parsed {
  markdown: string;
  tree: Root;
}

// Trees kept per parser: a Slack stream parses its text and its settled prefix in turn.
const KEPT = 2;

/**
 * One growing message's recent parses, so that its next, longer text is parsed from its last
 * block on: the blocks before it are complete, and more text cannot change them. The reply
 * engine opens a session around each render of a message (see inSession); the parsers of
 * src/reply/markdown.ts read it, so no renderer needs to know.
 */
export class ParseSession {
  readonly #parsed = new Map<object, Parsed[]>();

  /** The longest kept parse of `parser` whose text `markdown` extends. */
  earlier(parser: object, markdown: string): Parsed | undefined {
    let best: Parsed | undefined;
    for (const parsed of this.#parsed.get(parser) ?? []) {
      if (
        markdown.startsWith(parsed.markdown) &&
        parsed.markdown.length > (best?.markdown.length ?? -1)
      ) {
        best = parsed;
      }
    }
    return best;
  }

  keep(parser: object, markdown: string, tree: Root): void {
    const kept = this.#parsed.get(parser) ?? [];
    kept.push({ markdown, tree });
    if (kept.length > KEPT) kept.shift();
    this.#parsed.set(parser, kept);
  }
}

let current: ParseSession | undefined;

/** Runs `render` (synchronous) with `session` as the one its parses extend. */
export function inSession<T>(session: ParseSession, render: () => T): T {
  const outer = current;
  current = session;
  try {
    return render();
  } finally {
    current = outer;
  }
}

export function currentSession(): ParseSession | undefined {
  return current;
}

// A link reference definition or footnote anywhere ties blocks together (a reference in one
// block resolves by a definition in another): such a text is parsed whole.
const CROSS_REFERENCES = /\]:|\[\^/;

/**
 * `markdown`'s tree from `earlier`'s, whose text it extends: every block of it but the last
 * (and a list just before the last) is kept, and the text from the line the next one starts
 * on is parsed alone. Undefined when nothing would be gained (a single block) or the text has
 * cross references.
 */
export function extendTree(
  earlier: Parsed,
  markdown: string,
  parse: (markdown: string) => Root,
): Root | undefined {
  if (earlier.markdown === markdown) return earlier.tree;
  const blocks = earlier.tree.children;
  let cut = blocks.length - 1;
  // What the next block may still become can reach back over the line before it (a block
  // that interrupted a paragraph may turn back into its next line: "</p" + "re"), and a list
  // goes on past blank lines (a block after it may turn into its next item: "3" + "."). The
  // blocks kept end before a blank line, and not with a list.
  while (cut > 0 && (!blankLineBefore(markdown, blocks, cut) || blocks[cut - 1]?.type === "list")) {
    cut--;
  }
  const start = blocks[cut]?.position?.start;
  if (cut < 1 || start?.offset === undefined || CROSS_REFERENCES.test(markdown)) return undefined;
  const from = markdown.lastIndexOf("\n", start.offset - 1) + 1;
  const tail = parse(markdown.slice(from));
  // The tail's positions count from its own start: moved to where it lies in the text.
  const lines = start.line - 1;
  const moved = new Set<object>();
  for (const child of tail.children) shift(child, from, lines, moved);
  const end = tail.position?.end;
  return {
    type: "root",
    children: [...blocks.slice(0, cut), ...tail.children] as RootContent[],
    position: {
      start: { line: 1, column: 1, offset: 0 },
      end: {
        line: (end?.line ?? 1) + lines,
        column: end?.column ?? 1,
        offset: (end?.offset ?? 0) + from,
      },
    },
  };
}

/** Whether a blank line lies between block `index` and the one before it. */
function blankLineBefore(markdown: string, blocks: readonly RootContent[], index: number): boolean {
  const end = blocks[index - 1]?.position?.end.offset;
  const start = blocks[index]?.position?.start.offset;
  if (end === undefined || start === undefined) return false;
  return /\n[ \t]*\n/.test(markdown.slice(end, start));
}

/** Moves a node's points (each once: nodes may share one) by `offset` and `lines`. */
function shift(node: Nodes, offset: number, lines: number, moved: Set<object>): void {
  const position = node.position;
  if (position) {
    for (const point of [position.start, position.end]) {
      if (moved.has(point)) continue;
      moved.add(point);
      point.line += lines;
      if (point.offset !== undefined) point.offset += offset;
    }
  }
  if ("children" in node) for (const child of node.children) shift(child, offset, lines, moved);
}
