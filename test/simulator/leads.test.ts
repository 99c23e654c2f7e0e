import { describe, expect, it } from "vitest";
import { LeadBook, type LeadsSelection, type SimLead } from "../../src/simulator/leads.ts";
import { getJson, leadsPath, NOW, simulator } from "./helpers.ts";

const names = (leads: SimLead[]) => leads.map((lead) => lead.name);

describe("simulator: leads", () => {
  it("serves page 1 of 10, newest first, with total = all leads, by default", async () => {
    const sim = await simulator({ leads: 25 });
    const { status, body } = await getJson(sim, leadsPath());
    expect(status).toBe(200);
    expect(body.code).toBe(0);
    expect(body.msg).toBe("success");
    expect(body.data.page).toBe(1);
    expect(body.data.page_size).toBe(10);
    expect(body.data.total).toBe(25);
    expect(names(body.data.leads)).toEqual(
      [25, 24, 23, 22, 21, 20, 19, 18, 17, 16].map((k) => `Lead ${k}`),
    );
    // 25 leads over 14 days: 13 h 26 min 24 s apart, the newest at the clock's now.
    expect(body.data.leads[0]).toEqual({
      bot_uid: "sim-bot",
      conversation_uid: expect.stringMatching(/^[0-9a-f]{32}$/),
      created_at: "2026-11-22T10:00:00+00:00",
      email: "lead25@example.com",
      name: "Lead 25",
      phone: "+1 555 0100 025",
      remark: "Would like a demo next week",
    });
    expect(body.data.leads[1].created_at).toBe("2026-11-21T20:33:36+00:00");
  });

  it("pages, caps page_size at the maximum and reports the cap", async () => {
    const sim = await simulator({ leads: 25, maxPageSize: 20 });
    const third = await getJson(sim, `${leadsPath()}?page=3&page_size=10`);
    expect(third.body.data).toMatchObject({ page: 3, page_size: 10, total: 25 });
    expect(names(third.body.data.leads)).toEqual([
      "Lead 5",
      "Lead 4",
      "Lead 3",
      "Lead 2",
      "Lead 1",
    ]);
    const past = await getJson(sim, `${leadsPath()}?page=4`);
    expect(past.body.data).toEqual({ leads: [], page: 4, page_size: 10, total: 25 });
    const capped = await getJson(sim, `${leadsPath()}?page_size=500`);
    expect(capped.body.data.page_size).toBe(20);
    expect(capped.body.data.leads).toHaveLength(20);
  });

  it.each([
    ["page=0", "page must be a whole number from 1"],
    ["page=abc", "page must be a whole number from 1"],
    ["page_size=-5", "page_size must be a whole number from 1"],
    ["page_size=2.5", "page_size must be a whole number from 1"],
    ["start_date=2026-13-01", "start_date must be a date shaped YYYY-MM-DD"],
    ["start_date=2026-02-30", "start_date must be a date shaped YYYY-MM-DD"],
    ["end_date=22/11/2026", "end_date must be a date shaped YYYY-MM-DD"],
    ["end_date=2026-11-22T00:00:00", "end_date must be a date shaped YYYY-MM-DD"],
  ])("answers %s with HTTP 200 and code 1001", async (query, msg) => {
    const sim = await simulator();
    const { status, body } = await getJson(sim, `${leadsPath()}?${query}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ code: 1001, data: {}, msg });
  });

  it("filters by the UTC date of created_at, both bounds inclusive, total still all", async () => {
    const sim = await simulator({
      leads: [
        { name: "A", created_at: "2026-10-31T23:59:59+00:00" },
        { name: "B", created_at: "2026-11-01T00:00:00+00:00" },
        { name: "C", created_at: "2026-11-01T23:59:59+00:00" },
        { name: "D", created_at: "2026-11-02T12:00:00+00:00" },
        { name: "E", created_at: "2026-11-03T00:00:00+00:00" },
      ],
    });
    const day = await getJson(sim, `${leadsPath()}?start_date=2026-11-01&end_date=2026-11-01`);
    expect(names(day.body.data.leads)).toEqual(["C", "B"]);
    expect(day.body.data.total).toBe(5);
    const range = await getJson(sim, `${leadsPath()}?start_date=2026-11-01&end_date=2026-11-02`);
    expect(names(range.body.data.leads)).toEqual(["D", "C", "B"]);
    const from = await getJson(sim, `${leadsPath()}?start_date=2026-11-02`);
    expect(names(from.body.data.leads)).toEqual(["E", "D"]);
    const until = await getJson(sim, `${leadsPath()}?end_date=2026-10-31`);
    expect(names(until.body.data.leads)).toEqual(["A"]);
    const reversed = await getJson(sim, `${leadsPath()}?start_date=2026-11-03&end_date=2026-11-01`);
    expect(reversed.body).toMatchObject({ code: 0, data: { leads: [], total: 5 } });
  });

  it("counts only the date range in total with leadsTotal matching, and can list oldest first", async () => {
    const sim = await simulator({ leads: 25, leadsTotal: "matching", leadsOrder: "oldest-first" });
    const { body } = await getJson(sim, `${leadsPath()}?start_date=2026-11-21&page_size=3`);
    // Leads 23, 24 and 25 fall on Nov 21 (07:07:12, 20:33:36) and Nov 22.
    expect(body.data.total).toBe(3);
    expect(names(body.data.leads)).toEqual(["Lead 23", "Lead 24", "Lead 25"]);
  });

  it("adds leads at run time as the newest", async () => {
    const sim = await simulator({ leads: 3 });
    const added = sim.addLead({ name: "Ada", remark: "Call me" });
    expect(added).toEqual({
      bot_uid: "sim-bot",
      conversation_uid: expect.stringMatching(/^[0-9a-f]{32}$/),
      created_at: "2026-11-22T10:00:00+00:00",
      email: "lead4@example.com",
      name: "Ada",
      phone: "+1 555 0100 004",
      remark: "Call me",
    });
    sim.addLeads(2);
    expect(sim.leadCount()).toBe(6);
    const { body } = await getJson(sim, leadsPath());
    expect(names(body.data.leads)).toEqual([
      "Lead 6",
      "Lead 5",
      "Ada",
      "Lead 3",
      "Lead 2",
      "Lead 1",
    ]);
    expect(body.data.total).toBe(6);
    sim.setLeads(0);
    expect((await getJson(sim, leadsPath())).body.data).toEqual({
      leads: [],
      page: 1,
      page_size: 10,
      total: 0,
    });
  });

  it("trickles in a new lead every leadEveryMs", async () => {
    const sim = await simulator({ leads: 0, leadEveryMs: 10 });
    await expect.poll(() => sim.leadCount()).toBeGreaterThanOrEqual(3);
    const { body } = await getJson(sim, leadsPath());
    expect(body.data.leads[0].name).toBe(`Lead ${body.data.total}`);
  });

  it("serves a million generated leads without storing them", async () => {
    const sim = await simulator({ leads: 1_000_000 });
    const first = await getJson(sim, `${leadsPath()}?page_size=2`);
    expect(first.body.data.total).toBe(1_000_000);
    expect(names(first.body.data.leads)).toEqual(["Lead 1000000", "Lead 999999"]);
    const last = await getJson(sim, `${leadsPath()}?page=10000&page_size=100`);
    expect(last.body.data.leads.at(-1).name).toBe("Lead 1");
    expect(last.body.data.leads.at(-1).phone).toBe("+1 555 0100 001");
    const day = await getJson(
      sim,
      `${leadsPath()}?start_date=2026-11-22&end_date=2026-11-22&page_size=1`,
    );
    expect(day.body.data.leads[0].created_at).toBe("2026-11-22T10:00:00+00:00");
    const before = await getJson(sim, `${leadsPath()}?end_date=2026-11-21&page_size=1`);
    expect(before.body.data.leads[0].created_at).toBe("2026-11-21T23:59:59+00:00");
  });
});

describe("LeadBook: merged pages of generated and added leads", () => {
  // A brute-force reference: every lead materialised, sorted, filtered, sliced.
  function reference(book: LeadBook, selection: LeadsSelection): string[] {
    const all = book.select({ page: 1, pageSize: book.size + 1, order: "newest-first" }).leads;
    const inRange = all.filter((lead) => {
      const ms = Date.parse(lead.created_at);
      return ms >= (selection.fromMs ?? -Infinity) && ms < (selection.toMs ?? Infinity);
    });
    const ordered = selection.order === "newest-first" ? inRange : [...inRange].reverse();
    const start = (selection.page - 1) * selection.pageSize;
    return names(ordered.slice(start, start + selection.pageSize));
  }

  it("agrees with the reference on every page and range", () => {
    const day = 86_400_000;
    const book = new LeadBook("b", () => NOW, 10);
    book.replace(40);
    for (const offset of [0, 0, 1.5, 3, 3, 9.99, 12]) {
      book.add({ name: `added-${offset}`, created_at: new Date(NOW.getTime() - offset * day) });
    }
    const all = book.select({ page: 1, pageSize: 100, order: "newest-first" }).leads;
    const times = all.map((lead) => Date.parse(lead.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(all).toHaveLength(47);

    for (const [fromDays, toDays] of [
      [undefined, undefined],
      [4, 1],
      [20, 2.5],
      [0.5, -1],
    ] as const) {
      const fromMs = fromDays === undefined ? undefined : NOW.getTime() - fromDays * day;
      const toMs = toDays === undefined ? undefined : NOW.getTime() - toDays * day;
      for (const order of ["newest-first", "oldest-first"] as const) {
        for (const pageSize of [1, 3, 7]) {
          for (let page = 1; page <= Math.ceil(48 / pageSize); page++) {
            const selection = { fromMs, toMs, page, pageSize, order };
            expect(names(book.select(selection).leads)).toEqual(reference(book, selection));
          }
        }
      }
    }
  });
});
