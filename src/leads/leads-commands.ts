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

/** `/leads [days]`, `/leads subscribe`, `/leads unsubscribe`: lead data only in lead channels. */
export function createLeadsCommands(options: LeadsCommandsOptions): LeadsCommands {
  const now = options.now ?? (() => new Date());
  const maxLines = options.maxLines ?? 25;
  const channelOf = (message: IncomingMessage): LeadChannel => ({
    platform: message.channel,
    id: message.channelId,
  });

  return {
    async list(message, days) {
      if (!(await options.channels.includes(channelOf(message)))) {
        return "Leads are shown only in lead channels. An admin can make this one a lead channel with /leads subscribe.";
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
      const span = days === 1 ? "the last day" : `the last ${days} days`;
      // Past maxPages the rest is unread (the API has no count for a date range: its `total`
      // counts every lead of the bot), so the count is a floor, said as one.
      if (leads.length === 0) {
        return fetched.incomplete
          ? `Too many leads to count: the bot reads at most ${number(fetched.leads.length)} at a time, and those it read are all older than ${span}.`
          : `No leads in ${span}.`;
      }
      const listed = leads.slice(0, maxLines);
      const claims = (await options.claims?.claimsOf(listed)) ?? [];
      const shown = listed.map((lead, index) => {
        const claim = claims[index];
        const line = leadLine(cleanLead(lead));
        return claim ? `${line} — ${claimLine(claim)}` : line;
      });
      const rest = leads.length - maxLines;
      const more =
        rest <= 0
          ? []
          : [
              fetched.incomplete
                ? `…and at least ${number(rest)} more.`
                : `…and ${number(rest)} older ones.`,
            ];
      const count = leads.length === 1 ? "1 lead" : `${number(leads.length)} leads`;
      const title = fetched.incomplete
        ? `At least ${count} in ${span} (more than the bot reads at once), newest first:`
        : `${count} in ${span}, newest first:`;
      return [title, ...shown, ...more].join("\n");
    },

    async subscribe(message, on) {
      const channel = channelOf(message);
      const change = on
        ? await options.channels.subscribe(channel)
        : await options.channels.unsubscribe(channel);
      if (change === "configured") {
        return "This channel gets leads through the bot's configuration (LEADS_SLACK_CHANNELS / LEADS_TELEGRAM_CHATS); change it there.";
      }
      if (on) {
        return change === "changed"
          ? "This channel now gets every new lead."
          : "This channel already gets every new lead.";
      }
      return change === "changed"
        ? "This channel no longer gets lead announcements."
        : "This channel was not getting lead announcements.";
    },
  };
}

/** 2000 as "2,000": counts a person reads at a glance. */
function number(count: number): string {
  return count.toLocaleString("en-US");
}
