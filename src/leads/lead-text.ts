import type { Lead } from "../ports.ts";
import { stripInvisibleAndMarks } from "../reply/invisible-chars.ts";

// Lengths a person can read in a chat; the API publishes none.
const MAX_LENGTH = { name: 200, phone: 60, email: 254, remark: 1_000 } as const;

/** A lead's person-given fields, made safe to show: no controls, capped in length. */
export function cleanLead(lead: Lead): Lead {
  return {
    ...lead,
    name: clean(lead.name, MAX_LENGTH.name),
    phone: clean(lead.phone, MAX_LENGTH.phone),
    email: clean(lead.email, MAX_LENGTH.email),
    remark: clean(lead.remark, MAX_LENGTH.remark),
  };
}

function clean(text: string, max: number): string {
  // No hidden characters: a phone number shown backwards, a spoofed e-mail address.
  const safe = stripInvisibleAndMarks(text).replace(/\s+/g, " ").trim();
  const chars = [...safe];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : safe;
}

/** A readable UTC time for a lead's `created_at`, or the text as sent when it does not parse. */
export function leadTime(createdAt: string): string {
  const time = new Date(createdAt);
  if (Number.isNaN(time.getTime())) return createdAt;
  return `${time.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** One line for `/leads`: the time and the fields a person gave, "—" for an empty one. */
export function leadLine(lead: Lead): string {
  const fields = [lead.name, lead.phone, lead.email].map((f) => f || "—");
  const remark = lead.remark ? ` — “${lead.remark}”` : "";
  return `• ${leadTime(lead.createdAt)}: ${fields.join(" · ")}${remark}`;
}

/** One line of an announcement; `email` values may become a mailto link where safe. */
export interface LeadField {
  label: string;
  value: string;
  kind: "text" | "email" | "time" | "id";
}

// Plain addresses only: nothing a renderer could turn into markup or another scheme.
const EMAIL_ADDRESS = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/;

export function isPlainEmail(text: string): boolean {
  return EMAIL_ADDRESS.test(text);
}

export const ANNOUNCEMENT_TITLE = "New lead";

/** What every platform's announcement shows, in order, for a cleaned lead. */
export function announcementFields(lead: Lead): LeadField[] {
  return [
    { label: "Name", value: lead.name || "—", kind: "text" },
    { label: "Phone", value: lead.phone || "—", kind: "text" },
    { label: "E-mail", value: lead.email || "—", kind: lead.email ? "email" : "text" },
    { label: "Remark", value: lead.remark || "—", kind: "text" },
    { label: "Time", value: leadTime(lead.createdAt), kind: "time" },
    { label: "Conversation", value: lead.conversationUid, kind: "id" },
  ];
}
