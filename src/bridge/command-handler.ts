import type { Chatbots } from "../backend/chatbots.ts";
import type { LanguageCode } from "../backend/languages.ts";
import type { AnswerStops, Stopper } from "../coordination/answer-stops.ts";
import type { FeedbackVotes } from "../feedback/votes.ts";
import type { ChannelLanguages } from "../i18n/channel-language.ts";
import type { UserText } from "../i18n/messages.ts";
import type { Translator } from "../i18n/translator.ts";
import type { IncomingMessage } from "../ports.ts";
import type { ChannelSettings, Conversations } from "../store/repositories.ts";
import {
  CHATBOT_HELP,
  COMMAND_HELP,
  type Command,
  type CommandProblem,
  isCommandProblem,
} from "./commands.ts";

/** Answers `/leads …`; provided by the leads feature where lead channels are set up. */
export interface LeadsCommands {
  /** The reply, in the language of `t`. */
  list(message: IncomingMessage, days: number, t: Translator): Promise<string>;
  /**
   * Starts or stops the channel's announcements of `chatbot`'s leads (the name as typed); none:
   * subscribes to the default chatbot's, unsubscribes from every chatbot's.
   */
  subscribe(message: IncomingMessage, on: boolean, chatbot?: string): Promise<UserText>;
}

/** Answers `/handback`; provided where hand-overs are (src/handover/handover-desk.ts). */
export interface HandBackCommand {
  handBackCommand(message: IncomingMessage, t: Translator): Promise<CommandReply>;
}

export interface CommandReply {
  /** "": nothing to say (what the command did shows for itself). */
  text: string;
  /** Only the asker needs it (shown privately where the platform can). */
  private: boolean;
}

export interface CommandHandlerOptions {
  /** The deployment's chatbots: `/chatbot` picks among them, other replies name them. */
  chatbots: Chatbots;
  conversations: Conversations;
  settings: ChannelSettings;
  defaultLanguage: LanguageCode;
  /** The language a channel speaks: a change of it is confirmed in the new one. */
  languages: ChannelLanguages;
  leads?: LeadsCommands | undefined;
  handovers?: HandBackCommand | undefined;
  stops: AnswerStops;
  feedback: FeedbackVotes;
}

/**
 * Runs the bot's own commands and says what to reply, in the language of `t`. Nothing here
 * calls the chatbot.
 */
export class CommandHandler {
  readonly #options: CommandHandlerOptions;

  constructor(options: CommandHandlerOptions) {
    this.#options = options;
  }

  async run(
    command: Command | CommandProblem,
    message: IncomingMessage,
    t: Translator,
  ): Promise<CommandReply> {
    if (isCommandProblem(command)) {
      return {
        text: t.text(spelledValues(command.problem, message.commandSpellings)),
        private: true,
      };
    }
    const { several } = this.#options.chatbots;
    switch (command.name) {
      case "help":
        return { text: helpText(t, message.commandSpellings, several), private: true };
      case "unknown":
        return {
          text: [
            t.t("unknownCommand", { command: command.word }),
            helpText(t, message.commandSpellings, several),
          ].join("\n"),
          private: true,
        };
      case "new":
        await this.#options.conversations.forget(message.threadKey);
        return { text: t.t("newConversation"), private: false };
      case "language":
        return command.code === undefined
          ? this.#showLanguage(message, t)
          : this.#setLanguage(message, command.code, t);
      case "leads":
        return this.#leads(command, message, t);
      case "stop":
        return this.#stop(message, t);
      case "feedback":
        return this.#feedback(message, command.days, t);
      case "handback":
        return (
          this.#options.handovers?.handBackCommand(message, t) ?? {
            text: t.t("handBackNone"),
            private: true,
          }
        );
      case "chatbot":
        return command.use === undefined
          ? this.#showChatbot(message, t)
          : this.#useChatbot(message, command.use, t);
    }
  }

  /** The chatbot that answers new conversations in the message's channel. */
  async #channelChatbot(message: IncomingMessage): Promise<{ name: string; chosen: boolean }> {
    const { chatbots, settings } = this.#options;
    const chosen = chatbots.named(await settings.chatbot(message.channelKey));
    return { name: (chosen ?? chatbots.default).name, chosen: chosen !== undefined };
  }

  async #showChatbot(message: IncomingMessage, t: Translator): Promise<CommandReply> {
    const { name, chosen } = await this.#channelChatbot(message);
    const values = {
      chatbot: name,
      list: this.#options.chatbots.names.join(", "),
      command: spelledUsage("/chatbot use <name>", message.commandSpellings),
    };
    return { text: t.t(chosen ? "chatbotShown" : "chatbotShownDefault", values), private: true };
  }

  async #useChatbot(message: IncomingMessage, name: string, t: Translator): Promise<CommandReply> {
    if (!(await message.isAdmin())) return { text: t.t("chatbotAdminOnly"), private: true };
    const { chatbots, settings } = this.#options;
    const chatbot = chatbots.named(name);
    if (!chatbot) return { text: this.#unknownChatbot(name, t), private: true };
    await settings.setChatbot(message.channelKey, chatbot.name);
    const values = {
      chatbot: chatbot.name,
      new: spelledUsage("/new", message.commandSpellings),
    };
    return { text: t.t("chatbotSet", values), private: false };
  }

  #unknownChatbot(name: string, t: Translator): string {
    return t.t("chatbotUnknown", { name, list: this.#options.chatbots.names.join(", ") });
  }

  /** With several chatbots, a reply about the channel's answers says whose they are. */
  async #whose(message: IncomingMessage, t: Translator, text: string): Promise<string> {
    if (!this.#options.chatbots.several) return text;
    const { name } = await this.#channelChatbot(message);
    return [text, t.t("chatbotHere", { chatbot: name })].join("\n");
  }

  async #stop(message: IncomingMessage, t: Translator): Promise<CommandReply> {
    const by: Stopper = {
      id: message.authorId,
      name: message.authorName,
      isAdmin: () => message.isAdmin(),
    };
    const stopped = await this.#options.stops.stopInThread(message.threadKey, by);
    if (stopped.withdrawn > 0) {
      return { text: t.t("questionWithdrawn", { count: stopped.withdrawn }), private: true };
    }
    // A stopped answer says who stopped it in its own last line.
    if (stopped.answer === "stopped") return { text: "", private: true };
    const refused = stopped.answer === "refused" || stopped.refused > 0;
    return { text: t.t(refused ? "stopRefused" : "nothingToStop"), private: true };
  }

  async #feedback(message: IncomingMessage, days: number, t: Translator): Promise<CommandReply> {
    const all = message.adminOfAll === true;
    if (!all && !(await message.isAdmin())) {
      return { text: t.t("feedbackAdminOnly"), private: true };
    }
    const { chatbots } = this.#options;
    const { up, down, byChatbot } = await this.#options.feedback.count(
      days,
      all ? undefined : message.channelKey,
      chatbots.default.name,
    );
    const total = up + down;
    if (total === 0) {
      return { text: t.t(all ? "feedbackNoneAll" : "feedbackNoneHere", { days }), private: true };
    }
    const lines = [
      t.t(all ? "feedbackAll" : "feedbackHere", { days, up, down, share: up / total }),
    ];
    // Whose answers were rated, where the channel's answers may come from several.
    if (chatbots.several) {
      for (const [chatbot, votes] of byChatbot) {
        lines.push(t.t("feedbackOfChatbot", { chatbot, ...votes }));
      }
    }
    return { text: lines.join("\n"), private: true };
  }

  async #showLanguage(message: IncomingMessage, t: Translator): Promise<CommandReply> {
    const stored = await this.#options.settings.language(message.channelKey);
    const language = describe(stored ?? this.#options.defaultLanguage, t);
    const values = { language, command: "/language <code>" };
    const text = t.t(stored ? "languageShown" : "languageShownDefault", values);
    return { text: await this.#whose(message, t, text), private: true };
  }

  async #setLanguage(
    message: IncomingMessage,
    code: LanguageCode,
    t: Translator,
  ): Promise<CommandReply> {
    if (!(await message.isAdmin())) {
      return { text: t.t("languageAdminOnly"), private: true };
    }
    await this.#options.settings.setLanguage(message.channelKey, code);
    const now = await this.#options.languages.translatorFor(
      message.channelKey,
      () => message.authorLocale?.() ?? Promise.resolve(undefined),
    );
    const text =
      code === "auto"
        ? now.t("languageReset", { language: describe(this.#options.defaultLanguage, now) })
        : now.t("languageSet", { language: describe(code, now) });
    return { text: await this.#whose(message, now, text), private: false };
  }

  async #leads(
    command: Extract<Command, { name: "leads" }>,
    message: IncomingMessage,
    t: Translator,
  ): Promise<CommandReply> {
    const leads = this.#options.leads;
    if (!leads) return { text: t.t("leadsNotSetUp"), private: true };
    if (command.action === "list") {
      return { text: await leads.list(message, command.days, t), private: true };
    }
    // Only someone the deployment trusts turns a chat into a lead channel: a chat's own admin
    // may be anyone who created a group or wrote to the bot.
    if (!(await message.isBotAdmin?.())) {
      return { text: t.t("leadsAdminOnly"), private: true };
    }
    if (command.chatbot !== undefined && !this.#options.chatbots.named(command.chatbot)) {
      return { text: this.#unknownChatbot(command.chatbot, t), private: true };
    }
    const said = await leads.subscribe(message, command.action === "subscribe", command.chatbot);
    return { text: t.text(said), private: false };
  }
}

/** "French (fr)", "the language of each question (auto)": a code as the person reads it. */
function describe(code: LanguageCode, t: Translator): UserText {
  return code === "auto"
    ? { key: "languageAuto", values: { code } }
    : { key: "languageNamed", values: { name: t.languageName(code), code } };
}

function helpText(
  t: Translator,
  spellings: IncomingMessage["commandSpellings"],
  chatbots: boolean,
): string {
  const help = chatbots ? [...COMMAND_HELP, ...CHATBOT_HELP] : COMMAND_HELP;
  const usages = help.map(([usage, what]) => [spelled(usage, spellings), what] as const);
  const width = Math.max(...usages.map(([usage]) => usage.length));
  const lines = usages.map(([usage, what]) =>
    t.t("helpLine", { usage: usage.padEnd(width), what }),
  );
  return [t.t("helpIntro"), ...lines].join("\n");
}

/** A problem's usages (`` `/stop` ``) as the platform spells them (`` `@chatbot stop` `` in Slack). */
function spelledValues(text: UserText, spellings: IncomingMessage["commandSpellings"]): UserText {
  if (!spellings || !text.values) return text;
  const values = Object.entries(text.values).map(([name, value]) => {
    const usage = typeof value === "string" && /^`\/.+`$/.exec(value)?.[0].slice(1, -1);
    return [name, usage ? `\`${spelled(usage, spellings)}\`` : value] as const;
  });
  return { ...text, values: Object.fromEntries(values) };
}

/**
 * "/leads [days]" with `/leads` as the platform spells it; unchanged where it has no spelling
 * of its own. A spelling of two words ("chatbot use": Slack's `/chatbot-use`) goes first.
 */
function spelled(usage: string, spellings: IncomingMessage["commandSpellings"]): string {
  const [command = "", ...rest] = usage.split(" ");
  const [next = "", ...after] = rest;
  const twoWords = spellings?.[`${command.slice(1)} ${next}`];
  if (twoWords !== undefined) return [twoWords, ...after].join(" ");
  const spelling = spellings?.[command.slice(1)];
  return spelling === undefined ? usage : [spelling, ...rest].join(" ");
}

/** A usage as a value of a reply: as the platform spells it, in backticks. */
function spelledUsage(usage: string, spellings: IncomingMessage["commandSpellings"]): string {
  return `\`${spelled(usage, spellings)}\``;
}
