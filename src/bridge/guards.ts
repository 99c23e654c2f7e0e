import type { GuardConfig } from "../config.ts";
import type { Coordination } from "../coordination/port.ts";
import type { TokenBucket } from "../coordination/token-bucket.ts";
import type { UserText } from "../i18n/messages.ts";
import type { IncomingMessage } from "../ports.ts";

/**
 * Checks a message before it costs a backend call. Each check returns the sentence to show
 * the person when the message is refused (said in their language), undefined when it may go
 * ahead.
 */
export class QuestionGuards {
  readonly #config: GuardConfig;
  readonly #allowedChannels: ReadonlySet<string>;
  readonly #allowedUsers: ReadonlySet<string>;
  readonly #store: Coordination;
  // A bucket per user in the store: on Redis every process counts the same questions. A
  // user may ask the whole allowance at once, then one more each window ÷ allowance.
  readonly #perUser: TokenBucket | undefined;

  constructor(config: GuardConfig, store: Coordination) {
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
  accessRefusal(message: IncomingMessage): UserText | undefined {
    if (this.#allowedChannels.size > 0 && !this.#allowedChannels.has(message.channelId)) {
      return { key: "channelNotEnabled" };
    }
    if (this.#allowedUsers.size > 0 && !this.#allowedUsers.has(message.authorId)) {
      return { key: "userNotAllowed" };
    }
    return undefined;
  }

  /** Length and rate, for questions to the chatbot. */
  async questionRefusal(message: IncomingMessage): Promise<UserText | undefined> {
    if (message.text.trim() === "") return { key: "emptyQuestion" };
    if (message.text.length > this.#config.maxQuestionChars) {
      return {
        key: "questionTooLong",
        values: { length: message.text.length, limit: this.#config.maxQuestionChars },
      };
    }
    return this.#rateLimit(`${message.channel}:${message.authorId}`);
  }

  async #rateLimit(user: string): Promise<UserText | undefined> {
    if (!this.#perUser) return undefined;
    // A store that fails lets the question through: the limit guards cost, and the answer
    // itself then meets the same store.
    const { waitMs } = await this.#store
      .drawToken(`ratelimit:${user}`, this.#perUser)
      .catch(() => ({ waitMs: 0 }));
    if (waitMs === 0) return undefined;
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    return {
      key: "slowDown",
      values: {
        count: this.#config.rateLimitQuestions,
        window: this.#config.rateLimitWindowSeconds,
        seconds,
      },
    };
  }
}
