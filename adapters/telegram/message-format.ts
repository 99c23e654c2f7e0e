import type { Api } from "grammy";
import type { InputRichMessageWithoutUpload } from "grammy/types";
import type { Logger } from "../../src/log.ts";
import type { Renderer } from "../../src/ports.ts";
import { TelegramApiError } from "./errors.ts";
import { defuseMentions, escapeHtml, visibleText } from "./escape.ts";
import { MAX_MESSAGE_LENGTH, MAX_RICH_TEXT_LENGTH } from "./limits.ts";
import { renderStreaming, telegramRenderer } from "./render.ts";
import { telegramRichRenderer } from "./rich-render.ts";

/** A text as a call carries it: an HTML message's text, or a rich message. */
export type MessageBody =
  | { text: string; parse_mode?: "HTML" }
  | { rich_message: InputRichMessageWithoutUpload };

/**
 * How a channel's texts go to Telegram: HTML messages of 4,096 characters (tables as a
 * monospaced grid), or, with TELEGRAM_RICH_MESSAGES on and a Bot API server that has them,
 * rich messages (Bot API 10.1: tables, headings and lists drawn by the client, 32,768
 * characters a message).
 */
export interface MessageFormat {
  readonly renderer: Renderer;
  readonly maxMessageLength: number;
  /**
   * The body of a call for `rendered`; `plain`: the same text without markup, after Telegram
   * refused the markup.
   */
  body(rendered: string, plain?: boolean): MessageBody;
}

export const htmlFormat: MessageFormat = {
  renderer: { ...telegramRenderer, interim: renderStreaming },
  maxMessageLength: MAX_MESSAGE_LENGTH,
  body: (rendered, plain) =>
    // As plain text, `@name` inside what was code would become a live mention.
    plain
      ? { text: defuseMentions(visibleText(rendered)) }
      : { text: rendered, parse_mode: "HTML" },
};

export const richFormat: MessageFormat = {
  renderer: telegramRichRenderer,
  maxMessageLength: MAX_RICH_TEXT_LENGTH,
  body: (rendered, plain) => ({
    rich_message: {
      html: plain ? plainRichHtml(rendered) : rendered,
      // Every link the bot shows is one it wrote: a chatbot's `@name`, `/command` or card
      // number stays text.
      skip_entity_detection: true,
      // A rich message is laid out in one direction as a whole (its lists, tables, quotes),
      // not line by line as a text message is: an Arabic or Hebrew answer asks for its own.
      ...(readsRightToLeft(rendered) ? { is_rtl: true } : {}),
    },
  }),
};

// Markup, an entity or a character that is no letter, up to the first letter of the text.
const FIRST_LETTER = /^(?:<[^>]*>|&[#\w]*;|[^<&\p{L}])*(\p{L})/u;
// Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic and their presentation forms.
const RIGHT_TO_LEFT = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/u;

/**
 * Whether the text's first letter is of a right-to-left script: the direction Unicode's bidi
 * rule gives a paragraph.
 */
function readsRightToLeft(html: string): boolean {
  const letter = FIRST_LETTER.exec(html)?.[1];
  return letter !== undefined && RIGHT_TO_LEFT.test(letter);
}

// A block's end, or a line break: where the plain form starts a new line.
const LINE_END = /<\/(p|h[1-6]|li|tr|pre|blockquote)>|<br\s*\/?>|<hr\s*\/?>/gi;

/** Rich HTML as its text alone, one line per block, markup-free. */
function plainRichHtml(html: string): string {
  const lines = visibleText(html.replace(LINE_END, "\n"))
    .split("\n")
    .filter((line) => line.trim() !== "");
  return `<p>${lines.map(escapeHtml).join("<br/>")}</p>`;
}

/**
 * Which format the Bot API server offers. A server that predates rich messages (a
 * self-hosted telegram-bot-api not yet upgraded) answers any call of a method it does not
 * know with 404 Not Found; one that knows sendRichMessageDraft refuses this one for its chat
 * (the bot itself), having sent nothing. Asked once, at start, when rich messages are on.
 */
export async function detectMessageFormat(
  api: Api,
  botId: number,
  log: Logger,
): Promise<MessageFormat> {
  try {
    await api.raw.sendRichMessageDraft({
      chat_id: botId,
      draft_id: 1,
      rich_message: { html: "…" },
    });
  } catch (error) {
    if (error instanceof TelegramApiError && error.errorCode === 404) {
      log.info(
        { reason: error.message },
        "the Bot API server has no rich messages (sendRichMessage): answers go as HTML messages of 4,096 characters, tables as monospaced text",
      );
      return htmlFormat;
    }
  }
  return richFormat;
}
