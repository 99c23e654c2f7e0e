/** The language codes the Chatbot Backend API accepts in a chat request, with their names. */
export const LANGUAGES = {
  auto: "Automatic",
  en: "English",
  fr: "French",
  es: "Spanish",
  ru: "Russian",
  "zh-Hans": "Simplified Chinese",
  "zh-Hant": "Traditional Chinese",
  ar: "Arabic",
  de: "German",
  jp: "Japanese",
  pt: "Portuguese",
  hi: "Hindi",
  ko: "Korean",
  it: "Italian",
  uk: "Ukrainian",
} as const;

export type LanguageCode = keyof typeof LANGUAGES;

export const LANGUAGE_CODES = Object.keys(LANGUAGES) as LanguageCode[];

export function isLanguageCode(value: string): value is LanguageCode {
  return Object.hasOwn(LANGUAGES, value);
}

/**
 * What people type for a language, lower-cased: the API's codes and names ("Japanese"), and
 * the standard codes where the API differs (ISO 639-1 `ja`; `zh` is written Simplified
 * unless a script or region says otherwise).
 */
const SPOKEN = new Map<string, LanguageCode>([
  ...LANGUAGE_CODES.flatMap((code) => [
    [code.toLowerCase(), code] as const,
    [LANGUAGES[code].toLowerCase(), code] as const,
  ]),
  ["ja", "jp"],
  ["zh", "zh-Hans"],
  ["chinese", "zh-Hans"],
]);

/** Chinese scripts, and the regions that write Traditional characters (Taiwan, Hong Kong, Macau). */
const CHINESE_SCRIPTS = new Map<string, LanguageCode>([
  ["hans", "zh-Hans"],
  ["hant", "zh-Hant"],
  ["tw", "zh-Hant"],
  ["hk", "zh-Hant"],
  ["mo", "zh-Hant"],
]);

// A BCP 47 tag's shape: a language, then subtags of up to 8 letters or digits (`pt-BR`,
// `zh-Hant-TW`, `en_GB` with the underscore some systems write).
const TAG = /^([a-z]{2,3})((?:-[a-z0-9]{1,8}){1,4})$/;

/**
 * The API's code for what a person typed, in any letter case: a code or name of the API's
 * list, `ja`, `zh`, or a tag with a region or script (`ja-JP`, `pt-BR`, `zh-TW` → zh-Hant,
 * `zh-CN` → zh-Hans). Undefined when it names no language the API has.
 */
export function readLanguageCode(input: string): LanguageCode | undefined {
  const typed = input.trim().toLowerCase().replaceAll("_", "-");
  const known = SPOKEN.get(typed);
  if (known) return known;
  const tag = TAG.exec(typed);
  if (!tag) return undefined;
  const [, language = "", rest = ""] = tag;
  if (language === "zh") {
    const subtags = rest.slice(1).split("-");
    return subtags.map((s) => CHINESE_SCRIPTS.get(s)).find(Boolean) ?? "zh-Hans";
  }
  return SPOKEN.get(language);
}
