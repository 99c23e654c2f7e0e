import { IntlMessageFormat } from "intl-messageformat";
import { CATALOG } from "./catalog/index.ts";
import { type CatalogLanguage, INTL_LOCALES, RIGHT_TO_LEFT } from "./languages.ts";
import type { MessageKey, MessageValues, UserText } from "./messages.ts";

/** The bot's own texts in one language, with the locale's plurals, numbers and dates. */
export interface Translator {
  readonly language: CatalogLanguage;
  /** The Intl locale (`ja` for the API's `jp`). */
  readonly locale: string;
  /** The text `key` with `values` put in (every placeholder of the text needs its value). */
  t(key: MessageKey, values?: MessageValues): string;
  /** A text named before its language was known (a typed error's userText). */
  text(userText: UserText): string;
  /** A language's name as this language says it ("français", "Französisch"). */
  languageName(language: CatalogLanguage): string;
  /** A moment in UTC, written the locale's way ("Nov 22, 2026, 10:05 UTC"). */
  time(date: Date): string;
  /** A whole number of minutes, seconds or milliseconds, in words ("5 minutes", "5 минут"). */
  duration(ms: number): string;
}

// Bidi controls that keep a right-to-left sentence whole on any platform: a value (a command,
// a code, a name in Latin letters) is isolated, so its own direction cannot move the
// punctuation around it; each line starts and ends with a right-to-left mark, so its edge
// punctuation stays at the sentence's ends even where the platform lays the text out left to
// right (Slack) or takes the direction from the first strong letter (Telegram).
const FSI = "\u2068";
const PDI = "\u2069";
const RLM = "\u200F";

const translators = new Map<CatalogLanguage, Translator>();

/** The translator for `language`, made once per process. */
export function translator(language: CatalogLanguage): Translator {
  let made = translators.get(language);
  if (!made) {
    made = createTranslator(language);
    translators.set(language, made);
  }
  return made;
}

function createTranslator(language: CatalogLanguage): Translator {
  const locale = INTL_LOCALES[language];
  const messages = CATALOG[language];
  const rightToLeft = RIGHT_TO_LEFT.has(language);
  const formats = new Map<MessageKey, IntlMessageFormat>();
  const names = new Intl.DisplayNames([locale], { type: "language" });
  const times = new Intl.DateTimeFormat(locale, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone: "UTC",
    timeZoneName: "short",
  });
  const isolate = (values: MessageValues): MessageValues =>
    Object.fromEntries(
      Object.entries(values).map(([name, value]) => [
        name,
        typeof value === "string" ? `${FSI}${value}${PDI}` : value,
      ]),
    );
  const t = (key: MessageKey, values: MessageValues = {}): string => {
    let format = formats.get(key);
    if (!format) {
      format = new IntlMessageFormat(messages[key], locale);
      formats.set(key, format);
    }
    const text = String(format.format(rightToLeft ? isolate(values) : values));
    return rightToLeft
      ? text
          .split("\n")
          .map((line) => `${RLM}${line}${RLM}`)
          .join("\n")
      : text;
  };
  const unit = (unit: string, count: number) =>
    new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay: "long" }).format(count);
  return {
    language,
    locale,
    t,
    text: (userText) => t(userText.key, userText.values),
    languageName: (code) => names.of(INTL_LOCALES[code]) ?? code,
    time: (date) => times.format(date),
    duration(ms) {
      if (ms % 60_000 === 0) return unit("minute", ms / 60_000);
      if (ms % 1_000 === 0) return unit("second", ms / 1_000);
      return unit("millisecond", ms);
    },
  };
}
