import { type ButtonHandlers, presserLanguage, toldOnFailure } from "../bridge/button-handlers.ts";
import type { HandoverBook } from "../handover/handover-book.ts";
import type { HandoverDesk, PressedCard } from "../handover/handover-desk.ts";
import type { ChannelLanguages } from "../i18n/channel-language.ts";
import type { Translator } from "../i18n/translator.ts";
import type { Logger } from "../log.ts";
import type { LeadAnnouncer, PressedButton } from "../ports.ts";
import { leadCardRedraw } from "./lead-card-redraw.ts";
import type { LeadChannels } from "./lead-channels.ts";
import {
  CLAIM_ACTION,
  HAND_BACK_ACTION,
  type LeadClaim,
  type LeadClaimBook,
  RELEASE_ACTION,
  TALK_ACTION,
} from "./lead-claims.ts";
import { leadTime } from "./lead-text.ts";

export interface ClaimButtonsOptions {
  book: LeadClaimBook;
  channels: LeadChannels;
  announcers: readonly LeadAnnouncer[];
  /** Each lead channel's language (a card's edit) and the presser's (a private reply). */
  languages: ChannelLanguages;
  /** The name a card shows for a lead of a bot_uid (Chatbots.labelOf). */
  chatbotLabel?: ((botUid: string) => string | undefined) | undefined;
  /** The leads' hand-overs (src/handover/), which "Talk to them" and "Hand back" open and end. */
  handovers?: { book: HandoverBook; desk: HandoverDesk } | undefined;
  log: Logger;
  now?: () => Date;
}

/**
 * "I'll take it" and "Release" under lead announcements. A press names a lead by id only:
 * the lead, its announcements and its claim are looked up, and the press counts only in a
 * current lead channel, on an announcement of that lead (a card elsewhere, or in a chat that
 * is no lead channel any more, takes nothing). A claim edits every recorded announcement of
 * the lead (so no press can draw a lead's card anywhere else); a press that loses is told
 * privately. Someone else's claim is freed only by a bot admin (Presser.isBotAdmin).
 */
export function registerClaimButtons(buttons: ButtonHandlers, options: ClaimButtonsOptions): void {
  const { book, log } = options;
  const now = options.now ?? (() => new Date());
  const showEverywhere = leadCardRedraw({ ...options, handovers: options.handovers?.book });

  /**
   * The lead the press is about, when the press is on one of its announcements in a lead
   * channel, or in a lead channel where its announcement is appearing (posted, not yet
   * recorded: the card is usable the moment it shows).
   */
  const leadOf = async (pressed: PressedButton) => {
    const at = { platform: pressed.channel, channelId: pressed.channelId };
    if (!(await options.channels.includes({ platform: at.platform, id: at.channelId }))) {
      return undefined;
    }
    const appearing = await book.appearing(pressed.id, at);
    const card = await book.card(pressed.id);
    // Both refs are built by the same adapter from the same two ids, so equal JSON is the
    // same message.
    const here = JSON.stringify(pressed.message);
    const onCard =
      appearing ||
      card?.posts.some(
        (post) => post.platform === pressed.channel && JSON.stringify(post.message) === here,
      );
    return onCard ? card : undefined;
  };

  const samePerson = (claim: LeadClaim, pressed: PressedButton) =>
    claim.platform === pressed.channel && claim.personId === pressed.person.id;

  /** A private reply to the presser, in the channel's language or else theirs. */
  const tell = async (pressed: PressedButton, say: (t: Translator) => string) =>
    pressed.replyPrivately(say(await presserLanguage(pressed, options.languages)));
  const told = toldOnFailure(options.languages);

  buttons.on(
    CLAIM_ACTION,
    told(async (pressed) => {
      const card = await leadOf(pressed);
      if (!card) return tell(pressed, (t) => t.t("claimUnavailable"));
      const claim: LeadClaim = {
        platform: pressed.channel,
        personId: pressed.person.id,
        name: pressed.person.name,
        at: now().toISOString(),
        pressId: pressed.pressId,
      };
      if (await book.claim(pressed.id, claim)) return showEverywhere(pressed.id);
      const holder = await book.holder(pressed.id);
      if (!holder) return tell(pressed, (t) => t.t("claimTryAgain"));
      if (samePerson(holder.claim, pressed)) {
        // This very press, delivered again (to another process, or retried): it took the
        // lead, so it is answered as the press that took it, and the cards are drawn in case
        // the first delivery could not.
        const again = pressed.pressId !== undefined && holder.claim.pressId === pressed.pressId;
        if (again) return showEverywhere(pressed.id);
        return tell(pressed, (t) => t.t("youHaveIt"));
      }
      const { name, at } = holder.claim;
      return tell(pressed, (t) => t.t("alreadyClaimed", { name, time: leadTime(at, t) }));
    }),
  );

  const desk = options.handovers?.desk;
  if (desk) {
    /** A hand-over's button: only on a card of the lead, as a claim. */
    const onCard =
      (act: (pressed: PressedButton, card: PressedCard, t: Translator) => Promise<void>) =>
      async (pressed: PressedButton) => {
        const card = await leadOf(pressed);
        const t = await presserLanguage(pressed, options.languages);
        if (!card) return pressed.replyPrivately(t.t("claimUnavailable"));
        return act(pressed, { id: pressed.id, lead: card.lead }, t);
      };
    buttons.on(TALK_ACTION, told(onCard((...press) => desk.talk(...press))));
    buttons.on(HAND_BACK_ACTION, told(onCard((...press) => desk.handBack(...press))));
  }

  buttons.on(
    RELEASE_ACTION,
    told(async (pressed) => {
      const card = await leadOf(pressed);
      if (!card) return tell(pressed, (t) => t.t("claimUnavailable"));
      const holder = await book.holder(pressed.id);
      if (!holder) return tell(pressed, (t) => t.t("notClaimed"));
      // A bot admin may free a lead whose taker is away. Not a chat's own admin: the lead is
      // the lead channels' (where its taker took it), and a chat's admin may be whoever
      // created a group. A check Slack cannot answer is told as such (toldOnFailure), not as a
      // refusal the presser could not make sense of.
      const own = samePerson(holder.claim, pressed);
      if (!own && !(await pressed.person.isBotAdmin?.())) {
        return tell(pressed, (t) => t.t("onlyClaimerReleases", { name: holder.claim.name }));
      }
      // Whoever talks with the lead's customer stops with the claim: the chatbot answers again.
      await desk?.released(pressed.id);
      if (!(await book.release(pressed.id, holder.record))) {
        return tell(pressed, (t) => t.t("claimTryAgain"));
      }
      if (!own) {
        // Who freed whose lead, for the sales team's lead to ask about later: ids only (people's
        // names and the lead's fields stay out of the log).
        log.info(
          {
            lead: pressed.id,
            platform: pressed.channel,
            releasedBy: pressed.person.id,
            heldBy: `${holder.claim.platform}:${holder.claim.personId}`,
          },
          "an admin released a lead someone else had taken",
        );
      }
      return showEverywhere(pressed.id);
    }),
  );
}
