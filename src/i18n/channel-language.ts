import type { LanguageCode } from "../backend/languages.ts";
import { ChannelSettings } from "../store/repositories.ts";
import type { KeyValueStore } from "../store/types.ts";
import { pickLanguage } from "./pick-language.ts";
import { type Translator, translator } from "./translator.ts";

/**
 * Which language the bot speaks in a channel (pickLanguage): the language an admin set there,
 * or DEFAULT_LANGUAGE; with `auto`, the person's own where the platform tells it; else English.
 */
export class ChannelLanguages {
  readonly #settings: ChannelSettings;
  readonly #defaultLanguage: LanguageCode;

  constructor(store: KeyValueStore, defaultLanguage: LanguageCode) {
    this.#settings = new ChannelSettings(store);
    this.#defaultLanguage = defaultLanguage;
  }

  /**
   * The translator for channel `channelKey` and a person whose locale `personLocale` tells
   * (asked only when the channel's language is `auto`). A store or platform that fails costs
   * the person's language or the channel's, never the reply: these are courtesies.
   */
  async translatorFor(
    channelKey: string,
    personLocale?: () => Promise<string | undefined>,
  ): Promise<Translator> {
    const stored = await this.#settings.language(channelKey).catch(() => undefined);
    return this.translatorFrom(stored, personLocale);
  }

  /** The same, from the channel's language already read (`undefined`: none was set). */
  async translatorFrom(
    stored: LanguageCode | undefined,
    personLocale?: () => Promise<string | undefined>,
  ): Promise<Translator> {
    const channel = stored ?? this.#defaultLanguage;
    const person = channel === "auto" ? await personLocale?.().catch(() => undefined) : undefined;
    return translator(pickLanguage(channel, person));
  }
}
