/**
 * The query of GET …/leads. Where the spec is silent the simulator decides, as a strict but
 * plausible server would:
 * - start_date and end_date are YYYY-MM-DD calendar dates, both inclusive, compared with the
 *   UTC date of created_at; a malformed or impossible date gets code != 0 with a msg;
 *   start after end is a valid, empty range.
 * - page and page_size are whole numbers from 1; anything else gets code != 0. An empty
 *   value counts as absent. page_size above the server's maximum is capped, and the capped
 *   value is what the response reports. A page past the end is empty.
 */

export interface ParsedLeadsQuery {
  fromMs: number | undefined;
  toMs: number | undefined;
  page: number;
  pageSize: number;
}

export type LeadsQueryResult = { ok: true; query: ParsedLeadsQuery } | { ok: false; msg: string };

export const DEFAULT_PAGE = 1;
export const DEFAULT_PAGE_SIZE = 10;

const DAY_MS = 86_400_000;

export function parseLeadsQuery(params: URLSearchParams, maxPageSize: number): LeadsQueryResult {
  const start = parseDate(params, "start_date");
  if (start === null) return invalidDate("start_date");
  const end = parseDate(params, "end_date");
  if (end === null) return invalidDate("end_date");
  const page = parseWhole(params, "page", DEFAULT_PAGE);
  if (page === null) return { ok: false, msg: "page must be a whole number from 1" };
  const pageSize = parseWhole(params, "page_size", DEFAULT_PAGE_SIZE);
  if (pageSize === null) return { ok: false, msg: "page_size must be a whole number from 1" };
  return {
    ok: true,
    query: {
      fromMs: start,
      toMs: end === undefined ? undefined : end + DAY_MS,
      page,
      pageSize: Math.min(pageSize, maxPageSize),
    },
  };
}

function invalidDate(name: string): LeadsQueryResult {
  return { ok: false, msg: `${name} must be a date shaped YYYY-MM-DD` };
}

/** Midnight UTC of the date in ms; undefined when absent; null when malformed. */
function parseDate(params: URLSearchParams, name: string): number | undefined | null {
  const raw = params.get(name);
  if (raw === null || raw === "") return undefined;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  if (match === null) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  // Date.UTC rolls 2026-02-30 over into March; a real calendar date survives the round trip.
  const back = new Date(ms);
  const real =
    back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day;
  return real ? ms : null;
}

function parseWhole(params: URLSearchParams, name: string, fallback: number): number | null {
  const raw = params.get(name);
  if (raw === null || raw === "") return fallback;
  if (!/^\d{1,9}$/.test(raw)) return null;
  const value = Number(raw);
  return value >= 1 ? value : null;
}
