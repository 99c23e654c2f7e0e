import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { GuardConfig } from "../config.ts";
import type { IncomingMessage } from "./ports.ts";

/**
 * Checks a message before it costs a backend call. Each check returns the sentence to show
 * the person when the message is refused, undefined when it may go ahead.
 */
export class QuestionGuards {
  readonly #config: GuardConfig;
  readonly #allowedChannels: ReadonlySet<string>;
  readonly #allowedUsers: ReadonlySet<string>;
  // Per process: with several processes a user gets the limit once per process, which
  // still bounds the cost; the backend's own limits are not published.
  readonly #limiter: RateLimiterMemory | undefined;

  constructor(config: GuardConfig) {
    this.#config = config;
    this.#allowedChannels = new Set(config.allowedChannels);
    this.#allowedUsers = new Set(config.allowedUsers);
    this.#limiter =
      config.rateLimitQuestions > 0
        ? new RateLimiterMemory({
            points: config.rateLimitQuestions,
            duration: config.rateLimitWindowSeconds,
          })
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
    if (!this.#limiter) return undefined;
    try {
      await this.#limiter.consume(user);
      return undefined;
    } catch (result) {
      if (!(result instanceof RateLimiterRes)) throw result;
      const seconds = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
      return `Slow down: you asked ${this.#config.rateLimitQuestions} questions in ${this.#config.rateLimitWindowSeconds} s. Try again in ${seconds} s.`;
    }
  }
}
