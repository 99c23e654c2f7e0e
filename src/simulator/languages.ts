/**
 * The language codes of the API spec, kept here on their own rather than imported from the
 * client's list: a fake that shares the client's constants cannot catch a typo in them.
 */
const LANGUAGES: Readonly<Record<string, { name: string; greeting: string }>> = {
  auto: { name: "Automatic", greeting: "Hello!" },
  en: { name: "English", greeting: "Hello!" },
  fr: { name: "French", greeting: "Bonjour !" },
  es: { name: "Spanish", greeting: "¡Hola!" },
  ru: { name: "Russian", greeting: "Здравствуйте!" },
  "zh-Hans": { name: "Simplified Chinese", greeting: "你好！" },
  "zh-Hant": { name: "Traditional Chinese", greeting: "你好！" },
  ar: { name: "Arabic", greeting: "مرحبًا!" },
  de: { name: "German", greeting: "Hallo!" },
  jp: { name: "Japanese", greeting: "こんにちは！" },
  pt: { name: "Portuguese", greeting: "Olá!" },
  hi: { name: "Hindi", greeting: "नमस्ते!" },
  ko: { name: "Korean", greeting: "안녕하세요!" },
  it: { name: "Italian", greeting: "Ciao!" },
  uk: { name: "Ukrainian", greeting: "Вітаю!" },
};

/** The codes a chat request may carry, in the spec's order. */
export const SIMULATOR_LANGUAGE_CODES: readonly string[] = Object.keys(LANGUAGES);

export function isSupportedLanguage(code: string): boolean {
  return Object.hasOwn(LANGUAGES, code);
}

export interface ResolvedLanguage {
  code: string;
  name: string;
  greeting: string;
  /** True when `auto` picked the language from the question's script. */
  detected: boolean;
}

/** The language an answer is given in; `auto` looks at the question's script. */
export function resolveLanguage(code: string, question: string): ResolvedLanguage {
  const chosen = code === "auto" ? detectLanguage(question) : code;
  const entry = LANGUAGES[chosen] ?? { name: "English", greeting: "Hello!" };
  return { code: chosen, name: entry.name, greeting: entry.greeting, detected: code === "auto" };
}

// A script check is enough for a simulator; Latin-script text is taken as English.
const SCRIPTS: readonly [RegExp, string][] = [
  [/[\u3040-\u30ff]/, "jp"],
  [/[\uac00-\ud7af]/, "ko"],
  [/[\u4e00-\u9fff]/, "zh-Hans"],
  [/[\u0400-\u04ff]/, "ru"],
  [/[\u0600-\u06ff]/, "ar"],
  [/[\u0900-\u097f]/, "hi"],
];

function detectLanguage(question: string): string {
  for (const [script, code] of SCRIPTS) {
    if (script.test(question)) return code;
  }
  return "en";
}
