import { type ContextBounds, DEFAULTS } from "../config.ts";
import { BridgeError, messageOf, RateLimitedError } from "../errors.ts";
import type { Translator } from "../i18n/translator.ts";
import type { Logger } from "../log.ts";
import type { Discussion, EarlierMessage, IncomingMessage } from "../ports.ts";
import { stripInvisible, stripInvisibleAndMarks } from "../reply/invisible-chars.ts";

export interface QuestionContextOptions extends ContextBounds {
  /** How long a first question waits for its discussion (DEFAULTS.contextTimeoutMs). */
  timeoutMs: number;
}

/**
 * What the chatbot is asked (docs/chatbot.md, "What the chatbot receives"): a question that begins a
 * conversation carries the discussion it was asked in, laid out for the chatbot's prompt to
 * rely on; every later question of the conversation goes alone, as the chatbot holds the rest.
 * Reading the discussion never holds an answer longer than `timeoutMs`, and never fails it: a
 * question whose discussion cannot be read goes alone, and the log says why once.
 */
export class QuestionContexts {
  readonly #options: QuestionContextOptions;
  readonly #log: Logger;
  /** Why a discussion could not be read, each said once. */
  readonly #said = new Set<string>();

  constructor(options: Partial<QuestionContextOptions> | undefined, log: Logger) {
    this.#options = {
      maxMessages: options?.maxMessages ?? DEFAULTS.contextMaxMessages,
      maxChars: options?.maxChars ?? DEFAULTS.contextMaxChars,
      timeoutMs: options?.timeoutMs ?? DEFAULTS.contextTimeoutMs,
    };
    this.#log = log;
  }

  /**
   * The question as the chatbot receives it: `message.text`, after the discussion it was
   * asked in when it begins a conversation (`conversationUid` undefined) and the platform can
   * tell one. The layout's words speak `t`'s language.
   */
  async asked(
    message: IncomingMessage,
    conversationUid: string | undefined,
    t: Translator,
  ): Promise<string> {
    const { maxMessages, maxChars } = this.#options;
    if (conversationUid !== undefined || maxMessages === 0 || maxChars === 0) return message.text;
    if (!message.discussion) return message.text;
    const discussion = await this.#read(message, maxMessages);
    return discussion ? withDiscussion(message.text, discussion, this.#options, t) : message.text;
  }

  async #read(message: IncomingMessage, maxMessages: number): Promise<Discussion | undefined> {
    const { timeoutMs } = this.#options;
    const stop = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        const error = new DiscussionTimeoutError(timeoutMs);
        stop.abort(error);
        reject(error);
      }, timeoutMs);
    });
    const reading = Promise.resolve().then(() => message.discussion?.(maxMessages, stop.signal));
    try {
      return await Promise.race([reading, late]);
    } catch (error) {
      this.#sayOnce(error);
      return undefined;
    } finally {
      clearTimeout(timer);
      // A reading that lost the race ends unheard.
      reading.catch(() => undefined);
    }
  }

  #sayOnce(error: unknown): void {
    const why =
      error instanceof RateLimitedError
        ? "the platform's rate limit"
        : error instanceof BridgeError
          ? error.message
          : `an unexpected error (${messageOf(error)})`;
    if (this.#said.has(why)) return;
    this.#said.add(why);
    this.#log.warn(
      { err: error instanceof BridgeError ? undefined : error },
      `first questions go without the discussion they were asked in while this lasts: ${why}`,
    );
  }
}

/** The discussion took longer than the answer may wait for it. */
class DiscussionTimeoutError extends BridgeError {
  readonly code = "CONTEXT_TIMEOUT";
  constructor(ms: number) {
    super(`no discussion read within ${ms} ms`);
  }
}

/**
 * The question after its discussion, in the layout docs/chatbot.md documents:
 *
 *     Earlier in this thread:
 *     Ana: the first line of her message
 *       its next line
 *     Ben: his message
 *
 *     Question:
 *     the question as asked
 *
 * ("In reply to:" for a reply's message), the headings in `t`'s language. Of the messages, the
 * latest that fit `bounds` are kept, oldest first; a newest one longer than the whole bound is
 * cut to fit. No message fits: the question alone.
 */
export function withDiscussion(
  question: string,
  discussion: Discussion,
  bounds: ContextBounds,
  t: Translator,
): string {
  const blocks = latestThatFit(
    discussion.messages.map(blockOf).filter((block) => block !== undefined),
    bounds,
  );
  if (blocks.length === 0) return question;
  const heading = discussion.kind === "thread" ? "contextThread" : "contextReply";
  return `${plain(t.t(heading))}\n${blocks.join("\n")}\n\n${plain(t.t("contextQuestion"))}\n${question}`;
}

/** One message as "name: text", its further lines indented two spaces; blank lines go. */
function blockOf(message: EarlierMessage): string | undefined {
  const lines = stripInvisible(message.text)
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "");
  const [first, ...rest] = lines;
  if (first === undefined) return undefined;
  const author = stripInvisible(message.author).replace(/\s+/g, " ").trim() || "?";
  return [`${author}: ${first.trimStart()}`, ...rest.map((line) => `  ${line}`)].join("\n");
}

/** The newest blocks within both bounds (a newline between two counts), oldest first. */
function latestThatFit(blocks: readonly string[], bounds: ContextBounds): string[] {
  const kept: string[] = [];
  let used = 0;
  for (const block of blocks.slice(-bounds.maxMessages).reverse()) {
    const needed = block.length + (kept.length > 0 ? 1 : 0);
    if (used + needed > bounds.maxChars) {
      // Only the newest message is worth a cut: it is the one the question is most about.
      if (kept.length === 0) kept.push(cut(block, bounds.maxChars));
      break;
    }
    kept.push(block);
    used += needed;
  }
  return kept.reverse();
}

/** `text` in `max` characters, ending with "…" (no surrogate pair split). */
function cut(text: string, max: number): string {
  let end = Math.max(0, max - 1);
  if (/[\uDC00-\uDFFF]/.test(text.charAt(end))) end -= 1;
  return `${text.slice(0, end).trimEnd()}…`;
}

/** A heading of the catalog without the direction marks a right-to-left chat line gets. */
function plain(text: string): string {
  return stripInvisibleAndMarks(text).trim();
}
