import type { Button } from "../../src/ports.ts";
import { buttonsBlock } from "./buttons.ts";

/**
 * A posted answer's message as blocks: its Markdown in a markdown block, which Slack renders
 * as it renders a native stream (tables, headings, lists and code as such), then its buttons.
 * A message is far shorter than the block may be (see MAX_MESSAGE_CHARS); no Markdown, no
 * block. https://docs.slack.dev/reference/block-kit/blocks/markdown-block
 */
export function messageBlocks(markdown: string, buttons: readonly Button[] = []): object[] {
  return [
    ...(markdown.trim() ? [{ type: "markdown", text: markdown }] : []),
    ...(buttons.length > 0 ? [buttonsBlock(buttons)] : []),
  ];
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
