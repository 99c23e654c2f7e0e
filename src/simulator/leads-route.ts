import type { Random } from "./chunks.ts";
import type { Faults } from "./faults.ts";
import { envelopeBody, type Reply, sendEnvelope } from "./http.ts";
import type { LeadBook } from "./leads.ts";
import { parseLeadsQuery } from "./leads-query.ts";
import { SIMULATOR_CODES, type Timing } from "./options.ts";
import { applyLeadingFaults, writeWhole } from "./responses.ts";

export interface LeadsDeps {
  leads: LeadBook;
  maxPageSize: number;
  total: "all" | "matching";
  order: "newest-first" | "oldest-first";
  timing: Timing;
  random: Random;
  /** The server-wide and queued one-shot faults for leads requests. */
  baseFaults(): Faults;
}

/** GET …/leads: one page of the bot's leads, filtered by the date range. */
export async function handleLeads(
  deps: LeadsDeps,
  reply: Reply,
  params: URLSearchParams,
): Promise<void> {
  const ctx = { reply, faults: deps.baseFaults(), timing: deps.timing, random: deps.random };
  if (await applyLeadingFaults(ctx)) return;
  const parsed = parseLeadsQuery(params, deps.maxPageSize);
  if (!parsed.ok) {
    sendEnvelope(reply, SIMULATOR_CODES.invalidParameter, {}, parsed.msg);
    return;
  }
  const { fromMs, toMs, page, pageSize } = parsed.query;
  const { leads, matching } = deps.leads.select({
    fromMs,
    toMs,
    page,
    pageSize,
    order: deps.order,
  });
  const data = {
    leads,
    page,
    page_size: pageSize,
    total: deps.total === "all" ? deps.leads.size : matching,
  };
  const body = JSON.stringify(envelopeBody(reply, SIMULATOR_CODES.ok, data, "success"));
  await writeWhole(ctx, body, false);
}
