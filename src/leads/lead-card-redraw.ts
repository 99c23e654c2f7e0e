import { BridgeError } from "../errors.ts";
import type { HandoverBook, HandoverState } from "../handover/handover-book.ts";
import type { ChannelLanguages } from "../i18n/channel-language.ts";
import type { Logger } from "../log.ts";
import type { LeadAnnouncer } from "../ports.ts";
import { leadChannelLanguage } from "./lead-channel-language.ts";
import { canTalk, cardState, type LeadClaim, type LeadClaimBook } from "./lead-claims.ts";
import { leadAnnouncement } from "./lead-text.ts";

export interface LeadCardRedrawOptions {
  book: LeadClaimBook;
  announcers: readonly LeadAnnouncer[];
  /** Each lead channel's language. None: English. */
  languages?: ChannelLanguages | undefined;
  /** The name a card shows for a lead of a bot_uid (Chatbots.labelOf); none shows none. */
  chatbotLabel?: ((botUid: string) => string | undefined) | undefined;
  /** The leads' hand-overs (src/handover/); none: cards offer none. */
  handovers?: HandoverBook | undefined;
  log: Logger;
}

/** Redraws of a lead's cards at one call, however often its holder changes meanwhile. */
const MAX_DRAWS = 3;

/**
 * Returns what makes every announcement of a lead show who holds it now, as the store says
 * (not as a press left it: a release and a claim in two processes may edit the cards in
 * either order). Drawn again while the holder changed meanwhile, so the last edit shows the
 * last holder. The announcements are read after the holder, so one recorded after a claim is
 * drawn either here or by whoever recorded it (the lead poll looks at the holder after
 * recording its post). An announcement that cannot be edited is left as it was; nothing
 * throws: the claim or release itself went through.
 */
export function leadCardRedraw(options: LeadCardRedrawOptions): (id: string) => Promise<void> {
  const { book, log } = options;

  /** Each announcement of the lead shows `claim` and `handover`, in its channel's language. */
  const draw = async (id: string, claim: LeadClaim | undefined, handover: HandoverState) => {
    const card = await book.card(id);
    if (!card) return;
    await Promise.all(
      card.posts.map(async (post) => {
        const announcer = options.announcers.find((a) => a.platform === post.platform);
        if (!announcer?.show) return;
        try {
          const t = await leadChannelLanguage(announcer, post.channelId, options.languages);
          await announcer.show(
            post.message,
            leadAnnouncement(card.lead, t, options.chatbotLabel?.(card.lead.botUid)),
            cardState(
              id,
              { claim, talk: options.handovers !== undefined && canTalk(card.lead), handover },
              t,
            ),
          );
        } catch (error) {
          // Its kind only: the lead's fields never reach the log.
          const kind = error instanceof BridgeError ? error.code : "UNEXPECTED";
          log.warn({ platform: post.platform, kind }, "a lead announcement could not be updated");
        }
      }),
    );
  };

  return async (id) => {
    try {
      let shown: string | undefined;
      for (let draws = 0; draws < MAX_DRAWS; draws++) {
        const [holder, handover] = await Promise.all([
          book.holder(id),
          options.handovers?.state(id),
        ]);
        const record = `${holder?.record ?? ""} ${JSON.stringify(handover ?? null)}`;
        if (record === shown) return;
        shown = record;
        await draw(id, holder?.claim, handover);
      }
    } catch (error) {
      // The cards show the holder before it until the lead changes hands again (a press that
      // finds the lead taken is told who has it).
      const kind = error instanceof BridgeError ? error.code : "UNEXPECTED";
      log.warn({ kind }, "a lead's announcements could not be redrawn");
    }
  };
}
