import { afterEach, describe, expect, it } from "vitest";
import { fetchLeads } from "../../src/leads/fetch-leads.ts";
import { LeadChannels } from "../../src/leads/lead-channels.ts";
import { LeadClaimBook } from "../../src/leads/lead-claims.ts";
import { leadId } from "../../src/leads/lead-id.ts";
import { createLeadsCommands } from "../../src/leads/leads-commands.ts";
import type { SimulatorOptions } from "../../src/simulator/index.ts";
import { type Harness, incoming, startHarness } from "../support/bridge-harness.ts";
import { MemorySurface } from "../support/memory-surface.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const DAY = 24 * 60 * 60 * 1000;
const member = { isAdmin: async () => false, isBotAdmin: async () => false };
/** A channel's own admin (a Telegram group's creator, say) whom the deployment does not list. */
const chatAdmin = { isAdmin: async () => true, isBotAdmin: async () => false };
const salesChannel = { channelId: "sales", channelKey: "test:sales", threadKey: "test:sales:t" };

/** The pipeline with the leads feature on: "sales" is a configured lead channel. */
async function start(simulator: SimulatorOptions = { leads: 0 }): Promise<Harness> {
  harness = await startHarness({
    simulator,
    bridge: {
      leads: (backend, store) =>
        createLeadsCommands({
          backend,
          channels: new LeadChannels(store, [{ platform: "test", id: "sales" }]),
          claims: new LeadClaimBook(store),
        }),
    },
  });
  return harness;
}

describe("/leads", () => {
  it("lists the leads of the last days in a lead channel, newest first", async () => {
    const h = await start();
    const now = Date.now();
    h.simulator.addLead({ name: "Old", created_at: new Date(now - 5 * DAY) });
    h.simulator.addLead({
      name: "Two days",
      phone: "+1 555 0102",
      email: "two@example.com",
      remark: "price?",
      created_at: new Date(now - 2 * DAY),
    });
    h.simulator.addLead({
      name: "Today",
      phone: "+1 555 0103",
      email: "t@example.com",
      remark: "call me",
      created_at: new Date(now - 60_000),
    });
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("/leads 3", salesChannel), surface);
    const [reply] = surface.notices;
    expect(reply?.text.split("\n")).toEqual([
      "2 leads in the last 3 days, newest first:",
      expect.stringMatching(
        /^• [A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d UTC: Today · \+1 555 0103 · t@example\.com — “call me”$/,
      ),
      expect.stringMatching(/^• .* UTC: Two days · \+1 555 0102 · two@example\.com — “price\?”$/),
    ]);
  });

  it("says who took each lead that someone claimed", async () => {
    const h = await start();
    h.simulator.addLead({ name: "Taken", created_at: new Date(Date.now() - 120_000) });
    h.simulator.addLead({ name: "Free", created_at: new Date(Date.now() - 60_000) });
    const { leads } = await fetchLeads({
      backend: h.backend,
      from: new Date(Date.now() - DAY),
      to: new Date(Date.now() + DAY),
      pageSize: 10,
      maxPages: 1,
    });
    const taken = leads.find((lead) => lead.name === "Taken");
    if (!taken) throw new Error("lead not listed");
    const at = "2026-01-02T03:04:05.000Z";
    const claim = { platform: "slack", personId: "U1", name: "@ann", at };
    expect(await new LeadClaimBook(h.store).claim(leadId(taken), claim)).toBe(true);
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("/leads", salesChannel), surface);
    expect(surface.notices[0]?.text.split("\n").slice(1)).toEqual([
      expect.stringMatching(/: Free · .*”$/),
      expect.stringMatching(/: Taken · .*” — claimed by @ann \(Jan 2, 2026, 03:04 UTC\)$/),
    ]);
  });

  it("refuses to show leads outside lead channels and says how to subscribe", async () => {
    const h = await start();
    h.simulator.addLead({ name: "Secret Person" });
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("/leads"), surface);
    expect(surface.notices[0]?.text).toBe(
      "Leads are shown only in lead channels. One of the bot's admins can make this one a lead channel with /leads subscribe.",
    );
  });

  it("lists them to a bot admin in their direct chat with the bot, and to nobody else outside lead channels", async () => {
    const h = await start();
    h.simulator.addLead({ name: "Listed Person" });
    const surface = new MemorySurface();
    const dm = { channelId: "dm-1", channelKey: "test:dm-1", threadKey: "test:dm-1" };
    await h.bridge.handle(incoming("/leads", { ...dm, adminOfAll: true }), surface);
    await h.bridge.handle(incoming("/leads", { ...dm, ...chatAdmin }), surface);
    await h.bridge.handle(incoming("/leads", { ...dm, ...member }), surface);
    expect(surface.notices.map((n) => n.text.split("\n")[0])).toEqual([
      "1 lead in the last 7 days, newest first:",
      "Leads are shown only in lead channels. One of the bot's admins can make this one a lead channel with /leads subscribe.",
      "Leads are shown only in lead channels. One of the bot's admins can make this one a lead channel with /leads subscribe.",
    ]);
  });

  it.each(["yesterday", "0x10", "1e1", "5.0", "+5", "0", "91", " 7 8"])(
    "says what it expects for %j instead of a plain number of days from 1 to 90",
    async (days) => {
      const h = await start();
      const surface = new MemorySurface();
      await h.bridge.handle(incoming(`/leads ${days}`, salesChannel), surface);
      expect(surface.notices[0]?.text).toBe(
        "expected `/leads`, `/leads <days>` (1 to 90), `/leads subscribe` or `/leads unsubscribe`",
      );
      expect(h.simulator.requests.filter((r) => r.route === "leads")).toEqual([]);
    },
  );

  it("says 'at least' when there are more leads than one reply reads", async () => {
    // 3,000 leads a day, listed newest first: the last day holds more than the bot reads.
    const h = await start({ leads: 9_000, leadsSpanDays: 3 });
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("/leads 1", salesChannel), surface);
    const lines = surface.notices
      .map((n) => n.text)
      .join("\n")
      .split("\n");
    expect(lines[0]).toBe(
      "At least 2,000 leads in the last day (more than the bot reads at once), newest first:",
    );
    expect(lines.at(-1)).toBe("…and at least 1,975 more.");
  });

  it("never says 'no leads' when the leads it could read were all older", async () => {
    // Listed oldest first, the first 2,000 of the widened window all come before the last day.
    const h = await start({ leads: 9_000, leadsSpanDays: 3, leadsOrder: "oldest-first" });
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("/leads 1", salesChannel), surface);
    expect(surface.notices.map((n) => n.text)).toEqual([
      "Too many leads to count: the bot reads at most 2,000 at a time, and those it read are all older than the last day.",
    ]);
  });

  it("subscribes and unsubscribes a channel, for the bot's admins only", async () => {
    const h = await start();
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("/leads subscribe", member), surface);
    await h.bridge.handle(incoming("/leads subscribe", chatAdmin), surface);
    await h.bridge.handle(incoming("/leads subscribe"), surface);
    await h.bridge.handle(incoming("/leads subscribe"), surface);
    h.simulator.addLead({ name: "Visible now" });
    await h.bridge.handle(incoming("/leads"), surface);
    await h.bridge.handle(incoming("/leads unsubscribe"), surface);
    await h.bridge.handle(incoming("/leads unsubscribe", salesChannel), surface);
    expect(surface.notices.map((n) => n.text.split("\n")[0])).toEqual([
      "Only the bot's admins can turn lead announcements on or off.",
      "Only the bot's admins can turn lead announcements on or off.",
      "This channel now gets every new lead.",
      "This channel already gets every new lead.",
      "1 lead in the last 7 days, newest first:",
      "This channel no longer gets lead announcements.",
      "This channel gets leads through the bot's configuration (LEADS_SLACK_CHANNELS / LEADS_TELEGRAM_CHATS); change it there.",
    ]);
  });
});
