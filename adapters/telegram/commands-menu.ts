import { createHash } from "node:crypto";
import type { Api } from "grammy";
import type { BotCommand, BotCommandScope, LanguageCode } from "grammy/types";
import { CATALOG_LANGUAGES, type CatalogLanguage, INTL_LOCALES } from "../../src/i18n/languages.ts";
import { type Translator, translator } from "../../src/i18n/translator.ts";
import type { Logger } from "../../src/log.ts";
import type { KeyValueStore } from "../../src/store/types.ts";

/**
 * The ISO 639-1 code Telegram matches against a user's language, for each catalog language
 * with a menu of its own (https://core.telegram.org/bots/api#setmycommands): its Intl
 * locale's language ("ja" for jp). English is the menu without a code, which everyone else
 * sees. Telegram has one `zh` for Chinese: the first catalog language with it, Simplified,
 * the script most Chinese readers use; Traditional readers get it too.
 */
const TELEGRAM_LANGUAGE_CODES = new Map<CatalogLanguage, LanguageCode>();
for (const language of CATALOG_LANGUAGES) {
  const code = INTL_LOCALES[language].split("-")[0] as LanguageCode;
  const taken = [...TELEGRAM_LANGUAGE_CODES.values()].includes(code);
  if (language !== "en" && !taken) TELEGRAM_LANGUAGE_CODES.set(language, code);
}

/**
 * The commands whose replies concern the one who typed them: marked `is_ephemeral`, so in a
 * group Telegram shows the command to its sender and the bot alone, and the bot may answer it
 * to them alone (Bot API 10.3, whether or not it administers the group). `/new` and `/stop`
 * act for everyone there and stay ordinary messages.
 */
const EPHEMERAL_COMMANDS = new Set([
  "help",
  "language",
  "chatbot",
  "leads",
  "feedback",
  "handback",
]);

/** One setMyCommands call: a scope's menu in one language (none: the default menu). */
export interface CommandMenu {
  scope: BotCommandScope;
  languageCode?: LanguageCode | undefined;
  commands: readonly BotCommand[];
}

/**
 * The command menu per scope (https://core.telegram.org/bots/api#determining-list-of-commands):
 * everyone sees the everyday commands (`/chatbot` too where there are several chatbots);
 * chat administrators also see `/leads`, whose subscribe and unsubscribe are theirs to use,
 * `/feedback`, and `/handback`, which gives a chat a person took over back to the chatbot.
 */
function menusIn(t: Translator, chatbots: boolean, languageCode?: LanguageCode): CommandMenu[] {
  const chatbot: BotCommand = {
    command: "chatbot",
    description: t.t("menuChatbot", { command: "/chatbot use <name>" }),
  };
  const everyone: BotCommand[] = [
    { command: "help", description: t.t("menuHelp") },
    { command: "new", description: t.t("menuNew") },
    { command: "language", description: t.t("menuLanguage", { command: "/language <code>" }) },
    { command: "stop", description: t.t("menuStop") },
    ...(chatbots ? [chatbot] : []),
  ];
  const leads = {
    command: "leads",
    description: t.t("menuLeads", { command: "/leads subscribe" }),
  };
  const feedback: BotCommand = { command: "feedback", description: t.t("menuFeedback") };
  const handBack: BotCommand = { command: "handback", description: t.t("menuHandBack") };
  const marked = (commands: BotCommand[]) =>
    commands.map((c) => (EPHEMERAL_COMMANDS.has(c.command) ? { ...c, is_ephemeral: true } : c));
  return [
    { scope: { type: "default" }, languageCode, commands: marked(everyone) },
    {
      scope: { type: "all_chat_administrators" },
      languageCode,
      commands: marked([...everyone, leads, feedback, handBack]),
    },
  ];
}

/**
 * Every menu: the default (English) one, then one per language Telegram can tell apart. Made
 * when the menus are synced, not at import: a console-only run needs none of it.
 */
function commandMenus(chatbots: boolean): CommandMenu[] {
  return [
    ...menusIn(translator("en"), chatbots),
    ...CATALOG_LANGUAGES.flatMap((language) => {
      const code = TELEGRAM_LANGUAGE_CODES.get(language);
      return code ? menusIn(translator(language), chatbots, code) : [];
    }),
  ];
}

/**
 * Registers the command menus only when they differ from what this bot last registered (a
 * hash kept in the store, so a changed catalog registers them again), so a restart costs no
 * Bot API calls and cannot meet a 429 before the bot answers anyone.
 */
export async function syncCommandMenu(
  api: Api,
  store: KeyValueStore,
  botId: number,
  log: Logger,
  /** The deployment has several chatbots: `/chatbot` is in the menu. */
  chatbots = false,
): Promise<"unchanged" | "registered"> {
  const key = `telegram:commands:${botId}`;
  const menus = commandMenus(chatbots);
  const hash = createHash("sha256").update(JSON.stringify(menus)).digest("hex");
  if ((await store.get<string>(key)) === hash) return "unchanged";
  for (const { scope, languageCode, commands } of menus) {
    await api.setMyCommands(commands, {
      scope,
      ...(languageCode === undefined ? {} : { language_code: languageCode }),
    });
  }
  await store.set(key, hash);
  log.info({ menus: menus.length }, "Telegram command menu registered");
  return "registered";
}
