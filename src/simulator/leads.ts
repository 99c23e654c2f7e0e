import { createHash } from "node:crypto";

/** A lead as the API sends it (the spec's field names). */
export interface SimLead {
  bot_uid: string;
  conversation_uid: string;
  /** `YYYY-MM-DDThh:mm:ss+00:00` unless a test gave another string. */
  created_at: string;
  email: string;
  name: string;
  phone: string;
  remark: string;
}

/** Fields for a lead added by a test; each missing one gets the generated default. */
export interface SimLeadInput {
  name?: string;
  phone?: string;
  email?: string;
  remark?: string;
  conversation_uid?: string;
  /** A Date, or a string kept verbatim (so tests can send other offsets); defaults to now. */
  created_at?: string | Date;
  /** The chatbot whose lead it is, of the simulator's bots; defaults to the first. */
  bot_uid?: string;
}

export interface LeadsSelection {
  /** Inclusive lower bound of created_at, in ms. */
  fromMs?: number | undefined;
  /** Exclusive upper bound of created_at, in ms. */
  toMs?: number | undefined;
  page: number;
  pageSize: number;
  order: "newest-first" | "oldest-first";
}

interface AddedLead {
  lead: SimLead;
  ms: number;
  seq: number;
}

const REMARKS = [
  "Would like a demo next week",
  "Asked about pricing for 20 seats",
  "Wants the chatbot on their website",
  "Call back after 3 pm, please",
  "Interested in the annual plan",
];

const DAY_MS = 86_400_000;

/**
 * The leads of the simulated bot. Generated leads are never stored: lead k (1 = oldest)
 * is computed from its number, so a million of them cost no memory and any page is found
 * by binary search. Leads added at run time are stored, sorted newest first.
 */
export class LeadBook {
  #generated = 0;
  #anchorMs = 0;
  #stepMs = 0;
  #added: AddedLead[] = [];
  #seq = 0;

  constructor(
    private readonly botUid: string,
    private readonly now: () => Date,
    private readonly spanDays: number,
  ) {}

  get size(): number {
    return this.#generated + this.#added.length;
  }

  /** Replaces every lead: `count` generated ones spread over the last `spanDays`, or a list. */
  replace(leads: number | readonly SimLeadInput[]): void {
    this.#added = [];
    this.#seq = 0;
    this.#generated = typeof leads === "number" ? Math.max(0, Math.floor(leads)) : 0;
    this.#anchorMs = Math.floor(this.now().getTime() / 1000) * 1000;
    this.#stepMs = this.#generated > 0 ? (this.spanDays * DAY_MS) / this.#generated : 0;
    if (typeof leads !== "number") this.addAll(leads);
  }

  add(input: SimLeadInput = {}): SimLead {
    const entry = this.#entry(input);
    // Binary insert keeps #added sorted newest first (later-added first on equal times).
    let lo = 0;
    let hi = this.#added.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (isNewer(this.#added[mid] as AddedLead, entry)) lo = mid + 1;
      else hi = mid;
    }
    this.#added.splice(lo, 0, entry);
    return entry.lead;
  }

  addAll(inputs: readonly SimLeadInput[]): SimLead[] {
    const entries = inputs.map((input) => this.#entry(input));
    this.#added.push(...entries);
    this.#added.sort((a, b) => (isNewer(a, b) ? -1 : 1));
    return entries.map((entry) => entry.lead);
  }

  /** One page of the leads inside the date range, and how many leads the range holds. */
  select(selection: LeadsSelection): { leads: SimLead[]; matching: number } {
    const from = selection.fromMs ?? Number.NEGATIVE_INFINITY;
    const to = selection.toMs ?? Number.POSITIVE_INFINITY;
    // Generated leads in range are numbers lo..hi-1 (times never decrease with the number).
    const lo = this.#firstAtOrAfter(from);
    const hi = Math.max(lo, this.#firstAtOrAfter(to));
    const added = this.#added.filter((a) => a.ms >= from && a.ms < to);
    // Position of each added lead in the newest-first merge: generated leads strictly newer
    // come before it; on equal times the added lead comes first.
    const positions = added.map(
      (a, j) => j + Math.max(0, hi - Math.max(lo, this.#firstAtOrAfter(a.ms + 1))),
    );
    const matching = hi - lo + added.length;
    const leads: SimLead[] = [];
    const start = (selection.page - 1) * selection.pageSize;
    const end = Math.min(matching, start + selection.pageSize);
    for (let p = start; p < end; p++) {
      const d = selection.order === "newest-first" ? p : matching - 1 - p;
      const j = countBelow(positions, d);
      const lead = positions[j] === d ? added[j]?.lead : this.#generatedLead(hi - 1 - (d - j));
      if (lead !== undefined) leads.push(lead);
    }
    return { leads, matching };
  }

  #entry(input: SimLeadInput): AddedLead {
    this.#seq += 1;
    const number = this.#generated + this.#seq;
    const at = input.created_at ?? this.now();
    const ms = typeof at === "string" ? Date.parse(at) : at.getTime();
    if (Number.isNaN(ms)) throw new TypeError(`lead created_at is not a date: ${String(at)}`);
    const defaults = leadFields(number, this.botUid, typeof at === "string" ? at : isoSeconds(ms));
    const lead: SimLead = {
      ...defaults,
      ...definedOnly({
        name: input.name,
        phone: input.phone,
        email: input.email,
        remark: input.remark,
        conversation_uid: input.conversation_uid,
      }),
    };
    return { lead, ms, seq: this.#seq };
  }

  #generatedTime(k: number): number {
    const ms = this.#anchorMs - Math.round((this.#generated - k) * this.#stepMs);
    return Math.floor(ms / 1000) * 1000;
  }

  #generatedLead(k: number): SimLead {
    return leadFields(k, this.botUid, isoSeconds(this.#generatedTime(k)));
  }

  /** The smallest generated number whose time is at or after `ms` (generated + 1 when none). */
  #firstAtOrAfter(ms: number): number {
    let lo = 1;
    let hi = this.#generated + 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#generatedTime(mid) >= ms) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** The fields of lead number `k`: "Lead 17", "+1 555 0100 017", "lead17@example.com". */
export function leadFields(k: number, botUid: string, createdAt: string): SimLead {
  return {
    bot_uid: botUid,
    conversation_uid: createHash("sha1").update(`lead-${k}`).digest("hex").slice(0, 32),
    created_at: createdAt,
    email: `lead${k}@example.com`,
    name: `Lead ${k}`,
    phone: `+1 555 0100 ${String(k).padStart(3, "0")}`,
    remark: REMARKS[k % REMARKS.length] ?? "",
  };
}

/** `2026-11-22T10:00:00+00:00`: the shape the spec shows. */
export function isoSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}+00:00`;
}

function isNewer(a: AddedLead, b: AddedLead): boolean {
  return a.ms > b.ms || (a.ms === b.ms && a.seq > b.seq);
}

function countBelow(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function definedOnly<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}
