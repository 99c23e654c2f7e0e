import type { LanguageCode } from "../backend/languages.ts";

/** A language the bot's own texts are written in: every code of the API's list but `auto`. */
export type CatalogLanguage = Exclude<LanguageCode, "auto">;

/**
 * The Intl locale of each catalog language, for plurals, numbers, dates and language names.
 * The API's `jp` is Japanese, whose BCP 47 code is `ja`; the Chinese codes are valid tags.
 */
export const INTL_LOCALES: Readonly<Record<CatalogLanguage, string>> = {
  en: "en",
  fr: "fr",
  es: "es",
  ru: "ru",
  "zh-Hans": "zh-Hans",
  "zh-Hant": "zh-Hant",
  ar: "ar",
  de: "de",
  jp: "ja",
  pt: "pt",
  hi: "hi",
  ko: "ko",
  it: "it",
  uk: "uk",
};

export const CATALOG_LANGUAGES = Object.keys(INTL_LOCALES) as CatalogLanguage[];

/** Languages written right to left: their texts get direction marks and isolated values. */
export const RIGHT_TO_LEFT: ReadonlySet<CatalogLanguage> = new Set(["ar"]);
