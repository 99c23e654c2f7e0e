import { z } from "zod";
import { LANGUAGE_CODES, type LanguageCode, readLanguageCode } from "../backend/languages.ts";
import { MAX_FEEDBACK_DAYS } from "../feedback/votes.ts";
import type { UserText } from "../i18n/messages.ts";

/** A command the bot itself answers, parsed and validated. */
export type Command =
  | { name: "help" }
  | { name: "new" }
  | { name: "language"; code?: LanguageCode }
  | { name: "leads"; action: "list"; days: number }
  | { name: "leads"; action: "subscribe" | "unsubscribe" }
  | { name: "stop" }
  | { name: "feedback"; days: number }
  /** A command addressed to the bot that it does not have (`/bogus`). */
  | { name: "unknown"; word: string };

/** A command word the bot knows, with arguments it cannot accept. */
export interface CommandProblem {
  name: Command["name"];
  /** What is wrong, to show the person in their language. */
  problem: UserText;
}

/** The days `/leads` and `/feedback` look back without a number: a week. */
const DEFAULT_DAYS = 7;
const MAX_LEAD_DAYS = 90;

/** Each command's usage and what it does, as `/help` lists them. */
export const COMMAND_HELP: readonly (readonly [string, UserText])[] = [
  ["/help", { key: "helpHelp" }],
  ["/new", { key: "helpNew" }],
  ["/language", { key: "helpLanguage" }],
  ["/language <code>", { key: "helpLanguageSet", values: { auto: "`auto`" } }],
  ["/leads [days]", { key: "helpLeads", values: { days: DEFAULT_DAYS } }],
  [
    "/leads subscribe",
    { key: "helpLeadsSubscribe", values: { unsubscribe: "`/leads unsubscribe`" } },
  ],
  ["/stop", { key: "helpStop" }],
  ["/feedback [days]", { key: "helpFeedback", values: { days: DEFAULT_DAYS } }],
];

// Plain digits only: a coercion would also take "0x10", "1e1" or " 5.0".
const daysArgument = (max: number) =>
  z.string().regex(/^\d+$/).transform(Number).pipe(z.number().min(1).max(max));
const leadDays = daysArgument(MAX_LEAD_DAYS);
/** `/feedback [days]`'s days, which `npm run feedback -- --since <days>d` takes too. */
export const feedbackDays = daysArgument(MAX_FEEDBACK_DAYS);

const COMMAND_WORDS = new Set(["help", "new", "language", "leads", "stop", "feedback"]);

/**
 * A command as people type one: a slash and one word, as Telegram defines them (up to 32
 * letters, digits and underscores). `/etc/hosts` or a lone `/` starts a question instead.
 * https://core.telegram.org/bots/features#commands
 */
const SLASH_WORD = /^\/([A-Za-z0-9_]{1,32})$/;

/**
 * Reads a command from a message. Returns undefined for anything that is a question for
 * the chatbot. With `bare`, the first word counts as a command without its slash (only the
 * bot's own words: anything else is a question). Adapters hand over only commands addressed
 * to this bot, so a slash command the bot does not have is `unknown`, not a question.
 */
export function parseCommand(
  text: string,
  options: { bare?: boolean } = {},
): Command | CommandProblem | undefined {
  const words = text.trim().split(/\s+/);
  const first = words[0] ?? "";
  const slashed = SLASH_WORD.exec(first)?.[1];
  const word = (slashed ?? (options.bare ? first : "")).toLowerCase();
  if (!COMMAND_WORDS.has(word)) {
    return slashed === undefined ? undefined : { name: "unknown", word: `/${slashed}` };
  }
  const args = words.slice(1).filter(Boolean);
  switch (word) {
    case "help":
      return { name: "help" };
    case "new":
      return { name: "new" };
    case "language":
      return parseLanguage(args);
    case "stop":
      if (args.length === 0) return { name: "stop" };
      // "@bot stop smoking: how?" is a question; a slash makes it a command.
      return slashed === undefined
        ? undefined
        : { name: "stop", problem: { key: "stopUsage", values: { stop: "`/stop`" } } };
    case "feedback":
      return parseFeedback(args);
    default:
      return parseLeads(args);
  }
}

function parseLanguage(args: string[]): Command | CommandProblem {
  const [typed, extra] = args;
  if (typed === undefined) return { name: "language" };
  const code = extra === undefined ? readLanguageCode(typed) : undefined;
  if (!code) {
    return {
      name: "language",
      problem: { key: "languageUnknown", values: { codes: LANGUAGE_CODES.join(", ") } },
    };
  }
  return { name: "language", code };
}

function parseLeads(args: string[]): Command | CommandProblem {
  const [arg, extra] = args;
  if (extra === undefined && (arg === "subscribe" || arg === "unsubscribe")) {
    return { name: "leads", action: arg };
  }
  const days = optionalDays(args, leadDays);
  if (days === undefined) {
    return {
      name: "leads",
      problem: {
        key: "leadsUsage",
        values: {
          list: "`/leads`",
          days: "`/leads <days>`",
          max: MAX_LEAD_DAYS,
          subscribe: "`/leads subscribe`",
          unsubscribe: "`/leads unsubscribe`",
        },
      },
    };
  }
  return { name: "leads", action: "list", days };
}

function parseFeedback(args: string[]): Command | CommandProblem {
  const days = optionalDays(args, feedbackDays);
  if (days === undefined) {
    return {
      name: "feedback",
      problem: {
        key: "feedbackUsage",
        values: { list: "`/feedback`", days: "`/feedback <days>`", max: MAX_FEEDBACK_DAYS },
      },
    };
  }
  return { name: "feedback", days };
}

/** `[days]`: DEFAULT_DAYS when absent; undefined for anything but one number `days` takes. */
function optionalDays(args: readonly string[], days: typeof leadDays): number | undefined {
  const [arg, extra] = args;
  if (extra !== undefined) return undefined;
  if (arg === undefined) return DEFAULT_DAYS;
  const parsed = days.safeParse(arg);
  return parsed.success ? parsed.data : undefined;
}

export function isCommandProblem(value: Command | CommandProblem): value is CommandProblem {
  return "problem" in value;
}
