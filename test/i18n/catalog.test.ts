import { describe, expect, it } from "vitest";
import { en } from "../../src/i18n/catalog/en.ts";
import { CATALOG_LANGUAGES, type CatalogLanguage } from "../../src/i18n/languages.ts";
import type { MessageKey, MessageValues } from "../../src/i18n/messages.ts";
import { catalogLanguageOf, pickLanguage } from "../../src/i18n/pick-language.ts";
import { translator } from "../../src/i18n/translator.ts";

const KEYS = Object.keys(en) as MessageKey[];

/** A value for every placeholder of the catalog: a text that lacks one fails to render. */
const SAMPLE: MessageValues = {
  reason: "x",
  status: "HTTP 503",
  code: "1001",
  detail: "quota",
  duration: "5 min",
  error: "not_in_channel",
  count: 2,
  place: 3,
  length: 4001,
  limit: 4000,
  window: 60,
  seconds: 30,
  days: 7,
  max: 90,
  read: 2000,
  auto: "`auto`",
  unsubscribe: "/leads unsubscribe",
  subscribe: "/leads subscribe",
  list: "/leads",
  command: "/help",
  new: "new",
  name: "Ada",
  language: "Deutsch (de)",
  codes: "auto, en, fr",
  variables: "LEADS_SLACK_CHANNELS",
  url: "CHATBOT_BASE_URL",
  key: "CHATBOT_API_KEY",
  uid: "CHATBOT_BOT_UID",
  time: "2026-11-22 10:05 UTC",
  phone: "+1 555 0100",
  email: "ada@example.com",
  remark: "call me",
  platform: "Slack",
  where: "#support",
  stop: "Ctrl+C",
  quit: "Ctrl+D",
  usage: "/help",
  what: { key: "helpHelp" },
  mark: "👍",
  up: 3,
  down: 1,
  share: 0.75,
  label: { key: "leadName" },
  chatbot: "sales",
  show: "/chatbot",
  use: "/chatbot use <name>",
  text: "hello",
};

// Texts that are only values and punctuation (the "⚠️ {reason}" note, "{name} ({code})", a
// lead's line, "{chatbot}: {reason}", a chatbot's votes), and words that are the same in a
// language (German "Name", so "Name:" too; "E-mail" in French, Italian and Portuguese; French
// "Conversation"; "Chatbot", the word several languages use). Exact: a stale entry fails too.
const SAME_AS_ENGLISH: Readonly<Record<Exclude<CatalogLanguage, "en">, readonly MessageKey[]>> = {
  fr: ["failed", "languageNamed", "leadEmail", "leadConversation", "leadChatbot"],
  es: [
    "failed",
    "languageNamed",
    "leadLine",
    "chatbotFailed",
    "leadChatbot",
    "feedbackOfChatbot",
    "handoverCustomerLine",
  ],
  ru: [
    "failed",
    "languageNamed",
    "leadLine",
    "chatbotFailed",
    "feedbackOfChatbot",
    "handoverCustomerLine",
  ],
  "zh-Hans": ["failed"],
  "zh-Hant": ["failed"],
  ar: [],
  de: [
    "failed",
    "languageNamed",
    "leadLine",
    "leadName",
    "leadLabel",
    "chatbotFailed",
    "leadChatbot",
    "feedbackOfChatbot",
    "handoverCustomerLine",
  ],
  jp: ["failed"],
  pt: [
    "failed",
    "languageNamed",
    "leadLine",
    "leadLineRemark",
    "leadEmail",
    "chatbotFailed",
    "leadChatbot",
    "feedbackOfChatbot",
    "handoverCustomerLine",
  ],
  hi: [
    "failed",
    "languageNamed",
    "leadLine",
    "leadLineRemark",
    "chatbotFailed",
    "feedbackOfChatbot",
    "handoverCustomerLine",
  ],
  ko: [
    "failed",
    "leadLine",
    "leadLineRemark",
    "chatbotFailed",
    "feedbackOfChatbot",
    "handoverCustomerLine",
  ],
  it: [
    "failed",
    "languageNamed",
    "leadLine",
    "leadEmail",
    "chatbotFailed",
    "leadChatbot",
    "feedbackOfChatbot",
    "handoverCustomerLine",
  ],
  uk: [
    "failed",
    "languageNamed",
    "leadLine",
    "chatbotFailed",
    "feedbackOfChatbot",
    "handoverCustomerLine",
  ],
};

const FSI = "\u2068";
const PDI = "\u2069";
const RLM = "\u200F";

describe("the message catalog", () => {
  it.each(CATALOG_LANGUAGES)("renders every key in %s with sample values", (language) => {
    const { t } = translator(language);
    for (const key of KEYS) {
      expect(t(key, SAMPLE).trim(), key).not.toBe("");
    }
  });

  const translated = CATALOG_LANGUAGES.filter(
    (language): language is Exclude<CatalogLanguage, "en"> => language !== "en",
  );
  it.each(translated)("has no English left in %s outside names and symbols", (language) => {
    const english = translator("en");
    const { t } = translator(language);
    const same = KEYS.filter((key) => t(key, SAMPLE) === english.t(key, SAMPLE));
    expect(same.sort()).toEqual([...SAME_AS_ENGLISH[language]].sort());
  });

  it("renders every plural with 0, 1, 2, 5 and 21 in every language", () => {
    const plural = KEYS.filter((key) => en[key].includes(", plural,"));
    expect(plural.length).toBeGreaterThan(5);
    for (const language of CATALOG_LANGUAGES) {
      const { t } = translator(language);
      for (const key of plural) {
        for (const n of [0, 1, 2, 5, 21]) {
          const text = t(key, { ...SAMPLE, count: n, days: n, length: n });
          expect(text, `${language} ${key} ${n}`).not.toMatch(/[{}]/);
        }
      }
    }
  });

  /** The text for each count with its digits taken out: what changes is the grammar. */
  const forms = (language: CatalogLanguage, key: MessageKey, counts: number[]) =>
    counts.map((count) =>
      translator(language)
        .t(key, { ...SAMPLE, count })
        .replace(/\d+/g, "N"),
    );

  it("says 1 question and 2 questions in English", () => {
    const { t } = translator("en");
    expect(t("slowDown", { ...SAMPLE, count: 1 })).toMatch(/^Slow down: you may ask 1 question in/);
    expect(t("slowDown", { ...SAMPLE, count: 2 })).toMatch(
      /^Slow down: you may ask 2 questions in/,
    );
  });

  it("uses Russian's three forms: 1 and 21 вопрос, 2 вопроса, 5 вопросов", () => {
    const [one, two, five, twentyOne] = forms("ru", "slowDown", [1, 2, 5, 21]);
    const { t } = translator("ru");
    expect(t("slowDown", { ...SAMPLE, count: 21 })).toMatch(/ 21 вопрос за /);
    expect(t("slowDown", { ...SAMPLE, count: 2 })).toMatch(/ 2 вопроса за /);
    expect(t("slowDown", { ...SAMPLE, count: 5 })).toMatch(/ 5 вопросов за /);
    expect(new Set([one, two, five]).size).toBe(3);
    expect(twentyOne).toBe(one);
  });

  it("uses Ukrainian's three forms: 1 and 21 лід, 2 ліди, 5 лідів", () => {
    const [one, two, five, twentyOne] = forms("uk", "leadsTitle", [1, 2, 5, 21]);
    expect(new Set([one, two, five]).size).toBe(3);
    expect(twentyOne).toBe(one);
    expect(translator("uk").t("leadsTitle", { count: 5, days: 7 })).toMatch(/^5 лідів /);
  });

  it("uses Arabic's forms for 0, 1, 2, 5 and 21 (zero, one, two, few, many)", () => {
    expect(new Set(forms("ar", "slowDown", [0, 1, 2, 5, 21])).size).toBe(5);
  });

  it("keeps Arabic right to left: marks at each line's ends, values isolated, no stray Latin", () => {
    const { t } = translator("ar");
    for (const key of KEYS) {
      const text = t(key, SAMPLE);
      for (const line of text.split("\n")) {
        expect(line.startsWith(RLM) && line.endsWith(RLM), key).toBe(true);
      }
      const outsideValues = text.replace(new RegExp(`${FSI}[^${PDI}]*${PDI}`, "g"), "");
      expect(outsideValues, key).not.toMatch(/[A-Za-z]/);
    }
  });

  it("writes no bidi control of an inserted name in any language: the sentence keeps its order", () => {
    const name = "Mallory\u202Eevil\u2066x\u2069\u202B";
    for (const language of CATALOG_LANGUAGES) {
      const { t } = translator(language);
      for (const key of ["stoppedBy", "claimedBy", "alreadyClaimed", "listedClaim"] as const) {
        const text = t(key, { ...SAMPLE, name });
        // Right-to-left languages isolate the name in one FSI…PDI pair of their own.
        const isolated = text.replace(new RegExp(`${FSI}[^${FSI}${PDI}]*${PDI}`, "g"), "");
        expect(isolated, `${language} ${key}`).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
        expect(text, `${language} ${key}`).toContain("Malloryevilx");
      }
    }
  });

  it("puts numbers, dates and language names in the locale's way", () => {
    expect(translator("de").t("questionTooLong", { length: 4001, limit: 4000 })).toContain(
      "4.001 Zeichen",
    );
    expect(translator("fr").languageName("de")).toBe("allemand");
    expect(translator("jp").languageName("jp")).toBe("日本語");
    expect(translator("ru").duration(300_000)).toBe("5 минут");
    expect(translator("en").duration(90_000)).toBe("90 seconds");
    expect(translator("en").time(new Date("2026-11-22T10:05:00Z"))).toBe("Nov 22, 2026, 10:05 UTC");
    expect(translator("de").time(new Date("2026-11-22T10:05:00Z"))).toMatch(/^22\. Nov\. 2026/);
  });
});

describe("which language the bot speaks", () => {
  it("takes the channel's language when an admin set one", () => {
    expect(pickLanguage("fr", "de")).toBe("fr");
    expect(pickLanguage("jp", undefined)).toBe("jp");
  });

  it("takes the person's own language with auto or none, else English", () => {
    expect(pickLanguage("auto", "de")).toBe("de");
    expect(pickLanguage(undefined, "pt-br")).toBe("pt");
    expect(pickLanguage("auto", "tlh")).toBe("en");
    expect(pickLanguage(undefined, undefined)).toBe("en");
  });

  it.each([
    ["en-US", "en"],
    ["pt-br", "pt"],
    ["zh-hans", "zh-Hans"],
    ["zh-TW", "zh-Hant"],
    ["zh-hant", "zh-Hant"],
    ["zh", "zh-Hans"],
    ["ja-JP", "jp"],
    ["ja", "jp"],
    ["uk", "uk"],
    ["fr_FR.UTF-8", "fr"],
    ["de_DE@euro", "de"],
    ["C", undefined],
    ["POSIX", undefined],
    ["nl", undefined],
  ])("reads the locale %s as %s", (locale, language) => {
    expect(catalogLanguageOf(locale)).toBe(language);
  });
});
