import type { Nodes, Parents } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";

/**
 * What a person sees of a message's text, as Slack would show it: the words, the pings it
 * would send, and links whose face names another address. Three forms: mrkdwn (`text` of
 * chat.postMessage/update), Markdown (`markdown_text` of the streaming methods) and the text
 * of a markdown block (`blocks` of chat.postMessage/update).
 */
export interface View {
  visible: string;
  /** The visible text as read: inline code without its backticks, zero-width spaces unseen. */
  read: string;
  /** What shows as inline code. */
  code: string[];
  /** Mentions that would notify someone: "@U1", "@channel", "@here", "@subteam^S1". */
  pings: string[];
  /** Links whose visible text is an address other than their target. */
  disguised: { text: string; url: string }[];
  /** The tables it shows (mrkdwn has none): each a list of rows, each row its cells' text. */
  tables: string[][][];
}

const TOKEN = /<([^<>]*)>/g;

/** mrkdwn: `<…>` tokens are markup, `&amp; &lt; &gt;` are the only escapes. https://docs.slack.dev/messaging/formatting-message-text */
export function viewMrkdwn(text: string): View {
  const pings: string[] = [];
  const disguised: View["disguised"] = [];
  const visible = text.replace(TOKEN, (_m, inner: string) => {
    const bar = inner.indexOf("|");
    const target = bar === -1 ? inner : inner.slice(0, bar);
    const label = bar === -1 ? undefined : inner.slice(bar + 1);
    if (target.startsWith("@")) {
      pings.push(target);
      return `@${label ?? target.slice(1)}`;
    }
    if (target.startsWith("!")) {
      const name = target.slice(1);
      pings.push(`@${name}`);
      return label ?? `@${name.split("^")[0]}`;
    }
    if (target.startsWith("#")) return `#${label ?? target.slice(1)}`;
    const shown = decode(label ?? target);
    if (label !== undefined && looksLikeOtherUrl(shown, decode(target))) {
      disguised.push({ text: shown, url: decode(target) });
    }
    return label ?? target;
  });
  const shown = decode(visible);
  // A backtick pairs with the next one on its line unless a zero-width space keeps it apart.
  const code: string[] = [];
  const read = shown
    .replace(/`(?!\u200b)([^`\n]+?)(?<!\u200b)`/g, (_m, inner: string) => {
      code.push(inner);
      return inner;
    })
    .replaceAll("\u200b", "");
  return { visible: shown, read, code, pings, disguised, tables: [] };
}

/**
 * Markdown as a native stream shows it, assuming the worst of what Slack does not document:
 * an unescaped `<@U1>`, `<!channel>` or `<url|text>` in the raw text acts as in mrkdwn (pings,
 * disguised links); everything else is CommonMark + GFM.
 */
export function viewMarkdown(markdown: string): View {
  return viewStandardMarkdown(markdown, "unescaped");
}

/**
 * The text of markdown blocks as Slack shows it, assuming the worst of what Slack does not
 * document (https://docs.slack.dev/reference/block-kit/blocks/markdown-block): Slack reads its
 * own `<…>` tokens anywhere in it, a backslash before them or code around them changes nothing;
 * `&lt;` is the character `<` and no token. Everything else is CommonMark + GFM.
 */
export function viewMarkdownBlock(markdown: string): View {
  return viewStandardMarkdown(markdown, "anywhere");
}

/** CommonMark + GFM, with Slack's `<…>` tokens read where `tokens` says. */
function viewStandardMarkdown(markdown: string, tokens: "unescaped" | "anywhere"): View {
  const pings: string[] = [];
  const disguised: View["disguised"] = [];
  const open = tokens === "unescaped" ? "(?<!\\\\)<" : "<";
  for (const match of markdown.matchAll(
    new RegExp(`${open}([@!][^<>\\s|]*)(?:\\|[^<>]*)?>`, "g"),
  )) {
    pings.push((match[1] ?? "").replace(/^!/, "@"));
  }
  for (const match of markdown.matchAll(new RegExp(`${open}(https?:[^<>|]*)\\|([^<>]*)>`, "g"))) {
    disguised.push({ text: match[2] ?? "", url: match[1] ?? "" });
  }
  const tree = fromMarkdown(markdown, {
    extensions: [gfm()],
    mdastExtensions: [gfmFromMarkdown()],
  });
  const code: string[] = [];
  const tables: string[][][] = [];
  const visit = (node: Nodes): string => {
    if (node.type === "inlineCode") code.push(node.value);
    if (node.type === "link") {
      const text = node.children.map(visit).join("");
      if (looksLikeOtherUrl(text, node.url)) disguised.push({ text, url: node.url });
      return text;
    }
    if (node.type === "table") {
      const rows = node.children.map((row) => row.children.map(visit));
      tables.push(rows);
      return rows.map((cells) => cells.join(" | ")).join("\n");
    }
    if (node.type === "image") return node.alt ?? "";
    if (node.type === "break") return "\n";
    if ("value" in node && typeof node.value === "string") return node.value;
    if (!("children" in node)) return "";
    const children = (node as Parents).children.map(visit);
    const blockish = node.type === "root" || node.type === "list" || node.type === "blockquote";
    return children.join(blockish ? "\n" : "");
  };
  const visible = visit(tree);
  return { visible, read: visible.replaceAll("\u200b", ""), code, pings, disguised, tables };
}

function decode(text: string): string {
  return text.replace(/&(amp|lt|gt);/g, (_m, n: string) =>
    n === "amp" ? "&" : n === "lt" ? "<" : ">",
  );
}

function looksLikeOtherUrl(text: string, url: string): boolean {
  const shown = text.trim();
  if (!/^(?:[a-z]+:\/\/|www\.)\S+$|^[\w-]+(?:\.[\w-]+)+(?:\/\S*)?$/i.test(shown)) return false;
  const norm = (u: string) =>
    u
      .toLowerCase()
      .replace(/^[a-z]+:\/\//, "")
      .replace(/^www\./, "")
      .replace(/\/+$/, "");
  return norm(shown) !== norm(url);
}
