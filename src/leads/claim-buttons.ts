import type { ButtonHandlers } from "../bridge/button-handlers.ts";
import { BridgeError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { Lead, LeadAnnouncer, PressedButton } from "../ports.ts";
import {
  alreadyClaimed,
  claimTryAgain,
  claimUnavailable,
  notClaimed,
  onlyClaimerReleases,
  youHaveIt,
} from "./claim-texts.ts";
import type { LeadChannels } from "./lead-channels.ts";
import {
  CLAIM_ACTION,
  cardState,
  type LeadClaim,
  type LeadClaimBook,
  type LeadPost,
  RELEASE_ACTION,
} from "./lead-claims.ts";
import { leadTime } from "./lead-text.ts";

export interface ClaimButtonsOptions {
  book: LeadClaimBook;
  channels: LeadChannels;
  announcers: readonly LeadAnnouncer[];
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
    let shown: string | undefined;
    for (let draws = 0; draws < MAX_DRAWS; draws++) {
      const holder = await book.holder(id);
      const record = holder?.record ?? "";
      if (record === shown) return;
      shown = record;
      await draw(id, lead, posts, holder?.claim);
    }
  };

  const draw = async (
    id: string,
    lead: Lead,
    posts: readonly LeadPost[],
    claim: LeadClaim | undefined,
  ) => {
    const state = cardState(id, claim);
    await Promise.all(
      posts.map(async (post) => {
        const announcer = options.announcers.find((a) => a.platform === post.platform);
        try {
          await announcer?.show?.(post.message, lead, state);
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

  buttons.on(CLAIM_ACTION, async (pressed) => {
    const card = await leadOf(pressed);
    if (!card) return pressed.replyPrivately(claimUnavailable());
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
    if (!holder) return pressed.replyPrivately(claimTryAgain());
    if (samePerson(holder.claim, pressed)) return pressed.replyPrivately(youHaveIt());
    return pressed.replyPrivately(alreadyClaimed(holder.claim.name, leadTime(holder.claim.at)));
  });

  buttons.on(RELEASE_ACTION, async (pressed) => {
    const card = await leadOf(pressed);
    if (!card) return pressed.replyPrivately(claimUnavailable());
    const holder = await book.holder(pressed.id);
    if (!holder) return pressed.replyPrivately(notClaimed());
    if (!samePerson(holder.claim, pressed)) {
      return pressed.replyPrivately(onlyClaimerReleases(holder.claim.name));
    }
    if (!(await book.release(pressed.id, holder.record))) {
      return pressed.replyPrivately(claimTryAgain());
    }
    return showEverywhere(pressed.id, card.lead, card.posts);
  });
}

/** Redraws of a lead's cards for one press, however often its holder changes meanwhile. */
const MAX_DRAWS = 3;
