import type { GuardConfig } from "../config.ts";
import type { TokenBucket } from "../coordination/token-bucket.ts";
import type { IncomingMessage } from "../ports.ts";
import type { KeyValueStore } from "../store/types.ts";

/**
 * Checks a message before it costs a backend call. Each check returns the sentence to show
 * the person when the message is refused, undefined when it may go ahead.
 */
export class QuestionGuards {
  readonly #config: GuardConfig;
  readonly #allowedChannels: ReadonlySet<string>;
  readonly #allowedUsers: ReadonlySet<string>;
  readonly #store: KeyValueStore;
  // A bucket per user in the store: on Redis every process counts the same questions. A
  // user may ask the whole allowance at once, then one more each window ÷ allowance.
  readonly #perUser: TokenBucket | undefined;

  constructor(config: GuardConfig, store: KeyValueStore) {
    this.#config = config;
    this.#allowedChannels = new Set(config.allowedChannels);
    this.#allowedUsers = new Set(config.allowedUsers);
    this.#store = store;
    this.#perUser =
      config.rateLimitQuestions > 0
        ? {
            intervalMs: (config.rateLimitWindowSeconds * 1000) / config.rateLimitQuestions,
            burst: config.rateLimitQuestions,
          }
        : undefined;
  }

  /** The allowlists, for every message (commands too). */
  accessRefusal(message: IncomingMessage): string | undefined {
    if (this.#allowedChannels.size > 0 && !this.#allowedChannels.has(message.channelId)) {
      return "This bot is not enabled in this channel.";
    }
    if (this.#allowedUsers.size > 0 && !this.#allowedUsers.has(message.authorId)) {
      return "Sorry, you are not on the list of people who may use this bot.";
    }
    return undefined;
  }

  /** Length and rate, for questions to the chatbot. */
  async questionRefusal(message: IncomingMessage): Promise<string | undefined> {
    if (message.text.trim() === "") return "Please write a question.";
    if (message.text.length > this.#config.maxQuestionChars) {
      return `Your question is ${message.text.length} characters long; the limit is ${this.#config.maxQuestionChars}. Please shorten it.`;
    }
    return this.#rateLimit(`${message.channel}:${message.authorId}`);
  }

  async #rateLimit(user: string): Promise<string | undefined> {
    if (!this.#perUser) return undefined;
    // A store that fails lets the question through: the limit guards cost, and the answer
    // itself then meets the same store.
    const waitMs = await this.#store.drawToken(`ratelimit:${user}`, this.#perUser).catch(() => 0);
    if (waitMs === 0) return undefined;
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    return `Slow down: you may ask ${this.#config.rateLimitQuestions} questions in ${this.#config.rateLimitWindowSeconds} s. Try again in ${seconds} s.`;
  }
}
