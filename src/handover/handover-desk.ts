import type { CommandReply } from "../bridge/command-handler.ts";
import type { Stopper } from "../coordination/answer-stops.ts";
import { BridgeError, ChannelUnavailableError, MessageGoneError, userTextOf } from "../errors.ts";
import type { ChannelLanguages } from "../i18n/channel-language.ts";
import type { Translator } from "../i18n/translator.ts";
import { leadChannelLanguage } from "../leads/lead-channel-language.ts";
import type { LeadClaim, LeadClaimBook } from "../leads/lead-claims.ts";
import type { Logger } from "../log.ts";
import type {
  Channel,
  IncomingMessage,
  Lead,
  LeadAnnouncer,
  PressedButton,
  ReplySurface,
} from "../ports.ts";
import { sendNotice } from "../reply/notice.ts";
import type { Conversations } from "../store/repositories.ts";
import type { Handover, HandoverBook, ThreadSide } from "./handover-book.ts";

export interface HandoverDeskOptions {
  book: HandoverBook;
  claims: LeadClaimBook;
  /** Where each conversation the bot carried is (Conversations.origin). */
  conversations: Conversations;
  languages: ChannelLanguages;
  /**
   * Stops what streams or waits in a thread, on whichever process (Bridge.stopInThread): the
   * customer's, when a person takes it over.
   */
  pause: (threadKey: string, by: Stopper) => Promise<unknown>;
  /** HANDOVER_IDLE_MINUTES: a hand-over with no message either way this long ends. */
  idleMs: number;
  log: Logger;
}

/** What the desk reaches once the channels run. */
export interface DeskReach {
  /** The channels, whose surfaces reach customers (Channel.surfaceFor). */
  channels: readonly Channel[];
  /** The lead channels' platforms, which post under the cards. */
  announcers: readonly LeadAnnouncer[];
  /** Draws every card of a lead as the store has it now (leadCardRedraw). */
  redraw: (lead: string) => Promise<void>;
}

/** The lead a press is about, as the claim buttons found it on its card (claim-buttons.ts). */
export interface PressedCard {
  id: string;
  lead: Lead;
}

/**
 * A person of the company talking with a lead's customer through the bot (docs/leads.md, "Leads"):
 * "Talk to them" on a claimed card opens a hand-over of the customer's thread, whose messages
 * then reach the card (not the chatbot) and whose replies under the card reach the customer;
 * "Hand back", `/handback` in the customer's thread or HANDOVER_IDLE_MINUTES without a message
 * ends it, and the chatbot answers there again with the thread's conversation. The records are
 * the store's (HandoverBook), so a hand-over holds on every process and across restarts; each
 * process keeps a timer for the idle end of those it touched, or found open at its start.
 */
export class HandoverDesk {
  readonly #options: HandoverDeskOptions;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  #reach: DeskReach = { channels: [], announcers: [], redraw: async () => {} };

  constructor(options: HandoverDeskOptions) {
    this.#options = options;
  }

  /** Takes what reaches customers and cards, and schedules the open hand-overs' idle ends. */
  async start(reach: DeskReach): Promise<void> {
    this.#reach = reach;
    const open = await this.#options.book.openLeads().catch((error: unknown) => {
      this.#options.log.warn({ err: error }, "could not read the open hand-overs");
      return [];
    });
    for (const lead of open) void this.#idleCheck(lead);
  }

  stop(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  /** "Talk to them" on the card of lead `card`: opens a hand-over of its customer's thread. */
  async talk(pressed: PressedButton, card: PressedCard, t: Translator): Promise<void> {
    const { book, claims, conversations, log } = this.#options;
    const tell = (text: string) => pressed.replyPrivately(text);
    const holder = await claims.holder(card.id);
    if (!holder) return tell(t.t("handoverClaimFirst"));
    if (!(await mayTalk(holder.claim, pressed))) {
      return tell(t.t("handoverOnlyClaimer", { name: holder.claim.name }));
    }
    const origin = await conversations.origin(card.lead.conversationUid);
    const surface = origin?.replyPlace === undefined ? undefined : this.#surfaceFor(origin);
    const announcer = this.#announcer(pressed.channel);
    const sellerThread = announcer?.threadUnder?.(pressed.message);
    if (!origin?.thread || !origin.channelKey || !surface || !sellerThread || !announcer) {
      return tell(t.t("handoverNotOurs"));
    }
    const seller = { platform: pressed.channel, personId: pressed.person.id };
    const handover: Handover = {
      lead: card.id,
      seller: { ...seller, name: pressed.person.name },
      customer: {
        channel: origin.channel,
        threadKey: origin.thread,
        channelKey: origin.channelKey,
        replyPlace: origin.replyPlace,
        language: origin.language,
        ...(origin.direct && { direct: true }),
      },
      card: { platform: pressed.channel, channelId: pressed.channelId, message: pressed.message },
      sellerThread,
      openedAt: new Date().toISOString(),
    };
    const opened = await book.open(handover);
    if (opened !== true) {
      const name = opened.with?.seller.name;
      return tell(name ? t.t("handoverBusy", { name }) : t.t("claimTryAgain"));
    }
    try {
      await announcer.follow?.(pressed.message, true);
    } catch (error) {
      // No way to hear the seller: no hand-over (the presser is told the press failed).
      await book.end(handover, { at: new Date().toISOString(), name: pressed.person.name });
      throw error;
    }
    // What the chatbot streams or has waiting there stops first, so the notice comes after it.
    const by: Stopper = {
      id: seller.personId,
      name: pressed.person.name,
      isAdmin: async () => true,
      tookOver: true,
    };
    await this.#options
      .pause(origin.thread, by)
      .catch((error: unknown) =>
        log.warn({ err: error }, "a hand-over could not pause the answer"),
      );
    const customer = await this.#customerLanguage(handover.customer);
    await sendNotice(surface, customer.t("handoverJoined", { name: pressed.person.name })).catch(
      (error: unknown) =>
        log.warn({ kind: kindOf(error) }, "the customer was not told of a hand-over"),
    );
    this.#schedule(card.id, Date.now());
    log.info({ lead: card.id, platform: pressed.channel }, "a hand-over opened");
    await this.#reach.redraw(card.id);
  }

  /** "Hand back" on the card: the claimer, whoever talks, or a bot admin ends the hand-over. */
  async handBack(pressed: PressedButton, card: PressedCard, t: Translator): Promise<void> {
    const open = await this.#options.book.get(card.id);
    if (!open) {
      await this.#reach.redraw(card.id);
      return pressed.replyPrivately(t.t("handoverNotOpen"));
    }
    const holder = await this.#options.claims.holder(card.id);
    const mine = [open.seller, holder?.claim].some(
      (who) => who && samePerson(who, presser(pressed)),
    );
    if (!mine && !(await pressed.person.isBotAdmin?.())) {
      return pressed.replyPrivately(t.t("handoverOnlyClaimer", { name: open.seller.name }));
    }
    await this.#end(open, "handed back");
  }

  /** The lead's taker let it go (Release): a hand-over of it ends with its claim. */
  async released(lead: string): Promise<void> {
    const open = await this.#options.book.get(lead);
    if (open) await this.#end(open, "released");
  }

  /** Whether `threadKey` is either side of a hand-over (the chatbot's guards are not for it). */
  async inHandover(at: { threadKey: string; channelKey: string }): Promise<boolean> {
    return (await this.#options.book.side(at)) !== undefined;
  }

  /** `/handback` in a customer's thread, by an admin of it. */
  async handBackCommand(message: IncomingMessage, t: Translator): Promise<CommandReply> {
    const { book } = this.#options;
    const side = await book.side(message);
    const open = side?.side === "customer" ? await book.get(side.lead) : undefined;
    if (!open) return { text: t.t("handBackNone"), private: true };
    if (!(await message.isAdmin())) return { text: t.t("handBackAdminOnly"), private: true };
    await this.#end(open, "/handback");
    // The customer's thread is told by the end itself, in its language.
    return { text: "", private: false };
  }

  /**
   * A message in a thread in a hand-over (QuestionLife, once its turn came): a customer's is
   * posted under the card, a seller's reaches the customer. False when the hand-over is over
   * (ended elsewhere, or idle for too long): the chatbot answers the customer.
   */
  async relay(
    message: IncomingMessage,
    surface: ReplySurface,
    side: ThreadSide,
    t: Translator,
  ): Promise<boolean> {
    const { book } = this.#options;
    const { handover: open, lastAt } = await book.withLast(side.lead);
    const idle = open !== undefined && this.#idleOver(open, lastAt);
    if (idle) await this.#end(open, "idle");
    if (side.side === "customer") {
      return open !== undefined && !idle && (await this.#fromCustomer(message, open));
    }
    if (!open || idle || open.sellerThread !== message.threadKey) {
      await sendNotice(surface, t.t("handoverOver"), { private: true });
      return true;
    }
    await this.#fromSeller(message, surface, open, t);
    return true;
  }

  /**
   * Posts the customer's message under the card; false when it cannot go there (the card
   * deleted, the bot out of the lead channel): the hand-over ends, and the chatbot answers.
   */
  async #fromCustomer(message: IncomingMessage, open: Handover): Promise<boolean> {
    const announcer = this.#announcer(open.card.platform);
    try {
      if (!announcer?.replyUnder) {
        const platform = open.card.platform;
        throw new ChannelUnavailableError(`no ${platform} lead channels`, `configure ${platform}`);
      }
      const t = await leadChannelLanguage(announcer, open.card.channelId, this.#options.languages);
      const name = message.authorName ?? t.t("handoverCustomer");
      const text = [...message.text].slice(0, MAX_RELAYED_CHARS).join("");
      const cut = text.length < message.text.length ? "…" : "";
      const line = t.t("handoverCustomerLine", { name, text: `${text}${cut}` });
      await announcer.replyUnder(open.card.message, line, open.sellerThread);
    } catch (error) {
      // A passing failure is the customer's to hear of (their message reached no one); only a
      // card that nothing can go under any more ends the hand-over.
      const gone = error instanceof ChannelUnavailableError || error instanceof MessageGoneError;
      if (!gone) throw error;
      this.#options.log.warn(
        { kind: kindOf(error), lead: open.lead },
        "a customer's message could not go under the lead's card: the hand-over ends",
      );
      await this.#end(open, "the card cannot be reached");
      return false;
    }
    await this.#touched(open.lead);
    return true;
  }

  async #fromSeller(
    message: IncomingMessage,
    surface: ReplySurface,
    open: Handover,
    t: Translator,
  ): Promise<void> {
    const writer = { platform: message.channel, personId: message.authorId };
    const holder = await this.#options.claims.holder(open.lead);
    const mine = [open.seller, holder?.claim].some((who) => who && samePerson(who, writer));
    if (!mine && !(await message.isBotAdmin?.())) {
      await sendNotice(surface, t.t("handoverOnlyClaimer", { name: open.seller.name }), {
        private: true,
      });
      return;
    }
    const customer = this.#surfaceFor(open.customer);
    try {
      if (!customer) throw new Error(`no channel for ${open.customer.channel}`);
      const ct = await this.#customerLanguage(open.customer);
      const name = message.authorName ?? open.seller.name;
      await sendNotice(customer, ct.t("handoverSellerLine", { name, text: message.text }));
    } catch (error) {
      this.#options.log.warn(
        { kind: kindOf(error) },
        "a seller's message did not reach the customer",
      );
      await sendNotice(surface, t.t("handoverNotDelivered", { reason: userTextOf(error) }), {
        private: true,
      });
      return;
    }
    await message
      .markDelivered?.()
      .catch((error: unknown) =>
        this.#options.log.debug({ kind: kindOf(error) }, "a delivered line could not be marked"),
      );
    await this.#touched(open.lead);
  }

  /** Ends `open` once, in whichever process comes first: the customer is told, the cards say so. */
  async #end(open: Handover, why: string): Promise<void> {
    const { book, log } = this.#options;
    this.#clear(open.lead);
    if (!(await book.end(open, { at: new Date().toISOString(), name: open.seller.name }))) return;
    // Talk under the card goes back to being the sales team's own.
    await this.#announcer(open.card.platform)
      ?.follow?.(open.card.message, false)
      .catch((error: unknown) =>
        log.warn({ kind: kindOf(error) }, "a card's thread is followed still"),
      );
    const surface = this.#surfaceFor(open.customer);
    if (surface) {
      const t = await this.#customerLanguage(open.customer);
      await sendNotice(surface, t.t("handoverEnded")).catch((error: unknown) =>
        log.warn({ kind: kindOf(error) }, "the customer was not told the chatbot is back"),
      );
    }
    log.info({ lead: open.lead, why }, "a hand-over ended");
    await this.#reach.redraw(open.lead);
  }

  /** A message went either way: its idle end moves. Delivered already, a failure is only logged. */
  async #touched(lead: string): Promise<void> {
    const at = await this.#options.book.touch(lead).catch((error: unknown) => {
      this.#options.log.warn(
        { kind: kindOf(error) },
        "a hand-over's last message was not recorded",
      );
      return Date.now();
    });
    this.#schedule(lead, at);
  }

  #idleOver(open: Handover, lastAt: number | undefined): boolean {
    const last = lastAt ?? Date.parse(open.openedAt);
    return Date.now() >= last + this.#options.idleMs;
  }

  /** The idle end of `lead`, due `idleMs` after its last message (lastAt). */
  #schedule(lead: string, lastAt: number): void {
    this.#clear(lead);
    const due = Math.max(0, lastAt + this.#options.idleMs - Date.now());
    const timer = setTimeout(() => void this.#idleCheck(lead), due);
    timer.unref();
    this.#timers.set(lead, timer);
  }

  #clear(lead: string): void {
    clearTimeout(this.#timers.get(lead));
    this.#timers.delete(lead);
  }

  /** Ends `lead`'s hand-over if it has been idle long enough (another process may have seen a message since). */
  async #idleCheck(lead: string): Promise<void> {
    this.#timers.delete(lead);
    try {
      const { handover: open, lastAt } = await this.#options.book.withLast(lead);
      if (!open) return await this.#options.book.forget(lead);
      if (this.#idleOver(open, lastAt)) return await this.#end(open, "idle");
      this.#schedule(lead, lastAt ?? Date.parse(open.openedAt));
    } catch (error) {
      // Tried again a while later: the store may be back by then.
      this.#options.log.warn({ kind: kindOf(error) }, "a hand-over's idle end failed");
      this.#schedule(lead, Date.now() - this.#options.idleMs + RETRY_MS);
    }
  }

  /** The customer's language: their channel's, else the one the bot spoke to them in. */
  #customerLanguage(customer: Handover["customer"]): Promise<Translator> {
    return this.#options.languages.translatorFor(
      customer.channelKey,
      async () => customer.language,
    );
  }

  #announcer(platform: string): LeadAnnouncer | undefined {
    return this.#reach.announcers.find((announcer) => announcer.platform === platform);
  }

  #surfaceFor(at: { replyPlace?: unknown }): ReplySurface | undefined {
    for (const channel of this.#reach.channels) {
      const surface = channel.surfaceFor?.(at.replyPlace);
      if (surface) return surface;
    }
    return undefined;
  }
}

type Person = Pick<LeadClaim, "platform" | "personId">;

function samePerson(a: Person, b: Person): boolean {
  return a.platform === b.platform && a.personId === b.personId;
}

/** Who pressed, as a claim names people. */
function presser(pressed: PressedButton): Person {
  return { platform: pressed.channel, personId: pressed.person.id };
}

/** The claimer talks; a bot admin may too (a claimer away). */
async function mayTalk(claim: LeadClaim, pressed: PressedButton): Promise<boolean> {
  return samePerson(claim, presser(pressed)) || ((await pressed.person.isBotAdmin?.()) ?? false);
}

/** The most of a customer's message a line under a card carries (Telegram's 4,096 with room). */
const MAX_RELAYED_CHARS = 3_500;
/** How soon an idle end the store failed is tried again. */
const RETRY_MS = 30_000;

/** A failure's kind, for the log: never a customer's or a seller's words. */
function kindOf(error: unknown): string {
  return error instanceof BridgeError ? error.code : "UNEXPECTED";
}
