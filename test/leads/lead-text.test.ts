import { describe, expect, it } from "vitest";
import { cleanLead, leadLine } from "../../src/leads/lead-text.ts";
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

  it("shows an empty field as a dash and the time in UTC", () => {
    expect(leadLine(lead({ name: "Ada" }))).toBe("• 2026-11-22 10:05 UTC: Ada · — · —");
  });
});
