import type { Nodes } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";
import { MAX_MESSAGE_CHARS } from "../../adapters/slack/limits.ts";
import { parseAnswer } from "../../adapters/slack/markdown.ts";
import { markdownBlockOf } from "../../adapters/slack/markdown-block.ts";
import {
  measureMessageText,
  readMessageText,
  renderMessage,
  renderMessageNote,
} from "../../adapters/slack/message-text.ts";
import { renderMrkdwn } from "../../adapters/slack/render.ts";
import { viewMarkdownBlock, viewMrkdwn } from "../support/fake-slack-view.ts";
import { HOSTILE, HOSTILE_LITERALS, HOSTILE_STREAMS, SAMPLES } from "./samples.ts";

const markdownBlock = (markdown: string) => markdownBlockOf(parseAnswer(markdown), markdown);

/** A tree as CommonMark + GFM reads it (as Slack reads a markdown block), places left out. */
function tree(markdown: string, parse: (markdown: string) => Nodes): string {
  return JSON.stringify(parse(markdown), (key, value) => (key === "position" ? undefined : value));
}
const gfmParse = (markdown: string) =>
  fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });

/**
 * An answer with every construct Slack's markdown block draws: a sample's (its image and
 * footnote left out: the one shows as a link, the other as text), and more.
 */
const RICH = [
  SAMPLES[1]?.slice(0, SAMPLES[1].indexOf("\n\nFootnote")),
  "",
  "| code | `a\\|b` |",
  "| - | - |",
  "",
  "Inline `a`b` and www.example.com, then ***both*** and **bold\nacross lines**.",
  "",
  "---",
  "",
  "Tom & Jerry <b>x</b> 1 < 2 &amp; a*b*c, x_y_z and 2*3*4",
  "",
  "* a\n* b\n\n  c\n* d",
  "",
  "10. ten\n11. eleven",
  "",
  "`` a`b `` and ` `` `",
].join("\n");

describe("Markdown for a markdown block", () => {
  it("is the chatbot's Markdown written anew: Slack reads the very tree we parsed", () => {
    const written = markdownBlock(RICH);
    expect(tree(written, gfmParse)).toBe(tree(RICH, parseAnswer));
    expect(written).toContain("| Option | Default | Meaning |\n| --- | :---: | --- |");
  });

  it("keeps hostile text literal, in text, code, tables and links", () => {
    const answers = [
      HOSTILE,
      ...HOSTILE_STREAMS,
      "| <!here> | [https://bank.example](https://evil.example) |\n| - | - |\n| `<!channel>` | <@U1> |",
      "```\n<!channel> <@U1|boss> <https://evil.example|bank>\n```",
    ];
    for (const answer of answers) {
      const view = viewMarkdownBlock(markdownBlock(answer));
      expect(view.pings, answer).toEqual([]);
      expect(view.disguised, answer).toEqual([]);
    }
    const view = viewMarkdownBlock(markdownBlock(HOSTILE));
    for (const literal of HOSTILE_LITERALS) expect(view.read).toContain(literal);
  });

  it("leaves code that holds no token of Slack's as written", () => {
    const code = '<!DOCTYPE html>\n<div class="a">x &amp; y</div> <!-- a -->\nList<T> a = b << 2;';
    expect(viewMarkdownBlock(markdownBlock(`\`\`\`html\n${code}\n\`\`\``)).visible).toBe(code);
  });
});

describe("a posted message's two texts", () => {
  it("travel as one text the engine joins to a note, and come apart as mrkdwn and Markdown", () => {
    const joined = `${renderMessage("**Plans** <!here>")}\n\n${renderMessageNote("stopped by `<@U1>`")}`;
    const { mrkdwn, markdown } = readMessageText(joined);
    expect(mrkdwn).toBe(`${renderMrkdwn("**Plans** <!here>")}\n\n${"stopped by `&lt;@U1&gt;`"}`);
    expect(markdown).toBe("**Plans** &lt;\\!here&gt;\n\nstopped by `<\u200b@U1>`");
    for (const view of [viewMrkdwn(mrkdwn), viewMarkdownBlock(markdown)]) {
      expect(view.pings).toEqual([]);
    }
  });

  it("measure the longer of the two against Slack's limits", () => {
    expect(measureMessageText(renderMessage("word ".repeat(100)))).toBe(499);
    const dots = ".".repeat(MAX_MESSAGE_CHARS);
    // Each dot is `\.` in Markdown: 7,800 of the markdown block's 12,000.
    expect(measureMessageText(renderMessage(dots))).toBe(MAX_MESSAGE_CHARS);
  });
});
