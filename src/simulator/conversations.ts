import { randomUUID } from "node:crypto";
import type { Memory } from "./answers.ts";

export interface Conversation {
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

  has(uid: string): boolean {
    return this.#byUid.has(uid);
  }

  /** Number of questions asked in the conversation so far; undefined when unknown. */
  turns(uid: string): number | undefined {
    return this.#byUid.get(uid)?.turns;
  }

  /**
   * Records `question` in the conversation `uid` (a new one, with a new id, when `uid` is
   * undefined or unknown) and says what the bot remembers of it.
   */
  ask(uid: string | undefined, question: string): { uid: string; memory: Memory } {
    const kept = question.slice(0, KEPT_CHARS);
    const known = uid === undefined ? undefined : this.#byUid.get(uid);
    if (uid === undefined || known === undefined) {
      const fresh = randomUUID();
      this.#remember(fresh, { turns: 1, firstQuestion: kept, previousQuestion: kept });
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
