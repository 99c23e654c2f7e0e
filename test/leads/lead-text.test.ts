import { describe, expect, it } from "vitest";
import { translator } from "../../src/i18n/translator.ts";
import { cleanLead, leadAnnouncement, leadLine } from "../../src/leads/lead-text.ts";
import type { Lead } from "../../src/ports.ts";

const lead = (fields: Partial<Lead>): Lead => ({
  botUid: "bot",
  conversationUid: "c1",
  createdAt: "2026-11-22T10:05:00+00:00",
  name: "",
  phone: "",
  email: "",
  remark: "",
  ...fields,
});

describe("lead text", () => {
  it("drops control and bidi characters and caps the length", () => {
    const cleaned = cleanLead(
      lead({ name: "Eve\u202e\u0007 Evil\u0000", phone: "+1\u200f555", remark: "x".repeat(5_000) }),
    );
    expect(cleaned.name).toBe("Eve Evil");
    expect(cleaned.phone).toBe("+1555");
    expect([...cleaned.remark]).toHaveLength(1_000);
    expect(cleaned.remark.endsWith("…")).toBe(true);
  });

  it("says where a lead was captured: its names cleaned, an https link kept and no other", () => {
    const captured = (origin: Lead["origin"]) =>
      leadAnnouncement(cleanLead(lead({ origin })), translator("en")).fields.at(-1);
    const team = { platform: "Telegram", place: "group", where: "Team\u202e A" } as const;
    expect(captured({ ...team, link: "javascript:alert(1)" })).toMatchObject({
      label: "Captured",
      value: "in the Telegram group Team A",
      link: undefined,
    });
    expect(captured({ ...team, link: "https://t.me/c/1234/5" })?.link).toBe(
      "https://t.me/c/1234/5",
    );
    expect(captured({ platform: "Slack", place: "private", asker: "Ann" })?.value).toBe(
      "in a private Slack chat with Ann",
    );
    expect(captured({ platform: "Slack", place: "thread" })?.value).toBe("in a Slack thread");
    expect(captured("outside")?.value).toBe("outside the chats this bot serves");
    // Not known (the store was away, a card of an earlier version): its conversation's id.
    expect(captured(undefined)).toMatchObject({ label: "Conversation", value: "c1" });
  });

  it("shows an empty field as a dash and the time in UTC", () => {
    expect(leadLine(lead({ name: "Ada" }), translator("en"))).toBe(
      "• Nov 22, 2026, 10:05 UTC: Ada · — · —",
    );
  });

  it("speaks the lead channel's language: its labels, its way of writing a date", () => {
    const french = leadAnnouncement(lead({ name: "Ada", remark: "rappel" }), translator("fr"));
    expect(french.title).toBe("Nouveau prospect");
    expect(french.summary).toBe("Nouveau prospect : Ada");
    expect(french.fields.map((f) => [f.label, f.value])).toEqual([
      ["Nom", "Ada"],
      ["Téléphone", "—"],
      ["E-mail", "—"],
      ["Remarque", "rappel"],
      ["Date", "22 nov. 2026, 10:05 UTC"],
      ["Conversation", "c1"],
    ]);
    expect(leadLine(lead({ name: "Ada", remark: "rappel" }), translator("de"))).toBe(
      "• 22. Nov. 2026, 10:05 UTC: Ada · — · — — „rappel“",
    );
  });
});
