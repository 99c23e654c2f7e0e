import type { Api } from "grammy";
import type { Message } from "grammy/types";
import { z } from "zod";
import { type Budget, callWithinBudget } from "../../src/coordination/call-budget.ts";
import { RateLimitedError } from "../../src/errors.ts";
import type { Logger } from "../../src/log.ts";
import type {
  MessageRef,
  Renderer,
  ReplySurface,
  SendRequest,
  SurfaceLimits,
} from "../../src/ports.ts";
import { isNotModified } from "./errors.ts";
import { htmlFormat, type MessageBody } from "./message-format.ts";

type HtmlBody = Extract<MessageBody, { text: string }>;

import { callWithMarkup, shownText } from "./surface.ts";
import { type BotIdentity, readableMessage, withoutMentions } from "./to-incoming.ts";

/**
 * Guest mode (Bot API 10.0; docs/telegram.md, "Guest mode"): a person mentions the bot in a chat it is
 * not a member of, and the bot answers that one message, once, with answerGuestQuery, which
 * posts an inline message into the chat; the answer then grows by edits of that message
 * (`inline_message_id`). https://core.telegram.org/bots/api#answerguestquery
 */

/**
 * A guest answer is one message (a query is answered once): the most of an answer it shows,
 * in Markdown, kept well below a message's 4,096 characters so that its rendering, links and
 * all, fits; past it the answer ends with the cut note.
 */
const GUEST_ANSWER_CHARS = 3_500;

/** A guest query's text: the mention of the bot taken out. Undefined: nothing to answer. */
export function readGuestMessage(
  message: Message,
  me: BotIdentity,
): { queryId: string; text: string } | undefined {
  const queryId = message.guest_query_id;
  if (!queryId || !readableMessage.safeParse(message).success) return undefined;
  if (message.from?.is_bot !== false || message.via_bot !== undefined) return undefined;
  const raw = message.text ?? message.caption;
  if (raw === undefined) return undefined;
  const entities = message.entities ?? message.caption_entities ?? [];
  const text = withoutMentions(raw, entities, me)
    .replace(/\s{2,}/g, " ")
    .trim();
  return text ? { queryId, text } : undefined;
}

/** The inline message a guest answer is in: the query's one message. */
interface GuestRef {
  inlineMessageId: string;
}

export interface GuestSurfaceDeps {
  api: Api;
  log: Logger;
  /**
   * The query to answer; or, for an answer an earlier process left in flight (reopened from
   * its journal record), the message that answered it and the notices shown above the answer.
   */
  query: { id: string } | { answered: GuestRef; above: string | undefined };
  budget: Budget;
  /** The group pace: a guest answer is read by a chat's members, mostly in groups. */
  minEditIntervalMs: number;
}

/** What persistRef saves of a guest answer: its inline message and the notices above it. */
const savedGuest = z.object({ guestMessage: z.string().min(1), above: z.string().optional() });

/**
 * A guest answer an earlier process saved with persistRef, as the message to finish and the
 * notices to keep above the text; undefined for anything else.
 */
export function readSavedGuest(
  saved: unknown,
): { ref: GuestRef; above: string | undefined } | undefined {
  const parsed = savedGuest.safeParse(saved);
  if (!parsed.success) return undefined;
  return { ref: { inlineMessageId: parsed.data.guestMessage }, above: parsed.data.above };
}

/** Where the query is: open, being answered (a call under way, or lost on its way), answered. */
type QueryState = { at: "open" } | { at: "answering" } | { at: "answered"; ref: GuestRef };

/**
 * One guest answer as a reply surface. The query's one message shows the notices (a refusal,
 * the chatbot's system message) above the answer: the first thing shown answers the query (an
 * article result, an HTML message), and every later change edits that inline message. It has
 * no buttons: an inline message's presses name no chat the bot is in, and the chat is not the
 * bot's.
 */
export class GuestSurface implements ReplySurface {
  readonly renderer: Renderer = htmlFormat.renderer;
  readonly limits: SurfaceLimits;
  readonly #deps: GuestSurfaceDeps;
  #query: QueryState;
  /** The notices shown, above the answer. */
  #above: string | undefined;
  /** The answer's text now; undefined until its first post. */
  #answer: string | undefined;

  constructor(deps: GuestSurfaceDeps) {
    this.#deps = deps;
    const { query } = deps;
    this.#query = "id" in query ? { at: "open" } : { at: "answered", ref: query.answered };
    if ("answered" in query) this.#above = query.above;
    this.limits = {
      maxMessageLength: htmlFormat.maxMessageLength,
      minEditIntervalMs: deps.minEditIntervalMs,
      maxAnswerChars: GUEST_ANSWER_CHARS,
    };
  }

  budgetFor(): Budget {
    return this.#deps.budget;
  }

  /** The inline message, and the notices above the answer: a restart finishes it as it was. */
  persistRef(ref: MessageRef): z.input<typeof savedGuest> {
    const { inlineMessageId } = ref as GuestRef;
    return {
      guestMessage: inlineMessageId,
      ...(this.#above !== undefined && { above: this.#above }),
    };
  }

  async send(request: SendRequest): Promise<MessageRef> {
    const query = this.#query;
    const firstPost = request.call === "post" && this.#answer === undefined;
    if ((request.call === "edit" || firstPost) && query.at !== "answering") {
      this.#answer = shownText(request.text);
      return this.#show();
    }
    // One message a query: a layout that needs a second one, or a call lost on its way.
    throw new GuestQuerySpentError(request.call);
  }

  async notice(rendered: string): Promise<void> {
    if (this.#query.at === "answering") {
      this.#deps.log.debug("a guest answer's notice is not shown: its query's answer was lost");
      return;
    }
    const text = shownText(rendered);
    this.#above = this.#above === undefined ? text : `${this.#above}\n\n${text}`;
    await callWithinBudget(this.#deps.budget, () => this.#show(), { maxWaits: 2, urgent: true });
  }

  /** Shows the notices and the answer: answering the query, or editing its message. */
  async #show(): Promise<GuestRef> {
    const text = [this.#above, this.#answer].filter((part) => part !== undefined).join("\n\n");
    const query = this.#query;
    if (query.at === "answered") {
      await this.#call(async (body) => {
        await this.#deps.api.raw
          .editMessageText({ inline_message_id: query.ref.inlineMessageId, ...body })
          .catch((error: unknown) => {
            if (!isNotModified(error)) throw error;
          });
      }, text);
      return query.ref;
    }
    return this.#answerQuery(text);
  }

  /**
   * Answers the query with `text`: once. A call that fails without Telegram's refusal (a
   * timeout, a dropped connection) may have reached it: the query counts as spent, as a second
   * answer would be refused and the first one's message could never be edited.
   */
  async #answerQuery(text: string): Promise<GuestRef> {
    const { api, query } = this.#deps;
    if (!("id" in query)) throw new GuestQuerySpentError("post");
    this.#query = { at: "answering" };
    try {
      const sent = await this.#call(
        (body) =>
          api.raw.answerGuestQuery({
            guest_query_id: query.id,
            result: {
              type: "article",
              id: "answer",
              title: "Answer",
              input_message_content: {
                message_text: body.text,
                ...(body.parse_mode ? { parse_mode: body.parse_mode } : {}),
              },
            },
          }),
        text,
      );
      const ref = { inlineMessageId: sent.inline_message_id };
      this.#query = { at: "answered", ref };
      return ref;
    } catch (error) {
      // Refused with a wait: the query is still open, the caller tries again after it.
      if (error instanceof RateLimitedError) this.#query = { at: "open" };
      throw error;
    }
  }

  #call<T>(call: (body: HtmlBody) => Promise<T>, text: string): Promise<T> {
    // An HTML message's body is always text: an inline result takes no rich message.
    return callWithMarkup(
      { format: htmlFormat, log: this.#deps.log },
      (body) => call(body as HtmlBody),
      text,
    );
  }
}

/** A guest answer asked for a second message, or its query's answer was lost on its way. */
export class GuestQuerySpentError extends Error {
  constructor(call: string) {
    super(`a guest query has one message, and it is spent (${call})`);
    this.name = "GuestQuerySpentError";
  }
}
