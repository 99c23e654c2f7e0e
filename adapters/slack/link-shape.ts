import type { Nodes } from "mdast";
import { isSafeLinkTarget, linkTextKind } from "./escape.ts";
import { linkForm, nodeSource } from "./markdown.ts";

/**
 * How a link of the answer shows, whatever the markup: as `text` (a target other than a web or
 * mail address is not made clickable, and `<…>` written in the answer stays text), as a `link`
 * whose face is `words` (undefined: the address itself), or as its `words` with the real
 * target `beside` them, when the words claim to be another address.
 */
export type LinkShape =
  | { kind: "text"; text: string }
  | { kind: "link"; url: string; words: string | undefined }
  | { kind: "beside"; words: string; url: string };

/** The shape of link `node` to `url` whose visible text is `text`, in `markdown`. */
export function linkShape(node: Nodes, url: string, text: string, markdown: string): LinkShape {
  const words = text.replace(/\s+/g, " ").trim();
  const kind = linkTextKind(words, url);
  if (!isSafeLinkTarget(url)) {
    if (linkForm(node, markdown) === "angle")
      return { kind: "text", text: nodeSource(node, markdown) };
    return { kind: "text", text: kind === "same" ? url : `${words} (${url})` };
  }
  switch (kind) {
    case "same":
      return { kind: "link", url, words: words && words !== url ? words : undefined };
    case "other-url":
      return { kind: "beside", words, url };
    case "words":
      return { kind: "link", url, words };
  }
}
