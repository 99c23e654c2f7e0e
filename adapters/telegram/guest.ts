import type { Api } from "grammy";
import type { Message } from "grammy/types";
import { type Budget, callWithinBudget } from "../../src/coordination/call-budget.ts";
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
 * Guest mode (Bot API 10.0; README, "Guest mode"): a person mentions the bot in a chat it is
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

/** The inline message a guest answer posted (none yet: the query is still open). */
interface GuestRef {
  inlineMessageId: string;
}

export interface GuestSurfaceDeps {
  api: Api;
  log: Logger;
  queryId: string;
  budget: Budget;
  /** The group pace: a guest answer is read by a chat's members, mostly in groups. */
  minEditIntervalMs: number;
}

/**
 * One guest answer as a reply surface: its first text answers the query (an article result,
 * an HTML message), and every later text edits that inline message. It has no buttons: an
 * inline message's presses name no chat the bot is in, and the chat is not the bot's. A notice
 * that comes before any answer (a refusal) is that one answer; later notices are not shown.
 */
export class GuestSurface implements ReplySurface {
  readonly renderer: Renderer = htmlFormat.renderer;
  readonly limits: SurfaceLimits;
  readonly #deps: GuestSurfaceDeps;
  #answered = false;

  constructor(deps: GuestSurfaceDeps) {
    this.#deps = deps;
    this.limits = {
      maxMessageLength: htmlFormat.maxMessageLength,
      minEditIntervalMs: deps.minEditIntervalMs,
      maxAnswerChars: GUEST_ANSWER_CHARS,
    };
  }

  budgetFor(): Budget {
    return this.#deps.budget;
  }

  async send(request: SendRequest): Promise<MessageRef> {
    if (request.call === "edit") {
      const text = shownText(request.text);
      const ref = request.ref as GuestRef;
      await this.#call(async (body) => {
        await this.#deps.api.raw
          .editMessageText({ inline_message_id: ref.inlineMessageId, ...body })
          .catch((error: unknown) => {
            if (!isNotModified(error)) throw error;
          });
      }, text);
      return ref;
    }
    if (request.call !== "post" || this.#answered) {
      // A guest answer has one message: a layout that needs a second one is a defect here.
      const what = request.call === "post" ? "second message" : request.call;
      throw new Error(`a guest answer has no ${what}`);
    }
    return { inlineMessageId: await this.#answer(shownText(request.text)) } satisfies GuestRef;
  }

  async notice(rendered: string): Promise<void> {
    if (this.#answered) {
      this.#deps.log.debug("a notice after a guest answer is not shown: its query is answered");
      return;
    }
    await callWithinBudget(this.#deps.budget, () => this.#answer(shownText(rendered)), {
      maxWaits: 2,
      urgent: true,
    });
  }

  async #answer(text: string): Promise<string> {
    const { api, queryId } = this.#deps;
    const sent = await this.#call(
      (body) =>
        api.raw.answerGuestQuery({
          guest_query_id: queryId,
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
    this.#answered = true;
    return sent.inline_message_id;
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
