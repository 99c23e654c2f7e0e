import type { Lead } from "../backend/types.ts";

/** A channel that gets lead announcements: a platform and that platform's chat id. */
export interface LeadChannel {
  platform: string;
  id: string;
}

/**
 * Posts one lead announcement into a lead channel; implemented by each platform adapter,
 * which renders the lead for its platform (Slack blocks, Telegram HTML) as untrusted text.
 */
export interface LeadAnnouncer {
  readonly platform: string;
  announce(channelId: string, lead: Lead): Promise<void>;
}

export function channelKeyOf(channel: LeadChannel): string {
  return `${channel.platform}:${channel.id}`;
}
