import { escapeMarkdownBlock } from "./escape.ts";
import { MAX_MARKDOWN_BLOCK_CHARS, MAX_MESSAGE_CHARS } from "./limits.ts";
import { parseAnswer } from "./markdown.ts";
import { markdownBlockNote, markdownBlockOf } from "./markdown-block.ts";
import { mrkdwnOf, slackRenderer } from "./render.ts";

/**
 * A posted message's two texts: what a person sees, the Markdown of its markdown block, and
 * its `text` in mrkdwn, which Slack keeps for what cannot show blocks (mobile notifications,
 * screen readers). https://docs.slack.dev/reference/methods/chat.postMessage#arg_text
 */
export interface MessageText {
  mrkdwn: string;
  markdown: string;
}

// The reply engine carries one string per message, which it compares, measures, and joins to
// a note with a blank line between. So both texts travel in one: each rendering as
// OPEN mrkdwn SPLIT markdown CLOSE, and what the engine puts between renderings (white space)
// belongs to both. The backend's text never holds these control characters (AnswerText drops
// them, and writes them out in code); a note's are dropped here.
const OPEN = "\u0002";
const SPLIT = "\u001f";
const CLOSE = "\u0003";
const MARKS = new RegExp(`[${OPEN}${SPLIT}${CLOSE}]`, "g");

/** Both texts as the one string the engine carries ("" for a message that shows nothing). */
export function messageText(mrkdwn: string, markdown: string): string {
  if (!mrkdwn.trim() && !markdown.trim()) return "";
  return `${OPEN}${mrkdwn.replace(MARKS, "")}${SPLIT}${markdown.replace(MARKS, "")}${CLOSE}`;
}

/**
 * Both texts of a string messageText made (or the engine joined from several). Any other
 * text is mrkdwn, and shown as written in the markdown block.
 */
export function readMessageText(text: string): MessageText {
  let mrkdwn = "";
  let markdown = "";
  let at = 0;
  for (;;) {
    const open = text.indexOf(OPEN, at);
    const split = open === -1 ? -1 : text.indexOf(SPLIT, open);
    const close = split === -1 ? -1 : text.indexOf(CLOSE, split);
    const between = text.slice(at, close === -1 ? undefined : open);
    mrkdwn += between;
    markdown += escapeMarkdownBlock(between);
    if (close === -1) return { mrkdwn, markdown };
    mrkdwn += text.slice(open + 1, split);
    markdown += text.slice(split + 1, close);
    at = close + 1;
  }
}

/**
 * How long a message is, against MAX_MESSAGE_CHARS: its mrkdwn as it is, its Markdown as the
 * same share of the markdown block's own limit, whichever is further.
 */
export function measureMessageText(text: string): number {
  const { mrkdwn, markdown } = readMessageText(text);
  return Math.max(
    mrkdwn.length,
    Math.ceil((markdown.length * MAX_MESSAGE_CHARS) / MAX_MARKDOWN_BLOCK_CHARS),
  );
}

/** The chatbot's Markdown as both texts, from one parse. */
export function renderMessage(markdown: string): string {
  const tree = parseAnswer(markdown);
  return messageText(mrkdwnOf(tree, markdown), markdownBlockOf(tree, markdown));
}

/** A note of the bot's own as both texts. */
export function renderMessageNote(text: string): string {
  return messageText(slackRenderer.note(text), markdownBlockNote(text));
}
