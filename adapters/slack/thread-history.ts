import type { webApi } from "@slack/bolt";
import { z } from "zod";
import { RateLimitedError } from "../../src/errors.ts";
import type { Discussion, EarlierMessage, IncomingMessage } from "../../src/ports.ts";
import { SlackApiError, slackErrorOf, toBridgeError } from "./api.ts";
import { mentionedUsers, slackTextToPlain } from "./escape.ts";
import { REPLIES_PAGE_SIZE } from "./limits.ts";
import { nameOf, type SlackIdentity, userProfile } from "./to-incoming.ts";

/** Where a question was asked: its thread, its own ts, and whether in the bot's DM. */
export interface AskedIn {
  teamId: string;
  channel: string;
  threadTs: string;
  ts: string;
  /** Who asked. */
  userId: string;
  /** In the bot's DM: only the asker's own messages may go to the chatbot. */
  dm: boolean;
  /** Who wrote the thread's first message, when Slack says. */
  parentUserId: string | undefined;
}

/** How Slack names a person (users.info, cached: SlackAdmins). */
export interface People {
  name(userId: string): Promise<string | undefined>;
}

/**
 * The fields of a conversations.replies message the bot reads.
 * https://docs.slack.dev/reference/methods/conversations.replies
 */
const threadMessage = z.looseObject({
  subtype: z.string().optional(),
  ts: z.string(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  username: z.string().optional(),
  bot_profile: z.looseObject({ name: z.string().optional() }).optional(),
  user_profile: userProfile,
  text: z.string().optional(),
});

type ThreadMessage = z.infer<typeof threadMessage>;

const repliesPage = z.looseObject({ messages: z.array(z.unknown()).default([]) });

/**
 * Subtypes that are still something said in the thread: a person's (a file shared, a reply
 * also sent to the channel, a /me) or another app's. Joins, topic changes and the like are not.
 */
const SAID = new Set(["thread_broadcast", "file_share", "me_message", "bot_message"]);

/** Slackbot, whose notices are no part of a discussion. */
const SLACKBOT = "USLACKBOT";

/** The messages of a thread before a question, as Slack's conversations.replies lists them. */
export class ThreadHistory {
  readonly #client: webApi.WebClient;
  readonly #people: People;
  /** Workspaces whose conversations.replies answered 429, with when they may be asked again. */
  readonly #quietUntil = new Map<string, number>();

  constructor(client: webApi.WebClient, people: People) {
    this.#client = client;
    this.#people = people;
  }

  /**
   * The discussion a question asked as a reply in a thread was asked in: the thread's earlier
   * messages (the bot's own left out; in its DM the asker's own only). None for a message that
   * starts its thread (nothing came before it there), nor in the bot's DM for a thread under
   * the bot's own message (its greeting): every message of the asker's there was answered, so
   * reading it would spend a call (one a minute for an unlisted app) on nothing.
   */
  discussionOf(at: AskedIn, identity: SlackIdentity): IncomingMessage["discussion"] {
    if (at.threadTs === at.ts) return undefined;
    if (at.dm && at.parentUserId === identity.userId) return undefined;
    return (maxMessages, signal) => this.#read(at, identity, maxMessages, signal);
  }

  async #read(
    at: AskedIn,
    identity: SlackIdentity,
    maxMessages: number,
    signal: AbortSignal,
  ): Promise<Discussion> {
    // After a 429 the workspace is not asked again until Slack's Retry-After has passed.
    const quietFor = (this.#quietUntil.get(at.teamId) ?? 0) - performance.now();
    if (quietFor > 0) throw new RateLimitedError(quietFor);
    const kept: ThreadMessage[] = [];
    try {
      const pages = this.#client.paginate("conversations.replies", {
        channel: at.channel,
        ts: at.threadTs,
        // Only what came before the question: `latest` is exclusive unless `inclusive`.
        latest: at.ts,
        limit: REPLIES_PAGE_SIZE,
      });
      // Oldest first, page by page: only the latest `maxMessages` said are kept.
      for await (const page of pages) {
        signal.throwIfAborted();
        for (const raw of repliesPage.safeParse(page).data?.messages ?? []) {
          const parsed = threadMessage.safeParse(raw);
          if (parsed.success && this.#belongs(parsed.data, at, identity)) kept.push(parsed.data);
        }
        kept.splice(0, Math.max(0, kept.length - maxMessages));
      }
    } catch (error) {
      if (signal.aborted) throw error;
      // No such thread (its first message deleted): nothing to carry, and nothing to fix.
      if (slackErrorOf(error) === "thread_not_found") return { kind: "thread", messages: [] };
      throw this.#failure(at, error);
    }
    const messages = await Promise.all(kept.map((message) => this.#told(message, identity)));
    return { kind: "thread", messages: messages.filter((message) => message.text !== "") };
  }

  /** Whether a message of the thread goes to the chatbot with the question. */
  #belongs(message: ThreadMessage, at: AskedIn, identity: SlackIdentity): boolean {
    if (message.ts === at.ts || !message.text) return false;
    if (message.subtype !== undefined && !SAID.has(message.subtype)) return false;
    // The bot's own messages: its answers are the chatbot's words, not the people's, and the
    // rest (a greeting, a lead card) are not what was discussed.
    if (message.user === identity.userId || message.bot_id === identity.botId) return false;
    if (message.user === SLACKBOT) return false;
    return !at.dm || message.user === at.userId;
  }

  /** The message as the chatbot reads it: its author's name, and names for its mentions. */
  async #told(message: ThreadMessage, identity: SlackIdentity): Promise<EarlierMessage> {
    const text = message.text ?? "";
    const ids = mentionedUsers(text).filter((id) => id !== identity.userId);
    const found = await Promise.all(ids.map((id) => this.#nameOf(id)));
    const names = new Map(ids.flatMap((id, i) => (found[i] ? [[id, found[i]] as const] : [])));
    return {
      author: await this.#authorOf(message),
      text: slackTextToPlain(text, identity.userId, names),
    };
  }

  async #authorOf(message: ThreadMessage): Promise<string> {
    if (message.user === undefined) {
      return message.bot_profile?.name || message.username || "app";
    }
    return nameOf(message.user_profile) ?? (await this.#nameOf(message.user)) ?? message.user;
  }

  /** A person's name; a lookup that fails leaves them named by their id, as a mention is. */
  #nameOf(userId: string): Promise<string | undefined> {
    return this.#people.name(userId).catch(() => undefined);
  }

  /** What a failed page means: a 429 quiets the workspace for its Retry-After. */
  #failure(at: AskedIn, error: unknown): Error {
    const mapped = toBridgeError("conversations.replies", at.channel, error);
    if (mapped instanceof RateLimitedError) {
      this.#quietUntil.set(at.teamId, performance.now() + mapped.retryAfterMs);
      return mapped;
    }
    // Slack's reason alone, not the channel: the log says it once for every channel alike.
    return new SlackApiError("conversations.replies", slackErrorOf(error), error);
  }
}
