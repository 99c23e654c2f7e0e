import { type LanguageCode, readLanguageCode } from "../backend/languages.ts";
import type { CatalogLanguage } from "./languages.ts";

/**
 * The catalog language of a platform's locale tag: Telegram's `language_code` (`de`,
 * `pt-br`, `zh-hans`), Slack's user locale (`en-US`, `ja-JP`, `zh-TW`), a system locale
 * (`fr_FR.UTF-8`). Undefined for a language the catalog does not have (or `C`, `POSIX`).
 */
export function catalogLanguageOf(locale: string | undefined): CatalogLanguage | undefined {
  if (!locale) return undefined;
  // A POSIX locale's encoding and modifier (`.UTF-8`, `@euro`) say nothing of the language.
  const code = readLanguageCode(locale.replace(/[.@].*$/, ""));
  return code === "auto" ? undefined : code;
}

/**
 * The language the bot speaks to one person: the channel's when an admin set one (or the
 * deployment's DEFAULT_LANGUAGE is not `auto`); else the person's own, where the platform
 * tells it; else English.
 */
export function pickLanguage(
  channelLanguage: LanguageCode | undefined,
  personLocale: string | undefined,
): CatalogLanguage {
  if (channelLanguage !== undefined && channelLanguage !== "auto") return channelLanguage;
  return catalogLanguageOf(personLocale) ?? "en";
}
