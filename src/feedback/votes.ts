import { z } from "zod";
import type { KeyValueStore } from "../store/types.ts";

/** 👍 or 👎. */
export type Rating = "up" | "down";

/** An answer that can be rated: what its votes are recorded with. Never the question's text. */
export interface RatedAnswer {
  /** "slack", "telegram", "console". */
  platform: string;
  /** The channel (IncomingMessage.channelKey). */
  channelKey: string;
  /** The chatbot's conversation the answer belongs to, when it named one. */
  conversationUid?: string | undefined;
  /** The name of the chatbot that answered (none in records of a version with one chatbot). */
  chatbot?: string | undefined;
  /** When the question was asked (ISO 8601, UTC). */
  questionAt: string;
}

export interface VoteCount {
  up: number;
  down: number;
}

/** One person's vote on one answer, as recorded and exported. */
export interface VoteRecord extends RatedAnswer {
  answerId: string;
  rating: Rating;
  /** When the vote was cast or last changed (ISO 8601, UTC). */
  votedAt: string;
}

export type VoteOutcome =
  | { kind: "recorded"; changed: boolean; previous: Rating | undefined }
  | { kind: "unknown-answer" };

const ratedAnswer = z.object({
  platform: z.string(),
  channelKey: z.string(),
  conversationUid: z.string().optional(),
  chatbot: z.string().optional(),
  questionAt: z.iso.datetime(),
});

const voteRecord = ratedAnswer.extend({
  answerId: z.string(),
  rating: z.enum(["up", "down"]),
  votedAt: z.iso.datetime(),
});

export const MAX_FEEDBACK_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Votes on answers, kept in the store: one map per day (of the question), with one field per
 * answer and voter, so a changed vote replaces the voter's earlier one and `/feedback` or the
 * export reads a day range without scanning keys. Records stay; an answer can be rated for
 * MAX_FEEDBACK_DAYS.
 */
export class FeedbackVotes {
  readonly #store: KeyValueStore;
  readonly #now: () => Date;

  constructor(store: KeyValueStore, now: () => Date = () => new Date()) {
    this.#store = store;
    this.#now = now;
  }

  /** Makes a finished answer ratable: its votes are recorded with `answer`. */
  async remember(answerId: string, answer: RatedAnswer): Promise<void> {
    await this.#store.set(answerKey(answerId), storable(answer), MAX_FEEDBACK_DAYS * DAY_MS);
  }

  /**
   * Records `voterId`'s vote on an answer, pressed in `channelKey`, replacing their earlier
   * one. The id came back from a client: an answer of another channel is unknown.
   */
  async vote(
    answerId: string,
    channelKey: string,
    voterId: string,
    rating: Rating,
  ): Promise<VoteOutcome> {
    const parsed = ratedAnswer.safeParse(await this.#store.get(answerKey(answerId)));
    if (!parsed.success || parsed.data.channelKey !== channelKey) return { kind: "unknown-answer" };
    const record: VoteRecord = {
      ...parsed.data,
      answerId,
      rating,
      votedAt: this.#now().toISOString(),
    };
    const day = parsed.data.questionAt.slice(0, 10);
    const before = voteRecord.safeParse(
      await this.#store.putInMap(
        dayKey(day),
        `${answerId}:${voterId}`,
        storable(record),
        // A day's votes are read for MAX_FEEDBACK_DAYS after it (one more: the day itself).
        (MAX_FEEDBACK_DAYS + 1) * DAY_MS,
      ),
    );
    const previous = before.success ? before.data.rating : undefined;
    return { kind: "recorded", changed: previous !== undefined, previous };
  }

  /** Every vote on questions asked since `since`, oldest day first. */
  async since(since: Date): Promise<VoteRecord[]> {
    const days: string[] = [];
    const today = this.#now();
    for (let day = startOfDay(since); day <= today.getTime(); day += DAY_MS) {
      days.push(new Date(day).toISOString().slice(0, 10));
    }
    const maps = await Promise.all(days.map((day) => this.#store.mapEntries(dayKey(day))));
    const records: VoteRecord[] = [];
    for (const map of maps) {
      for (const value of Object.values(map)) {
        const parsed = voteRecord.safeParse(value);
        if (parsed.success && Date.parse(parsed.data.questionAt) >= since.getTime()) {
          records.push(parsed.data);
        }
      }
    }
    return records;
  }

  /**
   * 👍 and 👎 on questions of the last `days`, in one channel or (`channelKey` undefined) all,
   * and the same by the chatbot that answered (`unnamed` for a record that names none).
   */
  async count(
    days: number,
    channelKey: string | undefined,
    unnamed = "",
  ): Promise<VoteCount & { byChatbot: Map<string, VoteCount> }> {
    const since = new Date(this.#now().getTime() - days * DAY_MS);
    const counts = { up: 0, down: 0, byChatbot: new Map<string, VoteCount>() };
    for (const record of await this.since(since)) {
      if (channelKey !== undefined && record.channelKey !== channelKey) continue;
      counts[record.rating]++;
      const chatbot = record.chatbot ?? unnamed;
      const its = counts.byChatbot.get(chatbot) ?? { up: 0, down: 0 };
      its[record.rating]++;
      counts.byChatbot.set(chatbot, its);
    }
    return counts;
  }
}

function startOfDay(time: Date): number {
  return Date.UTC(time.getUTCFullYear(), time.getUTCMonth(), time.getUTCDate());
}

/** JSON has no undefined: an answer without a conversation (or chatbot) is stored without it. */
function storable<T extends RatedAnswer>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

const answerKey = (answerId: string) => `feedback:answer:${answerId}`;
const dayKey = (day: string) => `feedback:votes:${day}`;
