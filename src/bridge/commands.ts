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
  /**
   * `chatbot`: the named chatbot's leads only (none: subscribe to the default chatbot's,
   * unsubscribe from every chatbot's).
   */
  | { name: "leads"; action: "subscribe" | "unsubscribe"; chatbot?: string }
  /** `/chatbot` shows the channel's chatbot; with `use`, an admin picks the one named. */
  | { name: "chatbot"; use?: string }
  | { name: "stop" }
  | { name: "feedback"; days: number }
  /** Ends a hand-over of the thread (src/handover/): the chatbot answers there again. */
  | { name: "handback" }
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
  ["/handback", { key: "helpHandBack" }],
];

/** The lines `/help` adds where the deployment has several chatbots to choose from. */
export const CHATBOT_HELP: readonly (readonly [string, UserText])[] = [
  ["/chatbot", { key: "helpChatbot" }],
  ["/chatbot use <name>", { key: "helpChatbotUse" }],
  ["/leads subscribe <name>", { key: "helpLeadsSubscribeChatbot" }],
];

// Plain digits only: a coercion would also take "0x10", "1e1" or " 5.0".
const daysArgument = (max: number) =>
  z.string().regex(/^\d+$/).transform(Number).pipe(z.number().min(1).max(max));
const leadDays = daysArgument(MAX_LEAD_DAYS);
/** `/feedback [days]`'s days, which `npm run feedback -- --since <days>d` takes too. */
export const feedbackDays = daysArgument(MAX_FEEDBACK_DAYS);

/** The words of the bot's own commands, as typed after the slash. */
export const COMMAND_WORDS: ReadonlySet<string> = new Set([
  "help",
  "new",
  "language",
  "leads",
  "stop",
  "feedback",
  "chatbot",
  "handback",
]);

/** A name as typed after `/chatbot use` or `/leads subscribe`; CHATBOTS says whether it is one. */
const NAME_ARGUMENT = /^[A-Za-z0-9_]{1,32}$/;

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
  options: {
    bare?: boolean;
    /**
     * The deployment's chatbots' names: with `bare`, `use <name>` picks one (`@bot use sales`
     * in Slack), and only for a name among them: "use the form?" stays a question.
     */
    chatbots?: readonly string[];
  } = {},
): Command | CommandProblem | undefined {
  const words = text.trim().split(/\s+/);
  const first = words[0] ?? "";
  const slashed = SLASH_WORD.exec(first)?.[1];
  const word = (slashed ?? (options.bare ? first : "")).toLowerCase();
  const args = words.slice(1).filter(Boolean);
  if (slashed === undefined && word === "use") return bareUse(args, options.chatbots ?? []);
  if (!COMMAND_WORDS.has(word)) {
    return slashed === undefined ? undefined : { name: "unknown", word: `/${slashed}` };
  }
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
    case "handback":
      // "@bot handback the form?" is a question; a slash makes it the command.
      return args.length === 0 || slashed !== undefined ? { name: "handback" } : undefined;
    case "chatbot":
      return parseChatbot(args, slashed !== undefined);
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

/** `@bot use sales`: a command for a chatbot's name alone, a question otherwise. */
function bareUse(args: string[], chatbots: readonly string[]): Command | undefined {
  const [name, extra] = args;
  if (name === undefined || extra !== undefined) return undefined;
  const use = name.toLowerCase();
  return chatbots.includes(use) ? { name: "chatbot", use } : undefined;
}

function parseChatbot(args: string[], slashed: boolean): Command | CommandProblem | undefined {
  const [action, name, extra] = args;
  if (action === undefined) return { name: "chatbot" };
  if (action.toLowerCase() === "use" && extra === undefined) {
    // `/chatbot use` alone (Slack's `/chatbot-use` with no name) lists them.
    if (name === undefined) return { name: "chatbot" };
    if (NAME_ARGUMENT.test(name)) return { name: "chatbot", use: name.toLowerCase() };
  }
  // "@bot chatbot pricing?" is a question; a slash makes it a command.
  if (!slashed) return undefined;
  return {
    name: "chatbot",
    problem: { key: "chatbotUsage", values: { show: "`/chatbot`", use: "`/chatbot use <name>`" } },
  };
}

function parseLeads(args: string[]): Command | CommandProblem {
  const [arg, name, extra] = args;
  if (extra === undefined && (arg === "subscribe" || arg === "unsubscribe")) {
    if (name === undefined) return { name: "leads", action: arg };
    if (NAME_ARGUMENT.test(name))
      return { name: "leads", action: arg, chatbot: name.toLowerCase() };
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
