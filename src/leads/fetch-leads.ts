import type { BackendClient } from "../backend/types.ts";
import type { Lead } from "../ports.ts";
import { leadId } from "./lead-id.ts";

export interface FetchLeadsOptions {
  backend: BackendClient;
  /** First and last day of the window, inclusive (UTC dates). */
  from: Date;
  to: Date;
  /** Asked for; the server may answer with a smaller page size, which is then used. */
  pageSize: number;
  /** A bound on one fetch, whatever the server says. */
  maxPages: number;
  signal?: AbortSignal | undefined;
  /**
   * The bot_uid asked about: each lead is taken as that chatbot's whatever its listing says,
   * so that two chatbots' leads never share an identity (leadId), nor the store keys on it.
   */
  botUid?: string | undefined;
}

export interface FetchedLeads {
  /** Each lead once, by identity, in the order the server listed them. */
  leads: Lead[];
  requests: number;
  /** The page size the server really used, when smaller than the one asked for. */
  cappedPageSize: number | undefined;
  /** The last page was not reached within maxPages. */
  incomplete: boolean;
}

/**
 * Fetches every lead created within a window of days. The API has no cursor: pages are
 * read until a short one. A lead that arrives between two page requests shifts the pages
 * by one, so one lead may be listed twice (kept once here) but none is skipped.
 */
export async function fetchLeads(options: FetchLeadsOptions): Promise<FetchedLeads> {
  const byId = new Map<string, Lead>();
  const startDate = dayOf(options.from);
  const endDate = dayOf(options.to);
  let cappedPageSize: number | undefined;
  for (let page = 1; page <= options.maxPages; page++) {
    const result = await options.backend.leads({
      startDate,
      endDate,
      page,
      pageSize: options.pageSize,
      signal: options.signal,
    });
    for (const listed of result.leads) {
      const lead = options.botUid === undefined ? listed : { ...listed, botUid: options.botUid };
      byId.set(leadId(lead), lead);
    }
    const pageSize = Math.min(options.pageSize, result.pageSize || options.pageSize);
    if (pageSize < options.pageSize) cappedPageSize = pageSize;
    if (result.leads.length < pageSize) {
      return { leads: [...byId.values()], requests: page, cappedPageSize, incomplete: false };
    }
  }
  return {
    leads: [...byId.values()],
    requests: options.maxPages,
    cappedPageSize,
    incomplete: true,
  };
}

/** YYYY-MM-DD of a time, in UTC. */
export function dayOf(time: Date): string {
  return time.toISOString().slice(0, 10);
}

const DAY_MS = 24 * 60 * 60 * 1000;

export function daysBefore(time: Date, days: number): Date {
  return new Date(time.getTime() - days * DAY_MS);
}
