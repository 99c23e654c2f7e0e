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
