import { LANGUAGES, type LanguageCode } from "../backend/languages.ts";
import type { FeedbackVotes } from "../feedback/votes.ts";
import type { IncomingMessage } from "../ports.ts";
import type { ChannelSettings, Conversations } from "../store/repositories.ts";
import type { AnswerStops } from "./answer-stops.ts";
import { COMMAND_HELP, type Command, type CommandProblem, isCommandProblem } from "./commands.ts";
import {
  feedbackAdminsOnly,
  feedbackSummary,
  nothingToStop,
  stopRefused,
} from "./stop-feedback-texts.ts";

/** Answers `/leads …`; provided by the leads feature where lead channels are set up. */
export interface LeadsCommands {
  list(message: IncomingMessage, days: number): Promise<string>;
  subscribe(message: IncomingMessage, on: boolean): Promise<string>;
}

export interface CommandReply {
  /** "": nothing to say (what the command did shows for itself). */
  text: string;
  /** Only the asker needs it (shown privately where the platform can). */
  private: boolean;
}

export interface CommandHandlerOptions {
  conversations: Conversations;
  settings: ChannelSettings;
  defaultLanguage: LanguageCode;
  leads?: LeadsCommands | undefined;
  stops: AnswerStops;
  feedback: FeedbackVotes;
}

/** Runs the bot's own commands and says what to reply. Nothing here calls the chatbot. */
export class CommandHandler {
  readonly #options: CommandHandlerOptions;

  constructor(options: CommandHandlerOptions) {
    this.#options = options;
  }

  async run(command: Command | CommandProblem, message: IncomingMessage): Promise<CommandReply> {
    if (isCommandProblem(command)) return { text: command.problem, private: true };
    switch (command.name) {
      case "help":
        return { text: helpText(), private: true };
      case "unknown":
        return { text: `Unknown command ${command.word}.\n${helpText()}`, private: true };
      case "new":
        await this.#options.conversations.forget(message.threadKey);
        return {
          text: "Starting fresh: your next question begins a new conversation.",
          private: false,
        };
      case "language":
        return command.code === undefined
          ? this.#showLanguage(message)
          : this.#setLanguage(message, command.code);
      case "leads":
        return this.#leads(command, message);
      case "stop":
        return this.#stop(message);
      case "feedback":
        return this.#feedback(message, command.days);
    }
  }

  async #stop(message: IncomingMessage): Promise<CommandReply> {
    const outcome = await this.#options.stops.stopInThread(message.threadKey, {
      id: message.authorId,
      name: message.authorName,
      isAdmin: () => message.isAdmin(),
    });
    // A stopped answer says who stopped it in its own last line.
    if (outcome === "stopped") return { text: "", private: true };
    return { text: outcome === "refused" ? stopRefused() : nothingToStop(), private: true };
  }

  async #feedback(message: IncomingMessage, days: number): Promise<CommandReply> {
    const all = message.adminOfAll === true;
    if (!all && !(await message.isAdmin())) return { text: feedbackAdminsOnly(), private: true };
    const counts = await this.#options.feedback.count(days, all ? undefined : message.channelKey);
    return { text: feedbackSummary({ ...counts, days, all }), private: true };
  }

  async #showLanguage(message: IncomingMessage): Promise<CommandReply> {
    const stored = await this.#options.settings.language(message.channelKey);
    const code = stored ?? this.#options.defaultLanguage;
    const origin = stored ? "" : " (the default)";
    return {
      text: `Answers here are in ${describe(code)}${origin}. Admins can change it with /language <code>.`,
      private: true,
    };
  }

  async #setLanguage(message: IncomingMessage, code: LanguageCode): Promise<CommandReply> {
    if (!(await message.isAdmin())) {
      return {
        text: "Only an admin of this channel can change the answer language.",
        private: true,
      };
    }
    await this.#options.settings.setLanguage(message.channelKey, code);
    const text =
      code === "auto"
        ? `Answer language reset: answers here are in ${describe(this.#options.defaultLanguage)}.`
        : `Answers here are now in ${describe(code)}.`;
    return { text, private: false };
  }

  async #leads(
    command: Extract<Command, { name: "leads" }>,
    message: IncomingMessage,
  ): Promise<CommandReply> {
    const leads = this.#options.leads;
    if (!leads) return { text: "Lead announcements are not set up for this bot.", private: true };
    if (command.action === "list") {
      return { text: await leads.list(message, command.days), private: true };
    }
    if (!(await message.isAdmin())) {
      return {
        text: "Only an admin of this channel can change lead announcements.",
        private: true,
      };
    }
    return { text: await leads.subscribe(message, command.action === "subscribe"), private: false };
  }
}

function describe(code: LanguageCode): string {
  return code === "auto" ? "the language of each question (auto)" : `${LANGUAGES[code]} (${code})`;
}

function helpText(): string {
  const width = Math.max(...COMMAND_HELP.map(([usage]) => usage.length));
  const lines = COMMAND_HELP.map(([usage, what]) => `${usage.padEnd(width)}  ${what}`);
  return ["Ask me anything, or use a command:", ...lines].join("\n");
}
