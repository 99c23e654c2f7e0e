import type { BackendClient } from "../backend/types.ts";
import type { LeadsCommands } from "../bridge/command-handler.ts";
import type { IncomingMessage } from "../ports.ts";
import { daysBefore, fetchLeads } from "./fetch-leads.ts";
import type { LeadChannel, LeadChannels } from "./lead-channels.ts";
import { claimLine, type LeadClaimBook } from "./lead-claims.ts";
import { cleanLead, leadLine } from "./lead-text.ts";

export interface LeadsCommandsOptions {
  backend: BackendClient;
  channels: LeadChannels;
  /** With it, each listed lead says who took it. */
  claims?: Pick<LeadClaimBook, "claimsOf"> | undefined;
  now?: () => Date;
  /** Lines in one `/leads` reply; the rest is counted, not shown. */
  maxLines?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * `/leads [days]`, `/leads subscribe`, `/leads unsubscribe`: lead data only in lead channels
 * (and to a bot admin in their direct chat).
 */
export function createLeadsCommands(options: LeadsCommandsOptions): LeadsCommands {
  const now = options.now ?? (() => new Date());
  const maxLines = options.maxLines ?? 25;
  const channelOf = (message: IncomingMessage): LeadChannel => ({
    platform: message.channel,
    id: message.channelId,
  });

  return {
    async list(message, days, t) {
      // Where the sales team already sees every lead (its lead channels), to anyone there; and
      // to a bot admin in their own direct chat with the bot, where no one else reads it.
      const here =
        message.adminOfAll === true || (await options.channels.includes(channelOf(message)));
      if (!here) {
        return t.t("leadsOnlyInLeadChannels", { command: "/leads subscribe" });
      }
      const until = now();
      const since = new Date(until.getTime() - days * DAY_MS);
      const fetched = await fetchLeads({
        backend: options.backend,
        // The server's time zone is unknown: ask a day wider, then keep the exact span.
        from: daysBefore(since, 1),
        to: new Date(until.getTime() + DAY_MS),
        pageSize: 100,
        maxPages: 20,
      });
      const leads = fetched.leads
        .filter((lead) => Date.parse(lead.createdAt) >= since.getTime())
        .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
      // Past maxPages the rest is unread (the API has no count for a date range: its `total`
      // counts every lead of the bot), so the count is a floor, said as one.
      if (leads.length === 0) {
        return fetched.incomplete
          ? t.t("leadsTooManyToCount", { read: fetched.leads.length, days })
          : t.t("leadsNone", { days });
      }
      const listed = leads.slice(0, maxLines);
      const claims = (await options.claims?.claimsOf(listed)) ?? [];
      const shown = listed.map((lead, index) => {
        const claim = claims[index];
        const line = leadLine(cleanLead(lead), t);
        return claim ? `${line} — ${claimLine(claim, t)}` : line;
      });
      const rest = leads.length - maxLines;
      const more =
        rest <= 0
          ? []
          : [t.t(fetched.incomplete ? "leadsMoreAtLeast" : "leadsMoreOlder", { count: rest })];
      const title = t.t(fetched.incomplete ? "leadsTitleAtLeast" : "leadsTitle", {
        count: leads.length,
        days,
      });
      return [title, ...shown, ...more].join("\n");
    },

    async subscribe(message, on) {
      const channel = channelOf(message);
      const change = on
        ? await options.channels.subscribe(channel)
        : await options.channels.unsubscribe(channel);
      if (change === "configured") {
        return {
          key: "leadsConfigured",
          values: { variables: "LEADS_SLACK_CHANNELS / LEADS_TELEGRAM_CHATS" },
        };
      }
      if (on) {
        return { key: change === "changed" ? "leadsSubscribed" : "leadsAlreadySubscribed" };
      }
      return { key: change === "changed" ? "leadsUnsubscribed" : "leadsNotSubscribed" };
    },
  };
}
