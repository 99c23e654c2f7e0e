import { randomUUID } from "node:crypto";
import type { Memory } from "./answers.ts";

export interface Conversation {
  /** The bot it was held with (none in a file of a version that served one). */
  bot?: string;
  turns: number;
  firstQuestion: string;
  previousQuestion: string;
}

// Only the start and the end of a question are needed to show that the bot remembers.
const KEPT_CHARS = 300;

/**
 * The conversations the simulator has seen, oldest evicted first beyond `limit` so a long
 * benchmark cannot grow memory without bound. Ids are made here, never by the client.
 */
export class Conversations {
  readonly #byUid = new Map<string, Conversation>();

  /** `onChange` runs after each change, e.g. to keep the conversations in a file. */
  constructor(
    private readonly limit: number,
    private readonly onChange: () => void = () => undefined,
  ) {}

  /** Takes back conversations an earlier run kept (`entries()`), oldest first. */
  restore(entries: Iterable<[string, Conversation]>): void {
    for (const [uid, conversation] of entries) this.#remember(uid, conversation);
  }

  /** Every conversation, least recently used first. */
  entries(): [string, Conversation][] {
    return [...this.#byUid];
  }

  /** Whether `bot` holds the conversation `uid` (another bot's is none of its own). */
  has(uid: string, bot?: string): boolean {
    return this.#of(uid, bot) !== undefined;
  }

  /** Number of questions asked in the conversation so far; undefined when unknown. */
  turns(uid: string): number | undefined {
    return this.#byUid.get(uid)?.turns;
  }

  /**
   * Records `question` in the conversation `uid` of `bot` (a new one, with a new id, when
   * `uid` is undefined or unknown to that bot) and says what the bot remembers of it.
   */
  ask(uid: string | undefined, question: string, bot?: string): { uid: string; memory: Memory } {
    const kept = question.slice(0, KEPT_CHARS);
    const known = uid === undefined ? undefined : this.#of(uid, bot);
    if (uid === undefined || known === undefined) {
      const fresh = randomUUID();
      const held = { turns: 1, firstQuestion: kept, previousQuestion: kept };
      this.#remember(fresh, bot === undefined ? held : { bot, ...held });
      this.onChange();
      const memory = {
        turn: 1,
        firstQuestion: undefined,
        previousQuestion: undefined,
        forgotten: uid !== undefined,
      };
      return { uid: fresh, memory };
    }
    const memory = {
      turn: known.turns + 1,
      firstQuestion: known.firstQuestion,
      previousQuestion: known.previousQuestion,
      forgotten: false,
    };
    known.turns += 1;
    known.previousQuestion = kept;
    // Re-inserted so eviction drops the least recently used conversation.
    this.#byUid.delete(uid);
    this.#byUid.set(uid, known);
    this.onChange();
    return { uid, memory };
  }

  #of(uid: string, bot: string | undefined): Conversation | undefined {
    const known = this.#byUid.get(uid);
    return known && (known.bot === undefined || known.bot === bot) ? known : undefined;
  }

  clear(): void {
    this.#byUid.clear();
    this.onChange();
  }

  #remember(uid: string, conversation: Conversation): void {
    this.#byUid.set(uid, conversation);
    if (this.#byUid.size > this.limit) {
      const oldest = this.#byUid.keys().next();
      if (!oldest.done) this.#byUid.delete(oldest.value);
    }
  }
}
