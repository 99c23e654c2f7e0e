import { createHash } from "node:crypto";
import type { Lead } from "../ports.ts";

/**
 * The API gives leads no id: a lead is known by a hash of all its fields, so the same lead
 * fetched twice (two polls, two pages, two processes) has the same identity.
 */
export function leadId(lead: Lead): string {
  const fields = [
    lead.botUid,
    lead.conversationUid,
    lead.createdAt,
    lead.name,
    lead.phone,
    lead.email,
    lead.remark,
  ];
  return createHash("sha256").update(JSON.stringify(fields)).digest("hex").slice(0, 32);
}
