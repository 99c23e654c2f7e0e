import { z } from "zod";
import type { Coordination } from "../coordination/port.ts";
import {
  readThreadSide,
  safeJson,
  type ThreadSide,
  threadSide,
  threadSideKey,
} from "../store/repositories.ts";
import type { KeyValueStore } from "../store/types.ts";

export type { ThreadSide } from "../store/repositories.ts";

const person = z.object({ platform: z.string(), personId: z.string(), name: z.string() });

const handover = z.object({
  lead: z.string(),
  /** Who talks to the customer: the lead's claimer, or the bot admin who opened it. */
  seller: person,
  /** Where the customer is: the thread, its channel, and where a reply there goes. */
  customer: z.object({
    channel: z.string(),
    threadKey: z.string(),
    channelKey: z.string(),
    replyPlace: z.unknown(),
    /** The language the bot spoke to them in, where their channel has none set. */
    language: z.string().optional(),
    /** One person's chat with the bot: the hand-over covers the whole chat, every thread. */
    direct: z.boolean().optional(),
  }),
  /** The card the seller talks under: its platform, lead channel and message. */
  card: z.object({ platform: z.string(), channelId: z.string(), message: z.unknown() }),
  /** The thread the seller's replies under the card arrive in. */
  sellerThread: z.string(),
  /** ISO 8601, UTC. */
  openedAt: z.string(),
});

/** One open hand-over: a person of the company talks with a lead's customer through the bot. */
export type Handover = z.infer<typeof handover>;

const ended = z.object({ at: z.string(), name: z.string() });
/** How a lead's last hand-over ended, for its card: when, and who had talked. */
export type HandoverEnded = z.infer<typeof ended>;

/** A lead card's view of its hand-over: open, ended, or none yet. */
export type HandoverState =
  | { state: "open"; handover: Handover }
  | { state: "ended"; ended: HandoverEnded }
  | undefined;

// A seller's thread and a lead's end stay as long as a lead's card can be claimed
// (lead-claims.ts): a reply under an old card is told the chat went back to the chatbot.
const REMEMBERED = { keptMs: 60 * 24 * 60 * 60 * 1000 };

const KEYS = {
  open: (lead: string) => `handover:lead:${lead}`,
  ended: (lead: string) => `handover:ended:${lead}`,
  last: (lead: string) => `handover:last:${lead}`,
  all: "handover:open",
};

/** Why opening a hand-over did not: the customer's thread is another lead's, or this one's. */
export type OpenRefusal = { refused: "busy"; with: Handover | undefined };

/**
 * Hand-overs in the store, so they hold across processes and restarts: the customer's thread
 * is taken by one atomic claim (at most one hand-over per thread, whoever presses at once), the
 * record names both sides, and the set of open ones lets a restart pick their idle ends up.
 */
export class HandoverBook {
  readonly #store: KeyValueStore & Coordination;

  constructor(store: KeyValueStore & Coordination) {
    this.#store = store;
  }

  /**
   * Opens `opened`, unless its customer's thread (or, for a direct chat, the chat) is in a
   * hand-over already. A claim whose hand-over is not open (an open or an end that failed
   * halfway) is freed once it is older than any open takes.
   */
  async open(opened: Handover): Promise<true | OpenRefusal> {
    const claim = customerClaim(opened.lead, opened.openedAt);
    const keys = customerKeys(opened);
    // Listed first: a lead listed whose open failed is dropped by its idle check.
    await this.#store.addToSet(KEYS.all, opened.lead);
    const taken: string[] = [];
    for (const key of keys) {
      const refusal = await this.#take(key, claim);
      if (refusal) {
        for (const held of taken) await this.#store.release(held, claim).catch(() => undefined);
        return refusal;
      }
      taken.push(key);
    }
    const seller: ThreadSide = { side: "seller", lead: opened.lead };
    try {
      await this.#store.setMany([
        { key: KEYS.open(opened.lead), value: opened, ttlMs: REMEMBERED },
        { key: threadSideKey(opened.sellerThread), value: seller, ttlMs: REMEMBERED },
        { key: KEYS.last(opened.lead), value: Date.now(), ttlMs: REMEMBERED },
      ]);
    } catch (error) {
      for (const key of keys) await this.#store.release(key, claim).catch(() => undefined);
      throw error;
    }
    // An end left from before is no longer what the card shows (state reads the open first).
    await this.#store.delete(KEYS.ended(opened.lead)).catch(() => undefined);
    return true;
  }

  /** Claims a customer's key for `claim`, freeing a stale claim of it; the refusal otherwise. */
  async #take(key: string, claim: string): Promise<OpenRefusal | undefined> {
    if (await this.#store.claim(key, claim, REMEMBERED)) return undefined;
    const held = readCustomerClaim(await this.#store.get(key));
    const open = held && (await this.get(held.lead));
    const stale = held && !open && Date.now() - Date.parse(held.at) > OPENING_MS;
    if (!stale || !(await this.#store.release(key, customerClaim(held.lead, held.at)))) {
      return { refused: "busy", with: open };
    }
    if (await this.#store.claim(key, claim, REMEMBERED)) return undefined;
    return { refused: "busy", with: undefined };
  }

  /** The open hand-over of lead `lead`, if any. */
  async get(lead: string): Promise<Handover | undefined> {
    const parsed = handover.safeParse(await this.#store.get(KEYS.open(lead)));
    return parsed.success ? parsed.data : undefined;
  }

  /** The open hand-over of lead `lead` with when a message last went either way (one read). */
  async withLast(lead: string): Promise<{ handover?: Handover; lastAt?: number }> {
    const [open, last] = await this.#store.getMany([KEYS.open(lead), KEYS.last(lead)]);
    const parsed = handover.safeParse(open);
    if (!parsed.success) return {};
    return typeof last === "number"
      ? { handover: parsed.data, lastAt: last }
      : { handover: parsed.data };
  }

  /** A message's thread's part in a hand-over, or its direct chat's, if it has one (one read). */
  async side(at: { threadKey: string; channelKey: string }): Promise<ThreadSide | undefined> {
    const [thread, chat] = await this.#store.getMany([
      threadSideKey(at.threadKey),
      threadSideKey(at.channelKey),
    ]);
    return readThreadSide(thread ?? chat);
  }

  /** What a card of lead `lead` shows of its hand-over. */
  async state(lead: string): Promise<HandoverState> {
    const [open, end] = await this.#store.getMany([KEYS.open(lead), KEYS.ended(lead)]);
    const parsed = handover.safeParse(open);
    if (parsed.success) return { state: "open", handover: parsed.data };
    const over = ended.safeParse(end);
    return over.success ? { state: "ended", ended: over.data } : undefined;
  }

  /** A message went either way: the idle end counts from now. */
  async touch(lead: string): Promise<number> {
    const now = Date.now();
    await this.#store.set(KEYS.last(lead), now, REMEMBERED);
    return now;
  }

  /** The leads with a hand-over open, for a start to schedule their idle ends. */
  openLeads(): Promise<string[]> {
    return this.#store.setMembers(KEYS.all);
  }

  /**
   * Ends `open`: true only for the one call that ended it, in any process (the one whose
   * delete of the open record found it). Its seller's thread stays, so a reply there is told it
   * went back to the chatbot. Should a later step fail, the customer's thread answers again
   * all the same: a hand-over is open only while its record is.
   */
  async end(open: Handover, by: HandoverEnded): Promise<boolean> {
    if (!(await this.#store.delete(KEYS.open(open.lead)))) return false;
    // Each freed on its own: one that fails is stale to the next open, which frees it.
    const claim = customerClaim(open.lead, open.openedAt);
    for (const key of customerKeys(open)) {
      await this.#store.release(key, claim).catch(() => undefined);
    }
    await this.#store.set(KEYS.ended(open.lead), by, REMEMBERED);
    await this.#store.removeFromSet(KEYS.all, open.lead);
    return true;
  }

  /** A lead no longer open (ended elsewhere) leaves the set of open ones. */
  async forget(lead: string): Promise<void> {
    await this.#store.removeFromSet(KEYS.all, lead);
  }
}

// Longer than an open takes from its claim to its record: a claim older than that with no
// record open is left from a failure.
const OPENING_MS = 60_000;

const customerSide = threadSide.extend({ side: z.literal("customer"), at: z.string() });

/**
 * The keys a hand-over holds of its customer: the thread's, and for a direct chat whose next
 * message may start a thread of its own, the chat's too.
 */
function customerKeys(open: Handover): string[] {
  const { channelKey, threadKey, direct } = open.customer;
  const chat = direct && channelKey !== threadKey ? [threadSideKey(channelKey)] : [];
  return [threadSideKey(threadKey), ...chat];
}

/** The customer's thread's claim, as the store holds it: the lead and when it was opened. */
function customerClaim(lead: string, at: string): string {
  return JSON.stringify({ side: "customer", lead, at });
}

function readCustomerClaim(value: unknown): z.infer<typeof customerSide> | undefined {
  const parsed = customerSide.safeParse(typeof value === "string" ? safeJson(value) : value);
  return parsed.success ? parsed.data : undefined;
}
