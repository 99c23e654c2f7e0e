import { z } from "zod";
import type { Coordination } from "../coordination/port.ts";
import type { HandoverState } from "../handover/handover-book.ts";
import type { Translator } from "../i18n/translator.ts";
import type { Button, Lead, LeadCardState } from "../ports.ts";
import { safeJson } from "../store/repositories.ts";
import type { KeyValueStore } from "../store/types.ts";
import { leadId } from "./lead-id.ts";
import { leadTime } from "./lead-text.ts";

/** The button actions of a lead card. */
export const CLAIM_ACTION = "lead.claim";
export const RELEASE_ACTION = "lead.release";
export const TALK_ACTION = "lead.talk";
export const HAND_BACK_ACTION = "lead.handback";

/** What leadId gives: a press naming anything else names no lead. */
const LEAD_ID = /^[0-9a-f]{32}$/;

// As long as the poller remembers a lead it announced: an older card cannot be claimed. Kept
// records (see Ttl): memory pressure on Redis never takes a lead's card, posts or claim.
const REMEMBERED = { keptMs: 60 * 24 * 60 * 60 * 1000 };

// Longer than any post of a card takes: a process that died posting leaves the mark this long.
const APPEARING_MS = 5 * 60 * 1000;

const KEYS = {
  card: (id: string) => `lead:card:${id}`,
  posts: (id: string) => `lead:posts:${id}`,
  claim: (id: string) => `lead:claim:${id}`,
  appearing: (id: string, at: PostPlace) => `lead:appearing:${id}:${at.platform}:${at.channelId}`,
};

/** Who took a lead, and when. */
export interface LeadClaim {
  /** The channel kind the person pressed in ("slack", "telegram"). */
  platform: string;
  /** Their platform user id. */
  personId: string;
  /** Their name as the platform gave it: untrusted. */
  name: string;
  /** ISO 8601, UTC. */
  at: string;
  /** The press that took it (PressedButton.pressId): the same press again is no second one. */
  pressId?: string | undefined;
}

const leadClaim = z.object({
  platform: z.string(),
  personId: z.string(),
  name: z.string(),
  at: z.string(),
  pressId: z.string().optional(),
});

/**
 * One announcement of a lead: the platform, the channel (whose language a new state of the
 * card speaks) and where its message is, as announce gave it.
 */
export interface LeadPost {
  platform: string;
  channelId: string;
  message: unknown;
}

/** The lead channel an announcement is in. */
export type PostPlace = Pick<LeadPost, "platform" | "channelId">;

const leadPost = z.object({ platform: z.string(), channelId: z.string(), message: z.unknown() });

const storedLead = z.object({
  botUid: z.string(),
  conversationUid: z.string(),
  origin: z
    .union([
      z.literal("outside"),
      z.object({
        platform: z.string(),
        place: z.enum(["thread", "group", "private", "business"]),
        where: z.string().optional(),
        asker: z.string().optional(),
        link: z.string().optional(),
      }),
    ])
    .optional(),
  createdAt: z.string(),
  name: z.string(),
  phone: z.string(),
  email: z.string(),
  remark: z.string(),
});

/** What decides a card's state: who took the lead, and its hand-over (src/handover/). */
export interface CardFacts {
  claim: LeadClaim | undefined;
  /** The lead's conversation is in a chat the bot carried: its taker may talk there. */
  talk: boolean;
  handover?: HandoverState;
}

/**
 * What a card shows in a lead's state, in the lead channel's language: who has it and whether
 * a person talks with its customer, and the buttons that change that.
 */
export function cardState(id: string, facts: CardFacts, t: Translator): LeadCardState {
  const { claim, handover } = facts;
  if (!claim) {
    return { buttons: [{ action: CLAIM_ACTION, id, label: t.t("claimButton"), style: "primary" }] };
  }
  const claimed = t.t("claimedBy", { name: claim.name, time: leadTime(claim.at, t) });
  if (handover?.state === "open") {
    const { seller, openedAt } = handover.handover;
    const talking = t.t("handoverTalking", { name: seller.name, time: leadTime(openedAt, t) });
    return {
      status: `${claimed} · ${talking}`,
      buttons: [{ action: HAND_BACK_ACTION, id, label: t.t("handBackButton") }],
    };
  }
  const buttons: Button[] = [{ action: RELEASE_ACTION, id, label: t.t("releaseButton") }];
  if (facts.talk) {
    buttons.push({ action: TALK_ACTION, id, label: t.t("talkButton"), style: "primary" });
  }
  const back =
    handover?.state === "ended"
      ? ` · ${t.t("handoverHandedBack", { time: leadTime(handover.ended.at, t) })}`
      : "";
  return { status: `${claimed}${back}`, buttons };
}

/** Whether a card of `lead` offers its taker to talk with its customer. */
export function canTalk(lead: Lead): boolean {
  return typeof lead.origin === "object";
}

/**
 * Leads' claims in the store, so they hold across processes and restarts: who took each lead
 * (one atomic claim per lead, the store's SET NX on Redis), the lead as announced (what a
 * card is drawn again from: a press carries only the lead's id) and where it was announced.
 */
export class LeadClaimBook {
  readonly #store: KeyValueStore & Coordination;

  constructor(store: KeyValueStore & Coordination) {
    this.#store = store;
  }

  /**
   * Before the poller posts `lead` (cleaned, as shown) at `at`: until `posted` records where
   * the card is, a press on it as it appears there counts (`appearing`), rather than finding
   * no card.
   */
  async announcing(id: string, lead: Lead, at: PostPlace): Promise<void> {
    await this.#store.set(KEYS.card(id), lead, REMEMBERED);
    await this.#store.set(KEYS.appearing(id, at), true, APPEARING_MS);
  }

  /** Records where the poller posted the card `announcing` stored. */
  async posted(id: string, post: LeadPost): Promise<void> {
    if (post.message !== undefined) {
      await this.#store.addToSet(KEYS.posts(id), JSON.stringify(post), REMEMBERED);
    }
    // After the post is in: a press that saw the mark gone finds the post (see `appearing`).
    await this.#store.delete(KEYS.appearing(id, post));
  }

  /**
   * Whether a card of the lead is being posted at `at` and not yet recorded. Read it before
   * `card`: `posted` adds the post before it clears this, so a press reads one or the other.
   */
  async appearing(id: string, at: PostPlace): Promise<boolean> {
    if (!LEAD_ID.test(id)) return false;
    return (await this.#store.get(KEYS.appearing(id, at))) === true;
  }

  /** The lead an id names and its announcements, or undefined for an id that names none. */
  async card(id: string): Promise<{ lead: Lead; posts: LeadPost[] } | undefined> {
    if (!LEAD_ID.test(id)) return undefined;
    const lead = storedLead.safeParse(await this.#store.get(KEYS.card(id)));
    if (!lead.success) return undefined;
    const posts = (await this.#store.setMembers(KEYS.posts(id))).flatMap((member) => {
      const post = leadPost.safeParse(safeJson(member));
      return post.success ? [post.data] : [];
    });
    return { lead: lead.data, posts };
  }

  /**
   * Takes the lead for `claim`'s person: true only for the first of any number of presses at
   * once, in any process. False while someone holds it.
   */
  claim(id: string, claim: LeadClaim): Promise<boolean> {
    return this.#store.claim(KEYS.claim(id), JSON.stringify(claim), REMEMBERED);
  }

  /** Who holds the lead now, and the record's exact form (what `release` compares). */
  async holder(id: string): Promise<{ claim: LeadClaim; record: string } | undefined> {
    const record = await this.#store.get<string>(KEYS.claim(id));
    if (typeof record !== "string") return undefined;
    const claim = leadClaim.safeParse(safeJson(record));
    return claim.success ? { claim: claim.data, record } : undefined;
  }

  /** Frees the lead, only while `record` still holds it (not a claim made since). */
  release(id: string, record: string): Promise<boolean> {
    return this.#store.release(KEYS.claim(id), record);
  }

  /** The claims of `leads` as the backend lists them, in their order (one read). */
  async claimsOf(leads: readonly Lead[]): Promise<(LeadClaim | undefined)[]> {
    if (leads.length === 0) return [];
    const records = await this.#store.getMany<string>(
      leads.map((lead) => KEYS.claim(leadId(lead))),
    );
    return records.map((record) => {
      const claim = leadClaim.safeParse(typeof record === "string" ? safeJson(record) : undefined);
      return claim.success ? claim.data : undefined;
    });
  }
}

/** A lead's claim as `/leads` lists it. */
export function claimLine(claim: LeadClaim, t: Translator): string {
  return t.t("listedClaim", { name: claim.name, time: leadTime(claim.at, t) });
}
