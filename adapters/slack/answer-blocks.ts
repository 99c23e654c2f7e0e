import type { Button } from "../../src/ports.ts";
import { buttonsBlock } from "./buttons.ts";

/**
 * Longest text of a section block: a message with buttons shows its text in blocks, each at
 * most this long. https://docs.slack.dev/reference/block-kit/blocks/section-block
 */
const MAX_SECTION_CHARS = 3_000;

const FENCE = "```";

/**
 * An answer's message with buttons under it, as blocks: its mrkdwn in section blocks (split at
 * line ends, a code block closed and reopened across a split), then the buttons. Undefined
 * without buttons: the message is its text alone.
 */
export function messageBlocks(text: string, buttons: readonly Button[] = []): object[] | undefined {
  if (buttons.length === 0) return undefined;
  const sections = sectionTexts(text).map((part) => ({
    type: "section",
    text: { type: "mrkdwn", text: part },
  }));
  return [...sections, buttonsBlock(buttons)];
}

/**
 * The blocks chat.stopStream adds under a streamed answer: a 👍/👎 pair as Slack's feedback
 * buttons element (in a context actions block, made for AI apps' answers), other buttons as
 * an actions block. https://docs.slack.dev/reference/block-kit/blocks/context-actions-block
 */
export function streamEndBlocks(buttons: readonly Button[] = []): object[] | undefined {
  if (buttons.length === 0) return undefined;
  const positive = buttons.find((b) => b.feedback === "positive");
  const negative = buttons.find((b) => b.feedback === "negative");
  if (!positive || !negative || buttons.length !== 2) return [buttonsBlock(buttons)];
  const side = (button: Button) => ({
    text: { type: "plain_text", text: button.label },
    value: button.id,
  });
  return [
    {
      type: "context_actions",
      elements: [
        {
          type: "feedback_buttons",
          action_id: `${positive.action}:0`,
          positive_button: side(positive),
          negative_button: side(negative),
        },
      ],
    },
  ];
}

function sectionTexts(text: string): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > MAX_SECTION_CHARS) {
    // Room for a fence closed at the end of the head.
    const room = MAX_SECTION_CHARS - FENCE.length - 1;
    const lineEnd = rest.lastIndexOf("\n", room);
    const cut = lineEnd > 0 ? lineEnd : room;
    let head = rest.slice(0, cut);
    let tail = rest.slice(cut).replace(/^\n/, "");
    if (head.split(FENCE).length % 2 === 0) {
      head = `${head}\n${FENCE}`;
      tail = `${FENCE}\n${tail}`;
    }
    parts.push(head);
    rest = tail;
  }
  parts.push(rest);
  return parts;
}
