import type { Api } from "grammy";
import type { InlineKeyboardMarkup } from "grammy/types";
import { z } from "zod";
import { type Budget, callWithinBudget } from "../../src/coordination/call-budget.ts";
import { MessageGoneError, RateLimitedError } from "../../src/errors.ts";
import type { Logger } from "../../src/log.ts";
import type {
  Button,
  MessageRef,
  NoticeOptions,
  Renderer,
  ReplySurface,
  SendRequest,
  SurfaceLimits,
} from "../../src/ports.ts";
import { inlineKeyboard } from "./buttons.ts";
import type { DraftSlots } from "./drafts.ts";
import {
  isMessageGone,
  isNotModified,
  isParseError,
  retryAfterMs,
  TelegramApiError,
} from "./errors.ts";
import { escapeText, visibleText } from "./escape.ts";
import type { MessageBody, MessageFormat } from "./message-format.ts";
import type { Place, ReplyChains } from "./to-incoming.ts";

export interface SurfaceDeps {
  api: Api;
  log: Logger;
  place: Place;
  /** HTML messages, or rich ones (TELEGRAM_RICH_MESSAGES on and the server has them). */
  format: MessageFormat;
  limits: SurfaceLimits;
  /** The chat's budget (one per private chat, one per group shared by all its answers). */
  budget: Budget;
  drafts: DraftSlots;
  chains: ReplyChains;
  /**
   * In a group, the person a private notice is for, and whether Telegram lets the bot show
   * them one alone now (it administers the group: Bot API 10.2's ephemeral messages). None:
   * a private notice is posted as any other.
   */
  privateTo?:
    | {
        userId: number;
        allowed: () => Promise<boolean>;
        /**
         * They wrote an ephemeral message (a command only they and the bot see): a reply to it
         * may go to them alone until `until` (Date.now()), the bot an admin or not.
         */
        answering?: { ephemeralMessageId: number; until: number } | undefined;
      }
    | undefined;
}

/** A message of an answer: a draft until it is sent for good, then a message id. */
interface TelegramRef {
  messageId: number | undefined;
  draftId: number | undefined;
}

/** What persistRef saves: the place of the answer and its message (or draft). */
const savedMessage = z.object({
  chatId: z.number(),
  isPrivate: z.boolean(),
  topicId: z.number().optional(),
  replyTo: z.number().optional(),
  threadKey: z.string(),
  chained: z.boolean(),
  business: z.string().optional(),
  messageId: z.number().optional(),
  draftId: z.number().optional(),
});

/**
 * A message an earlier process saved with persistRef, as the place to build a surface for and
 * the ref to finish on it; undefined for anything else.
 */
export function readSavedMessage(saved: unknown): { place: Place; ref: MessageRef } | undefined {
  const parsed = savedMessage.safeParse(saved);
  if (!parsed.success) return undefined;
  const { chatId, isPrivate, topicId, replyTo, threadKey, chained, business, messageId, draftId } =
    parsed.data;
  return {
    place: { chatId, isPrivate, topicId, replyTo, threadKey, chained, business },
    ref: { messageId, draftId } satisfies TelegramRef,
  };
}

// A notice that meets a 429 waits its turn, but not for ever.
const NOTICE_ATTEMPTS = 3;
const NOTICE_MAX_WAIT_MS = 60_000;
const PLACEHOLDER = escapeText("…");

/**
 * One answer's place in Telegram as a reply surface: a private chat, a group's reply chain or
 * a forum topic. An answer is sent, then edited as it grows, as an HTML message (a rich one
 * with TELEGRAM_RICH_MESSAGES on, where the Bot API server has them); with TELEGRAM_DRAFTS on,
 * private chats stream as a native draft of the same kind that the final text persists with
 * one message. A draft lapses after 30 s unchanged: the reply engine shows it again in time
 * (refreshMs). Telegram's answers map to what the reply engine expects: 429 →
 * RateLimitedError, "message to edit not found" → MessageGoneError, "message is not modified"
 * → success, a markup Telegram cannot parse → the same text once more without markup.
 */
export class TelegramSurface implements ReplySurface {
  readonly renderer: Renderer;
  readonly limits: SurfaceLimits;
  readonly #deps: SurfaceDeps;

  constructor(deps: SurfaceDeps) {
    this.#deps = deps;
    this.renderer = deps.format.renderer;
    this.limits = deps.limits;
  }

  /** Every call of an answer draws on the chat's one budget. */
  budgetFor(): Budget {
    return this.#deps.budget;
  }

  async send(request: SendRequest): Promise<MessageRef> {
    // On a business account's behalf an answer carries no buttons: the customer reads a
    // message of the company, and its owner stops an answer by writing (docs/telegram.md, "Telegram Business").
    const keyboard = this.#deps.place.business === undefined ? keyboardOf(request) : {};
    if (request.call === "post") {
      return this.#post(shownText(request.text), request.final, keyboard, stopOf(request));
    }
    if (request.call === "edit") {
      const ref = request.ref as TelegramRef;
      return this.#edit(ref, shownText(request.text), request.final, keyboard, stopOf(request));
    }
    throw new Error(`Telegram has no ${request.call} call`);
  }

  /** A draft's last state is sent as a message: no edit, so it waits for no edit interval. */
  endsWithoutEdit(ref: MessageRef): boolean {
    return isDraft(ref as TelegramRef);
  }

  /** A draft is "a temporary 30-second preview": it is shown again before it lapses. */
  refreshMs(ref: MessageRef): number | undefined {
    return isDraft(ref as TelegramRef) ? this.#deps.drafts.refreshMs : undefined;
  }

  /**
   * A draft has no buttons (sendMessageDraft takes no reply_markup): they come with the
   * message. A Stop among them shows as Telegram's own stop button on the draft.
   */
  async #post(
    text: string,
    final: boolean,
    keyboard: Keyboard,
    stop: Button | undefined,
  ): Promise<TelegramRef> {
    const { place, drafts } = this.#deps;
    // sendMessageDraft takes no business_connection_id: business chats get messages.
    const draftable = place.isPrivate && place.business === undefined;
    if (!final && draftable && drafts.take(place.chatId, this)) {
      const draftId = drafts.nextId();
      if (await this.#draft(draftId, text, stop)) return { messageId: undefined, draftId };
      drafts.release(place.chatId, this);
    }
    return { messageId: await this.#send(text, keyboard), draftId: undefined };
  }

  /** Without a keyboard, an edit takes away the one the message had. */
  async #edit(
    message: TelegramRef,
    text: string,
    final: boolean,
    keyboard: Keyboard,
    stop: Button | undefined,
  ): Promise<TelegramRef> {
    const { place, drafts, api } = this.#deps;
    const { messageId, draftId } = message;
    if (messageId === undefined) {
      if (!final && draftId !== undefined && (await this.#draft(draftId, text, stop))) {
        drafts.touch(place.chatId, this);
        return message;
      }
      // The draft's last state (or drafts stopped working): sent for good, exactly once.
      const sent: TelegramRef = {
        messageId: await this.#send(text, keyboard),
        draftId: undefined,
      };
      drafts.release(place.chatId, this);
      return sent;
    }
    await this.#attempt(async (body) => {
      try {
        await api.raw.editMessageText({
          chat_id: place.chatId,
          message_id: messageId,
          ...onBehalf(place),
          ...body,
          ...keyboard,
        });
      } catch (error) {
        if (!isNotModified(error)) throw error;
      }
    }, text);
    return message;
  }

  /**
   * The place and the message (or draft) of `ref`. A draft does not outlive the process that
   * streamed it: finishing it later sends the text as a message, as the final edit would have.
   */
  persistRef(ref: MessageRef): z.input<typeof savedMessage> {
    const { messageId, draftId } = ref as TelegramRef;
    const { chatId, isPrivate, topicId, replyTo, threadKey, chained, business } = this.#deps.place;
    return {
      chatId,
      isPrivate,
      topicId,
      replyTo,
      threadKey,
      chained,
      business,
      messageId,
      draftId,
    };
  }

  async notice(rendered: string, options: NoticeOptions = {}): Promise<void> {
    const { place, log } = this.#deps;
    // In a business chat a notice meant for one person (a refusal, "busy") would be the
    // company's word to its customer: the owner sees the message unanswered and answers it.
    if (options.private && place.business !== undefined) {
      log.debug("a notice for one person is not shown in a business chat");
      return;
    }
    const to = options.private ? this.#deps.privateTo : undefined;
    const answering =
      to?.answering && Date.now() < to.answering.until
        ? to.answering.ephemeralMessageId
        : undefined;
    const alone =
      to !== undefined && (answering !== undefined || (await to.allowed().catch(() => false)));
    const send = async () => {
      if (alone) await this.#sendAlone(shownText(rendered), to, answering);
      else await this.#send(shownText(rendered));
    };
    await callWithinBudget(this.#deps.budget, send, {
      maxWaits: NOTICE_ATTEMPTS - 1,
      maxWaitMs: NOTICE_MAX_WAIT_MS,
      urgent: true,
    });
  }

  /**
   * A notice only `to` sees in the group (an ephemeral message): a reply to their own
   * ephemeral message `answering`, else no reply to anything, and no chain of its own. A reply
   * refused (its window closed meanwhile) goes alone without quoting where the bot
   * administers the group; refused again (the bot no longer does, the person is gone), it is
   * posted.
   */
  async #sendAlone(
    text: string,
    to: NonNullable<SurfaceDeps["privateTo"]>,
    answering: number | undefined,
  ): Promise<void> {
    const { log } = this.#deps;
    if (answering !== undefined) {
      const refusal = await this.#ephemeral(text, to.userId, answering);
      if (refusal === undefined) return;
      log.debug({ reason: refusal }, "an ephemeral reply was refused");
      if (!(await to.allowed().catch(() => false))) return this.#postInstead(text, refusal);
    }
    const refusal = await this.#ephemeral(text, to.userId, undefined);
    if (refusal !== undefined) await this.#postInstead(text, refusal);
  }

  /** One ephemeral message; Telegram's refusal (400, 403) when it refused, else undefined. */
  async #ephemeral(
    text: string,
    userId: number,
    answering: number | undefined,
  ): Promise<string | undefined> {
    const { place, api } = this.#deps;
    const common = {
      chat_id: place.chatId,
      ...topicOf(place),
      ephemeral_message_parameters: { receiver_user_id: userId },
      ...(answering === undefined ? {} : { reply_parameters: { ephemeral_message_id: answering } }),
    };
    try {
      // As any message of the chat's format; markup refused is sent plain, a 429 waits.
      await this.#attempt(async (body) => {
        if ("rich_message" in body) await api.raw.sendRichMessage({ ...common, ...body });
        else await api.raw.sendMessage({ ...common, ...body });
      }, text);
      return undefined;
    } catch (error) {
      const refused = error instanceof TelegramApiError && [400, 403].includes(error.errorCode);
      if (!refused) throw error;
      return error.description;
    }
  }

  async #postInstead(text: string, refusal: string): Promise<void> {
    this.#deps.log.debug({ reason: refusal }, "a private notice is posted: Telegram refused it");
    await this.#send(text);
  }

  /**
   * Telegram shows "typing…" for up to 5 s (https://core.telegram.org/bots/api#sendchataction);
   * the reply engine repeats it every 4 s until the first text shows.
   */
  async showTyping(): Promise<void> {
    const { place, api } = this.#deps;
    await api.sendChatAction(place.chatId, "typing", { ...topicOf(place), ...onBehalf(place) });
  }

  /** Sends a message in this place; in groups it quotes the question. Returns its id. */
  async #send(text: string, keyboard: Keyboard = {}): Promise<number> {
    const { place, api, chains, log } = this.#deps;
    const common = {
      chat_id: place.chatId,
      ...keyboard,
      ...topicOf(place),
      ...onBehalf(place),
      ...(place.replyTo === undefined
        ? {}
        : { reply_parameters: { message_id: place.replyTo, allow_sending_without_reply: true } }),
    };
    const sent = await this.#attempt(
      (body): Promise<{ message_id: number }> =>
        "rich_message" in body
          ? api.raw.sendRichMessage({ ...common, ...body })
          : api.raw.sendMessage({ ...common, ...body }),
      text,
    );
    if (place.chained) {
      await chains
        .remember(place.chatId, sent.message_id, place.threadKey)
        .catch((error: unknown) => log.warn({ err: error }, "could not remember a reply chain"));
    }
    return sent.message_id;
  }

  /** Shows a draft; false when drafts cannot be used here (the caller sends instead). */
  async #draft(draftId: number, text: string, stop: Button | undefined): Promise<boolean> {
    const { drafts, log, place } = this.#deps;
    try {
      await this.#showDraft(draftId, text, stop !== undefined);
      drafts.stopsWith(place.chatId, draftId, stop);
      return true;
    } catch (error) {
      if (!(error instanceof TelegramApiError)) throw error;
      if (
        error.errorCode === 404 ||
        /method|not (available|supported|allowed)/i.test(error.description)
      ) {
        if (drafts.available)
          log.info(
            { reason: error.message },
            "sendMessageDraft unavailable: answers use send + edit",
          );
        drafts.disable();
      } else {
        log.warn({ err: error }, "draft refused: this answer uses send + edit");
      }
      return false;
    }
  }

  /** `canStop`: the draft shows Telegram's stop button (its press: stopped_message_generation). */
  #showDraft(draftId: number, text: string, canStop: boolean): Promise<unknown> {
    const { place, api } = this.#deps;
    const common = {
      chat_id: place.chatId,
      draft_id: draftId,
      ...topicOf(place),
      ...(canStop ? { can_stop: true } : {}),
    };
    return this.#attempt(
      (body: MessageBody) =>
        "rich_message" in body
          ? api.raw.sendRichMessageDraft({ ...common, ...body })
          : api.raw.sendMessageDraft({ ...common, ...body }),
      text,
    );
  }

  #attempt<T>(call: (body: MessageBody) => Promise<T>, rendered: string): Promise<T> {
    return callWithMarkup(this.#deps, call, rendered);
  }
}

/**
 * Makes one call with the rendered text, and once more without markup if Telegram cannot
 * parse it; turns a 429 into RateLimitedError and a vanished message into MessageGoneError.
 */
export async function callWithMarkup<T>(
  deps: { format: MessageFormat; log: Logger },
  call: (body: MessageBody) => Promise<T>,
  rendered: string,
): Promise<T> {
  const { format, log } = deps;
  try {
    return await call(format.body(rendered));
  } catch (error) {
    if (!isParseError(error)) throw translated(error);
    log.warn({ err: error }, "Telegram refused the markup; sending it as plain text");
    try {
      return await call(format.body(rendered, true));
    } catch (plainError) {
      throw translated(plainError);
    }
  }
}

function translated(error: unknown): unknown {
  const wait = retryAfterMs(error);
  if (wait !== undefined) return new RateLimitedError(wait, error);
  if (isMessageGone(error)) return new MessageGoneError(error);
  return error;
}

type Keyboard = { reply_markup?: InlineKeyboardMarkup };

function buttonsOf(request: SendRequest): readonly Button[] {
  return ("buttons" in request ? request.buttons : undefined) ?? [];
}

function keyboardOf(request: SendRequest): Keyboard {
  const buttons = buttonsOf(request);
  return buttons.length > 0 ? { reply_markup: inlineKeyboard(buttons) } : {};
}

/** The button that stops the answer, when the message shows one. */
function stopOf(request: SendRequest): Button | undefined {
  return buttonsOf(request).find((button) => button.stops === true);
}

function isDraft(ref: TelegramRef): boolean {
  return ref.messageId === undefined && ref.draftId !== undefined;
}

/** In a Telegram Business chat, every call acts on behalf of the connected account. */
function onBehalf(place: Place): { business_connection_id?: string } {
  return place.business === undefined ? {} : { business_connection_id: place.business };
}

function topicOf(place: Place): { message_thread_id?: number } {
  return place.topicId === undefined ? {} : { message_thread_id: place.topicId };
}

/** Telegram refuses a message with no visible text: an empty render shows as "…". */
export function shownText(text: string): string {
  return visibleText(text).trim() === "" ? PLACEHOLDER : text;
}
