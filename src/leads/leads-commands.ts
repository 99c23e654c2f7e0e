import { type Chatbot, Chatbots } from "../backend/chatbots.ts";
import type { BackendClient } from "../backend/types.ts";
import type { LeadsCommands } from "../bridge/command-handler.ts";
import type { MessageKey, UserText } from "../i18n/messages.ts";
import type { Translator } from "../i18n/translator.ts";
import type { IncomingMessage } from "../ports.ts";
import { daysBefore, fetchLeads } from "./fetch-leads.ts";
import type { LeadChannel, LeadChannels } from "./lead-channels.ts";
import { claimLine, type LeadClaimBook } from "./lead-claims.ts";
import { cleanLead, leadLine } from "./lead-text.ts";

export interface LeadsCommandsOptions {
  /** Whose leads: the deployment's chatbots, or one chatbot's client. */
  backend: Chatbots | BackendClient;
  channels: LeadChannels;
  /** With it, each listed lead says who took it. */
  claims?: Pick<LeadClaimBook, "claimsOf"> | undefined;
  now?: () => Date;
  /** Lines in one `/leads` reply; the rest is counted, not shown. */
  maxLines?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** What `/leads subscribe` and `unsubscribe` say, by what changed: of any chatbot, or of one. */
const SUBSCRIPTION_REPLY = {
  on: {
    changed: { any: "leadsSubscribed", one: "leadsSubscribedTo" },
    unchanged: { any: "leadsAlreadySubscribed", one: "leadsAlreadySubscribedTo" },
  },
  off: {
    changed: { any: "leadsUnsubscribed", one: "leadsUnsubscribedFrom" },
    unchanged: { any: "leadsNotSubscribed", one: "leadsNotSubscribedTo" },
  },
} as const satisfies Record<string, Record<"changed" | "unchanged", Record<string, MessageKey>>>;

/**
 * `/leads [days]`, `/leads subscribe [name]`, `/leads unsubscribe [name]`: lead data only in
 * lead channels (and to a bot admin in their direct chat), of the chatbots each follows.
 */
export function createLeadsCommands(options: LeadsCommandsOptions): LeadsCommands {
  const now = options.now ?? (() => new Date());
  const maxLines = options.maxLines ?? 25;
  const chatbots =
    options.backend instanceof Chatbots ? options.backend : Chatbots.single(options.backend);
  const channelOf = (message: IncomingMessage): LeadChannel => ({
    platform: message.channel,
    id: message.channelId,
  });

  /** One chatbot's leads of the last `days`, as `/leads` lists them. */
  const listOf = async (chatbot: Chatbot, days: number, t: Translator): Promise<string> => {
    const until = now();
    const since = new Date(until.getTime() - days * DAY_MS);
    const fetched = await fetchLeads({
      backend: chatbot.client,
      // The server's time zone is unknown: ask a day wider, then keep the exact span.
      from: daysBefore(since, 1),
      to: new Date(until.getTime() + DAY_MS),
      pageSize: 100,
      maxPages: 20,
      botUid: chatbot.botUid,
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
  };

  return {
    async list(message, days, t) {
      // Where the sales team already sees every lead (its lead channels), to anyone there; and
      // to a bot admin in their own direct chat with the bot, where no one else reads it.
      const names =
        message.adminOfAll === true
          ? chatbots.names
          : await options.channels.following(channelOf(message));
      const followed = names.flatMap((name) => chatbots.named(name) ?? []);
      if (followed.length === 0) {
        return t.t("leadsOnlyInLeadChannels", { command: "/leads subscribe" });
      }
      const sections: string[] = [];
      for (const chatbot of followed) {
        const listed = await listOf(chatbot, days, t);
        // Whose leads, where a channel may follow several chatbots.
        sections.push(
          chatbots.several
            ? [t.t("leadsOf", { chatbot: chatbot.name }), listed].join("\n")
            : listed,
        );
      }
      return sections.join("\n\n");
    },

    async subscribe(message, on, typed): Promise<UserText> {
      const channel = channelOf(message);
      const name = typed === undefined ? undefined : chatbots.named(typed)?.name;
      const change = on
        ? await options.channels.subscribe(channel, name)
        : await options.channels.unsubscribe(channel, name);
      if (change === "configured") {
        return {
          key: "leadsConfigured",
          values: { variables: "LEADS_SLACK_CHANNELS / LEADS_TELEGRAM_CHATS" },
        };
      }
      // Whose leads, where there are several chatbots (unsubscribing from all names none).
      const whose = chatbots.several
        ? (name ?? (on ? chatbots.default.name : undefined))
        : undefined;
      const said = SUBSCRIPTION_REPLY[on ? "on" : "off"][change];
      return whose === undefined
        ? { key: said.any }
        : { key: said.one, values: { chatbot: whose } };
    },
  };
}
