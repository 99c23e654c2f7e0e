import type { MessageKey } from "../i18n/messages.ts";
import type { Translator } from "../i18n/translator.ts";
import type { Lead, LeadAnnouncement, LeadAnnouncementField, LeadOrigin } from "../ports.ts";
import { stripInvisibleAndMarks } from "../reply/invisible-chars.ts";

// Lengths a person can read in a chat; the API publishes none.
const MAX_LENGTH = { name: 200, phone: 60, email: 254, remark: 1_000 } as const;

/** A lead's person-given fields, made safe to show: no controls, capped in length. */
export function cleanLead(lead: Lead): Lead {
  const cleaned: Lead = {
    ...lead,
    name: clean(lead.name, MAX_LENGTH.name),
    phone: clean(lead.phone, MAX_LENGTH.phone),
    email: clean(lead.email, MAX_LENGTH.email),
    remark: clean(lead.remark, MAX_LENGTH.remark),
  };
  if (lead.origin === undefined) delete cleaned.origin;
  else if (lead.origin !== "outside") cleaned.origin = cleanOrigin(lead.origin);
  return cleaned;
}

/** Where a lead was captured, its names made safe to show and its link an https one. */
function cleanOrigin(origin: LeadOrigin): LeadOrigin {
  const { platform, place, where, asker, link } = origin;
  const cleaned: LeadOrigin = { platform: clean(platform, MAX_LENGTH.name), place };
  if (where) cleaned.where = clean(where, MAX_LENGTH.name);
  if (asker) cleaned.asker = clean(asker, MAX_LENGTH.name);
  if (link && isHttpsLink(link)) cleaned.link = link;
  return cleaned;
}

function isHttpsLink(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return url.protocol === "https:" && url.username === "" && url.password === "";
}

function clean(text: string, max: number): string {
  // No hidden characters: a phone number shown backwards, a spoofed e-mail address.
  const safe = stripInvisibleAndMarks(text).replace(/\s+/g, " ").trim();
  const chars = [...safe];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : safe;
}

/**
 * A lead's `created_at` (or a claim's time) in UTC, written the way of `t`'s locale, or the text as sent when it
 * does not parse.
 */
export function leadTime(createdAt: string, t: Translator): string {
  const time = new Date(createdAt);
  return Number.isNaN(time.getTime()) ? createdAt : t.time(time);
}

/** One line for `/leads`: the time and the fields a person gave, "—" for an empty one. */
export function leadLine(lead: Lead, t: Translator): string {
  const values = {
    time: leadTime(lead.createdAt, t),
    name: lead.name || "—",
    phone: lead.phone || "—",
    email: lead.email || "—",
  };
  return lead.remark
    ? t.t("leadLineRemark", { ...values, remark: lead.remark })
    : t.t("leadLine", values);
}

// Plain addresses only: nothing a renderer could turn into markup or another scheme.
const EMAIL_ADDRESS = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/;

export function isPlainEmail(text: string): boolean {
  return EMAIL_ADDRESS.test(text);
}

/**
 * What every platform's announcement shows of a cleaned lead, in the language of `t`; with
 * `chatbot`, whose lead it is (a lead channel may get several chatbots' leads).
 */
export function leadAnnouncement(lead: Lead, t: Translator, chatbot?: string): LeadAnnouncement {
  return {
    lead,
    title: t.t("leadTitle"),
    summary: t.t("leadFallback", { name: lead.name || "—" }),
    fields: announcementFields(lead, t, chatbot),
  };
}

function announcementFields(
  lead: Lead,
  t: Translator,
  chatbot: string | undefined,
): LeadAnnouncementField[] {
  const field = (key: MessageKey, value: string, kind: LeadAnnouncementField["kind"]) => {
    return { label: t.t(key), labelled: t.t("leadLabel", { label: { key } }), value, kind };
  };
  return [
    field("leadName", lead.name || "—", "text"),
    field("leadPhone", lead.phone || "—", "text"),
    field("leadEmail", lead.email || "—", lead.email ? "email" : "text"),
    field("leadRemark", lead.remark || "—", "text"),
    field("leadTime", leadTime(lead.createdAt, t), "time"),
    // Where it was captured; where that is not known, the conversation's id as before.
    lead.origin === undefined
      ? field("leadConversation", lead.conversationUid, "id")
      : {
          ...field("leadCaptured", capturedIn(lead.origin, t), "place"),
          link: linkOf(lead.origin),
        },
    ...(chatbot === undefined ? [] : [field("leadChatbot", chatbot, "text")]),
  ];
}

/** "in a Slack thread in #support": where the lead's conversation happened, in `t`'s words. */
function capturedIn(origin: LeadOrigin | "outside", t: Translator): string {
  if (origin === "outside") return t.t("leadCapturedOutside");
  const { platform, place, where, asker } = origin;
  if (place === "business" && asker) return t.t("leadCapturedBusiness", { platform, name: asker });
  if (place === "private" || place === "business") {
    return asker
      ? t.t("leadCapturedPrivate", { platform, name: asker })
      : t.t("leadCapturedPrivateUnnamed", { platform });
  }
  if (place === "thread") {
    return where
      ? t.t("leadCapturedThread", { platform, where })
      : t.t("leadCapturedThreadUnnamed", { platform });
  }
  return where
    ? t.t("leadCapturedGroup", { platform, where })
    : t.t("leadCapturedGroupUnnamed", { platform });
}

function linkOf(origin: LeadOrigin | "outside"): string | undefined {
  return origin === "outside" ? undefined : origin.link;
}
