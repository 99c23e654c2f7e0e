import { en } from "../../src/i18n/catalog/en.ts";
import { END_STAMP, STAMP } from "./stamp-backend.ts";
import { epochMs } from "./stats.ts";

/** One answer as a fake platform saw it arrive, times in the fake's epoch ms. */
export interface SeenAnswer {
  key: string;
  /** The first call of any kind for it (a typing action, a placeholder). */
  firstCallAt: number;
  /** The first call whose text held the backend's first-chunk stamp, and that stamp. */
  firstTextAt?: number;
  startStamp?: number;
  /** The backend's end-of-stream stamp, once a call carried it. */
  endStamp?: number;
  /** The call that closed the answer for good (persisted it, stopped its stream). */
  finalAt?: number;
  /** Calls that showed text: posts, edits, drafts, stream appends. */
  textCalls: number;
}

const PLACE_IN_LINE = en.numberInLine.slice(0, en.numberInLine.indexOf("{"));

/**
 * Whether `text` is the bot's notice of a question's place in the queue (English): the
 * answer comes later in the same message, so the notice, unlike an error note, closes nothing.
 */
export function isPlaceInLine(text: string): boolean {
  // Telegram's rich messages carry it as HTML (`<p>⏳ …</p>`).
  return text.includes(PLACE_IN_LINE);
}

/** What the fake platforms saw during a run. */
export interface PlatformReport {
  answers: SeenAnswer[];
  /** Calls by method, and 429s answered by method. */
  calls: Record<string, number>;
  rateLimited: Record<string, number>;
  /** The most Telegram messages sent for good (sendMessage) within one wall-clock second. */
  peakTelegramSendsPerSecond: number;
  cpuMs: number;
}

/**
 * The fake platforms' record of answers. Each conversation of the bench carries one answer
 * at a time, so a call belongs to the conversation's open answer, or opens the next one once
 * the previous was closed. The stamps the backend wrote into the text say when the first and
 * last chunk left it.
 */
export class AnswerLog {
  #answers: SeenAnswer[] = [];
  readonly #open = new Map<string, SeenAnswer>();
  #calls: Record<string, number> = {};
  #rateLimited: Record<string, number> = {};
  #sendsBySecond = new Map<number, number>();
  readonly #onFinal: (key: string) => void;

  constructor(onFinal: (key: string) => void) {
    this.#onFinal = onFinal;
  }

  /**
   * A call that reached the platform (and was not refused). `text`: what it shows, if it
   * carries text. `closing`: "complete" for a call that leaves the message as it stays (a
   * sent message, an edit, a stopped stream): it closes the answer once the last chunk has
   * been shown; "now" for an error note, which closes it whatever was shown.
   */
  record(
    key: string,
    method: string,
    text: string | undefined,
    closing: "no" | "complete" | "now",
  ): void {
    const at = epochMs();
    this.countCall(method);
    let answer = this.#open.get(key);
    if (!answer) {
      answer = { key, firstCallAt: at, textCalls: 0 };
      this.#open.set(key, answer);
      this.#answers.push(answer);
    }
    if (text !== undefined) {
      answer.textCalls++;
      const start = answer.firstTextAt === undefined ? STAMP.exec(text)?.[1] : undefined;
      if (start !== undefined) {
        answer.firstTextAt = at;
        answer.startStamp = Number(start);
      }
      const end = answer.endStamp === undefined ? END_STAMP.exec(text)?.[1] : undefined;
      if (end !== undefined) answer.endStamp = Number(end);
    }
    if (closing === "now" || (closing === "complete" && answer.endStamp !== undefined)) {
      answer.finalAt = at;
      this.#open.delete(key);
      this.#onFinal(key);
    }
  }

  /** Whether the conversation's open answer has shown the backend's first chunk. */
  shownFirstText(key: string): boolean {
    return this.#open.get(key)?.firstTextAt !== undefined;
  }

  /** A call that belongs to no answer's text (deleting a placeholder, a status). */
  countCall(method: string): void {
    this.#calls[method] = (this.#calls[method] ?? 0) + 1;
  }

  /** A Telegram message sent for good, counted per second for the peak rate. */
  countTelegramSend(): void {
    const second = Math.floor(epochMs() / 1000);
    this.#sendsBySecond.set(second, (this.#sendsBySecond.get(second) ?? 0) + 1);
  }

  rateLimited(method: string): void {
    this.#rateLimited[method] = (this.#rateLimited[method] ?? 0) + 1;
  }

  report(): PlatformReport {
    const cpu = process.cpuUsage();
    return {
      answers: this.#answers,
      calls: this.#calls,
      rateLimited: this.#rateLimited,
      peakTelegramSendsPerSecond: Math.max(0, ...this.#sendsBySecond.values()),
      cpuMs: (cpu.user + cpu.system) / 1000,
    };
  }

  /** Forgets everything seen so far (after the warm-up). */
  reset(): void {
    this.#answers = [];
    this.#open.clear();
    this.#calls = {};
    this.#rateLimited = {};
    this.#sendsBySecond = new Map();
  }
}
