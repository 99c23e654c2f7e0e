import { type ButtonHandlers, presserLanguage, toldOnFailure } from "../bridge/button-handlers.ts";
import { BridgeError } from "../errors.ts";
import type { ChannelLanguages } from "../i18n/channel-language.ts";
import type { Translator } from "../i18n/translator.ts";
import type { Logger } from "../log.ts";
import type { Lead, LeadAnnouncer, PressedButton } from "../ports.ts";
import { leadChannelLanguage } from "./lead-channel-language.ts";
import type { LeadChannels } from "./lead-channels.ts";
import {
  CLAIM_ACTION,
  cardState,
  type LeadClaim,
  type LeadClaimBook,
  type LeadPost,
  RELEASE_ACTION,
} from "./lead-claims.ts";
import { leadAnnouncement, leadTime } from "./lead-text.ts";

export interface ClaimButtonsOptions {
  book: LeadClaimBook;
  channels: LeadChannels;
  announcers: readonly LeadAnnouncer[];
  /** Each lead channel's language (a card's edit) and the presser's (a private reply). */
  languages: ChannelLanguages;
  log: Logger;
  now?: () => Date;
}

/**
 * "I'll take it" and "Release" under lead announcements. A press names a lead by id only:
 * the lead, its announcements and its claim are looked up, and the press counts only on an
 * announcement of that lead in a lead channel (so no press can draw a lead's card anywhere
 * else). A claim edits every announcement of the lead; a press that loses is told privately.
 */
export function registerClaimButtons(buttons: ButtonHandlers, options: ClaimButtonsOptions): void {
  const { book, log } = options;
  const now = options.now ?? (() => new Date());

  /** The lead the press is about, when the press is on one of its announcements here. */
  const leadOf = async (pressed: PressedButton) => {
    const inLeadChannel = await options.channels.includes({
      platform: pressed.channel,
      id: pressed.channelId,
    });
    const card = inLeadChannel ? await book.card(pressed.id) : undefined;
    // Both refs are built by the same adapter from the same two ids, so equal JSON is the
    // same message.
    const here = JSON.stringify(pressed.message);
    const onCard = card?.posts.some(
      (post) => post.platform === pressed.channel && JSON.stringify(post.message) === here,
    );
    return onCard ? card : undefined;
  };

  /**
   * Every announcement of the lead shows who holds it now, as the store says (not as this
   * press left it: a release and a claim in two processes may edit the cards in either
   * order). Drawn again while the holder changed meanwhile, so the last edit shows the last
   * holder. An announcement that cannot be edited is left as it was.
   */
  const showEverywhere = async (id: string, lead: Lead, posts: readonly LeadPost[]) => {
    try {
      let shown: string | undefined;
      for (let draws = 0; draws < MAX_DRAWS; draws++) {
        const holder = await book.holder(id);
        const record = holder?.record ?? "";
        if (record === shown) return;
        shown = record;
        await draw(id, lead, posts, holder?.claim);
      }
    } catch (error) {
      // The claim or release itself went through, so the press did not fail: only the cards
      // show the holder before it until the lead changes hands again (a press that finds the
      // lead taken is told who has it).
      const kind = error instanceof BridgeError ? error.code : "UNEXPECTED";
      log.warn({ kind }, "a lead's announcements could not be redrawn");
    }
  };

  /** Each announcement of the lead shows `claim`, in its channel's language. */
  const draw = async (
    id: string,
    lead: Lead,
    posts: readonly LeadPost[],
    claim: LeadClaim | undefined,
  ) => {
    await Promise.all(
      posts.map(async (post) => {
        const announcer = options.announcers.find((a) => a.platform === post.platform);
        if (!announcer?.show) return;
        try {
          const t = await leadChannelLanguage(announcer, post.channelId, options.languages);
          await announcer.show(post.message, leadAnnouncement(lead, t), cardState(id, claim, t));
        } catch (error) {
          // Its kind only: the lead's fields never reach the log.
          const kind = error instanceof BridgeError ? error.code : "UNEXPECTED";
          log.warn({ platform: post.platform, kind }, "a lead announcement could not be updated");
        }
      }),
    );
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
      };
      if (await book.claim(pressed.id, claim)) {
        return showEverywhere(pressed.id, card.lead, card.posts);
      }
      const holder = await book.holder(pressed.id);
      if (!holder) return tell(pressed, (t) => t.t("claimTryAgain"));
      if (samePerson(holder.claim, pressed)) return tell(pressed, (t) => t.t("youHaveIt"));
      const { name, at } = holder.claim;
      return tell(pressed, (t) => t.t("alreadyClaimed", { name, time: leadTime(at, t) }));
    }),
  );

  buttons.on(
    RELEASE_ACTION,
    told(async (pressed) => {
      const card = await leadOf(pressed);
      if (!card) return tell(pressed, (t) => t.t("claimUnavailable"));
      const holder = await book.holder(pressed.id);
      if (!holder) return tell(pressed, (t) => t.t("notClaimed"));
      // An admin may free a lead whose taker is away, as an admin may stop anyone's answer. An
      // admin check Slack or Telegram cannot answer is told as such (toldOnFailure), not as a
      // refusal the presser could not make sense of.
      const own = samePerson(holder.claim, pressed);
      if (!own && !(await pressed.person.isAdmin())) {
        return tell(pressed, (t) => t.t("onlyClaimerReleases", { name: holder.claim.name }));
      }
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
      return showEverywhere(pressed.id, card.lead, card.posts);
    }),
  );
}

/** Redraws of a lead's cards for one press, however often its holder changes meanwhile. */
const MAX_DRAWS = 3;
