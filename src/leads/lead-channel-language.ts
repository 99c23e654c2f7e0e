import type { ChannelLanguages } from "../i18n/channel-language.ts";
import { type Translator, translator } from "../i18n/translator.ts";
import type { LeadAnnouncer } from "../ports.ts";

/**
 * The language of what a lead channel is shown (an announcement, a claim's edit of it): the
 * channel's own; English where the announcer cannot tell the channel yet or none is set up.
 */
export async function leadChannelLanguage(
  announcer: LeadAnnouncer,
  channelId: string,
  languages: ChannelLanguages | undefined,
): Promise<Translator> {
  const channelKey = announcer.channelKey(channelId);
  return channelKey && languages ? languages.translatorFor(channelKey) : translator("en");
}
