import type { Root } from "mdast";
import { withLastText } from "./walk.ts";

// An emphasis, strikethrough or code opener: a delimiter run that starts a word.
const OPENER = /(^|[\s([{"'“‘])([*_~`]{1,3})(?=[^\s*_~`])/gu;

/**
 * The tree of an answer that is still streaming, with an opener whose closer has not arrived
 * yet (`Hello! **Th`) left out instead of showing as stars for a whole edit interval; the
 * text becomes bold once the closer arrives. Only the last text of the answer is touched (an
 * opener closed earlier is markup already), and the final text is always rendered whole, so
 * a literal `**` in a finished answer stays.
 */
export function withoutDanglingOpener(tree: Root): Root {
  return withLastText(tree, (text) => text.replace(OPENER, "$1"));
}
