import { IntlMessageFormat } from "intl-messageformat";
import { stripInvisible } from "../reply/invisible-chars.ts";
import { CATALOG } from "./catalog/index.ts";
import { type CatalogLanguage, INTL_LOCALES, RIGHT_TO_LEFT } from "./languages.ts";
import type { MessageKey, MessageValue, MessageValues, UserText } from "./messages.ts";

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
  /** Whole minutes or seconds in words ("5 minutes", "5 минут"), else milliseconds ("400 ms"). */
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
  const unit = (unit: string, count: number, unitDisplay: "long" | "short" = "long") =>
    new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay }).format(count);
  const duration = (ms: number) => {
    if (ms % 60_000 === 0) return unit("minute", ms / 60_000);
    if (ms % 1_000 === 0) return unit("second", ms / 1_000);
    return unit("millisecond", ms, "short");
  };
  const formatOf = (key: MessageKey) => {
    let format = formats.get(key);
    if (!format) {
      format = new IntlMessageFormat(messages[key], locale);
      formats.set(key, format);
    }
    return format;
  };
  const show = (value: MessageValue): string | number | Date => {
    if (typeof value === "string") {
      // A value is often a person's own (a name, a remark): its bidi controls would reorder
      // the bot's sentence around it ("stopped by" a name with U+202E), in every language.
      const shown = stripInvisible(value);
      return rightToLeft ? `${FSI}${shown}${PDI}` : shown;
    }
    if (typeof value !== "object" || value instanceof Date) return value;
    if ("durationMs" in value) return duration(value.durationMs);
    // A text of this catalog is in this language: it needs no isolation of its own.
    return render(value.key, value.values);
  };
  const render = (key: MessageKey, values: MessageValues = {}): string =>
    String(
      formatOf(key).format(
        Object.fromEntries(Object.entries(values).map(([name, value]) => [name, show(value)])),
      ),
    );
  const t = (key: MessageKey, values?: MessageValues): string => {
    const text = render(key, values);
    return rightToLeft
      ? text
          .split("\n")
          .map((line) => `${RLM}${line}${RLM}`)
          .join("\n")
      : text;
  };
  return {
    language,
    locale,
    t,
    text: (userText) => t(userText.key, userText.values),
    languageName: (code) => names.of(INTL_LOCALES[code]) ?? code,
    time: (date) => times.format(date),
    duration,
  };
}
