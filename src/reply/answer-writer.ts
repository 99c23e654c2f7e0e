import { setTimeout as sleep } from "node:timers/promises";
import { MessageGoneError, RateLimitedError } from "../errors.ts";
import type { MessageRef, MessageSource, ReplySurface } from "../ports.ts";
import { InvisibleCharFilter } from "./invisible-chars.ts";
import { splitToFit } from "./split.ts";

export interface AnswerWriterOptions {
  /** Longest answer shown; the rest is dropped and a "(truncated)" note added. */
  maxAnswerChars: number;
  /** A message already posted for this answer (a "queued" notice) that the answer replaces. */
  placeholder?: { ref: MessageRef; rendered: string } | undefined;
  /** How often a typing indicator is repeated until the first text shows. */
  typingIntervalMs?: number;
  /** Called once, when the first answer text has reached the platform. */
  onFirstText?: (() => void) | undefined;
  /** Called once, when the first message of this answer is on screen. */
  onFirstPost?: (() => void) | undefined;
  /** Called after every successful post or edit, and for every rate-limit answer. */
  onCall?: ((kind: "post" | "edit" | "rate-limited") => void) | undefined;
  /** Failed calls (other than rate limits) tolerated before the writer gives up. */
  maxFailures?: number;
}

/** How the answer ended, for the final note. */
export type AnswerEnd =
  | { kind: "complete" }
  /** Cut by a failure after some text: `note` says why. */
  | { kind: "cut"; note: string }
  /** Failed before any text: `note` is the readable error. */
  | { kind: "error"; note: string };

export interface AnswerSummary {
  messages: number;
  calls: number;
  truncated: boolean;
}

interface OutgoingMessage {
  ref?: MessageRef;
  /** What the platform shows now. */
  shown?: string;
  /** What it should show; frozen once the answer continued in a next message. */
  wanted?: string;
  /** What `wanted` was rendered from, for surfaces that stream Markdown natively. */
  source?: MessageSource;
  frozen: boolean;
  /** The platform was told this message's text is final (persist a draft, stop a stream). */
  finalized?: boolean;
  /** When it was last shown (performance.now()), for surfaces whose messages lapse. */
  shownAt?: number;
}

/** Which line of a shared budget a call waits in (see CallBudget.acquire). */
interface Turn {
  first: boolean;
  urgent: boolean;
}

const NO_ANSWER = "(no answer)";
const TRUNCATED = "(truncated)";
const WORKING = "…";

/**
 * Shows one answer growing in place on a reply surface. Text is appended as it streams;
 * a single loop sends at most one platform call at a time, always with the latest text, no
 * more often than the surface allows, so a burst of small chunks costs a handful of edits.
 * The first text goes out at once (leading edge), ahead of other answers' calls in a shared
 * budget; the final text ahead of routine edits, within one edit interval of `finish` (at
 * once where the end is no edit: a stream's stop, a draft sent for good). A message that
 * outgrows the platform's limit is frozen and the answer goes on in a new one; one that would
 * lapse unchanged (a draft) is shown again in time by the same loop. Every message the writer
 * posted ends with real content or a note.
 */
export class AnswerWriter {
  readonly #surface: ReplySurface;
  readonly #options: AnswerWriterOptions;
  readonly #messages: OutgoingMessage[] = [];
  // The backend's text is made safe as it arrives, so every platform shows the same text.
  readonly #invisible = new InvisibleCharFilter();
  #text = "";
  #truncated = false;
  #end: AnswerEnd | undefined;
  /** Markdown of the current (last) message = #tailPrefix + #text.slice(#tailStart). */
  #tailStart = 0;
  #tailPrefix = "";
  #textShown = false;
  #lastCallAt = Number.NEGATIVE_INFINITY;
  #pausedUntil = 0;
  #calls = 0;
  #failures = 0;
  #wake: (() => void) | undefined;
  #loop: Promise<void> | undefined;
  // Rendering is most of an answer's CPU: the layout is redone only when the text or the end
  // changed, and a Markdown string is rendered once however often it is measured.
  #version = 0;
  #laidOutVersion = -1;
  #rendered: { markdown: string; output: string } | undefined;
  #budgetWait: AbortController | undefined;
  // Made only for surfaces that show typing: aborting one costs an exception object per answer.
  #stopTyping: AbortController | undefined;
  /** Ends the wait for the edit interval early (the answer ended meanwhile). */
  #cutWait: (() => void) | undefined;
  /** Changes the budget's places kept for this answer's first and final texts. */
  #reserved: ((calls: number) => void) | undefined;

  constructor(surface: ReplySurface, options: AnswerWriterOptions) {
    this.#surface = surface;
    this.#options = { ...options, onFirstPost: once(options.onFirstPost) };
    if (options.placeholder) {
      this.#messages.push({
        ref: options.placeholder.ref,
        shown: options.placeholder.rendered,
        frozen: false,
      });
    }
  }

  /** Shows that the bot is working and starts the send loop. */
  start(): void {
    if (this.#messages.length === 0) {
      if (this.#surface.showTyping) this.#keepTyping(this.#surface.showTyping.bind(this.#surface));
      else
        this.#messages.push({
          wanted: this.#surface.renderer.note(WORKING),
          source: { markdown: "", note: WORKING },
          frozen: false,
        });
    }
    // Its first and final texts: others' routine edits leave room for them.
    this.#reserved = this.#surface.budget?.reserve?.(2);
    this.#loop = this.#run();
    // Awaited in finish(); until then a failure must not count as an unhandled rejection.
    this.#loop.catch(() => undefined);
  }

  /**
   * Adds streamed text, without the characters that would hide or reorder what a reader sees.
   * Returns false once the answer reached its cap: stop reading.
   */
  append(piece: string): boolean {
    if (this.#truncated || this.#end) return false;
    const text = this.#invisible.push(piece);
    const room = this.#options.maxAnswerChars - this.#text.length;
    if (text.length > room) {
      this.#text += text.slice(0, graphemeCut(text, room));
      this.#truncated = true;
    } else {
      this.#text += text;
    }
    this.#version++;
    this.#wake?.();
    return !this.#truncated;
  }

  /** The answer is over: sends what remains and resolves once the platform shows it. */
  async finish(end: AnswerEnd): Promise<AnswerSummary> {
    this.#end = end;
    this.#version++;
    this.#budgetWait?.abort();
    this.#cutWait?.();
    this.#wake?.();
    if (!this.#loop) this.start();
    await this.#loop;
    return { messages: this.#messages.length, calls: this.#calls, truncated: this.#truncated };
  }

  get text(): string {
    return this.#text;
  }

  async #run(): Promise<void> {
    try {
      for (;;) {
        if (this.#laidOutVersion === this.#version && !this.#pending()) {
          if (this.#end) return;
          await this.#idle();
          continue;
        }
        // Laid out after the wait, not before: text that came meanwhile is rendered once.
        const turn = await this.#waitTurn();
        let pending = this.#nextPending();
        if (!pending) continue;
        const version = this.#version;
        if (!(await this.#acquire(turn, this.#isFinal(pending)))) continue;
        // Text may have grown while the budget was busy: send the freshest state.
        if (this.#version !== version) pending = this.#nextPending();
        if (pending) await this.#send(pending);
      }
    } finally {
      this.#reserved?.(0);
      this.#stopTyping?.abort();
      this.#options.onFirstPost?.();
      if (this.#stopTyping) await this.#surface.stopTyping?.().catch(() => undefined);
    }
  }

  /**
   * Waits for news: more text, the end, or the moment a message that would lapse unchanged
   * must be shown again (then it is marked as not shown, and goes as any change does).
   */
  async #idle(): Promise<void> {
    const lapsing = this.#lapsing();
    let refresh: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.#wake = resolve;
      if (!lapsing) return;
      const { message, refreshMs } = lapsing;
      const due = (message.shownAt ?? 0) + refreshMs - performance.now();
      refresh = setTimeout(
        () => {
          message.shown = undefined;
          resolve();
        },
        Math.max(0, due),
      );
    });
    clearTimeout(refresh);
    this.#wake = undefined;
  }

  /** The message that lapses unless shown again, and how soon: the answer's live draft. */
  #lapsing(): { message: OutgoingMessage; refreshMs: number } | undefined {
    const message = this.#messages.at(-1);
    if (!message || message.ref === undefined || message.finalized) return undefined;
    const refreshMs = this.#surface.refreshMs?.(message.ref);
    return refreshMs === undefined ? undefined : { message, refreshMs };
  }

  /**
   * Takes the budget's token for the next call. False when the answer ended meanwhile: its
   * last text is urgent, and may go by another method (Slack's chat.stopStream), so the
   * token is asked for again rather than waited for behind the other answers' edits.
   */
  async #acquire(turn: Turn, final: boolean): Promise<boolean> {
    const budget = this.#surface.budget;
    if (!budget) return true;
    const { first } = turn;
    const urgent = turn.urgent || final;
    if (final) {
      await budget.acquire({ first, urgent, final });
      return true;
    }
    const ended = new AbortController();
    this.#budgetWait = ended;
    try {
      await budget.acquire({ first, urgent, final, signal: ended.signal });
      return true;
    } catch (error) {
      if (ended.signal.aborted) return false;
      throw error;
    } finally {
      this.#budgetWait = undefined;
    }
  }

  /**
   * Waits out a rate-limit pause and the surface's edit interval: the first text and an end
   * that is no edit (see ReplySurface.endsWithoutEdit) wait for no interval. Says how the
   * coming call queues for a shared budget.
   */
  async #waitTurn(): Promise<Turn> {
    for (;;) {
      // The first text goes out at once, unless a failed call asks for a pause first.
      const first = !this.#textShown && this.#hasText() && this.#failures === 0;
      const intervalEnd =
        first || this.#endsWithoutEdit()
          ? 0
          : this.#lastCallAt + this.#surface.limits.minEditIntervalMs;
      const wait = Math.max(this.#pausedUntil, intervalEnd) - performance.now();
      // Timers fire on whole milliseconds: round up so the call never lands early. The end
      // of the answer cuts the wait short: its call may need none.
      if (wait <= 0 || !(await this.#sleepUnlessEnded(Math.ceil(wait) + 1))) {
        return { first, urgent: first || this.#end !== undefined };
      }
    }
  }

  /** Sleeps `ms`; true when finish() cut the sleep short. */
  #sleepUnlessEnded(ms: number): Promise<boolean> {
    if (this.#end !== undefined) return sleep(ms).then(() => false);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.#cutWait = undefined;
        resolve(false);
      }, ms);
      this.#cutWait = () => {
        clearTimeout(timer);
        this.#cutWait = undefined;
        resolve(true);
      };
    });
  }

  /** The answer is over and its last message ends by a call that is no edit of it. */
  #endsWithoutEdit(): boolean {
    const ref = this.#end === undefined ? undefined : this.#messages.at(-1)?.ref;
    return ref !== undefined && this.#surface.endsWithoutEdit?.(ref) === true;
  }

  async #send(message: OutgoingMessage): Promise<void> {
    const wanted = message.wanted ?? "";
    const hasText = this.#hasText();
    const final = this.#isFinal(message);
    try {
      if (message.ref === undefined) {
        message.ref = await this.#surface.post(wanted, { final, source: message.source });
        this.#options.onCall?.("post");
        this.#options.onFirstPost?.();
      } else {
        await this.#surface.edit(message.ref, wanted, { final, source: message.source });
        this.#options.onCall?.("edit");
      }
      message.shown = wanted;
      message.shownAt = performance.now();
      message.finalized = final;
      this.#calls++;
      this.#failures = 0;
      if (hasText && !this.#textShown) {
        this.#textShown = true;
        this.#reserved?.(final ? 0 : 1);
        this.#stopTyping?.abort();
        this.#options.onFirstText?.();
      }
    } catch (error) {
      if (error instanceof RateLimitedError) {
        // The surface paused the budget every answer there draws on; this one waits as well.
        this.#options.onCall?.("rate-limited");
        this.#pausedUntil = performance.now() + error.retryAfterMs;
      } else if (error instanceof MessageGoneError) {
        message.ref = undefined;
        message.shown = undefined;
        message.finalized = false;
      } else if (++this.#failures > (this.#options.maxFailures ?? 3)) {
        throw error;
      }
    } finally {
      this.#lastCallAt = performance.now();
    }
  }

  /** Recomputes what each message should show and returns the first that differs. */
  #nextPending(): OutgoingMessage | undefined {
    if (this.#laidOutVersion !== this.#version) {
      this.#laidOutVersion = this.#version;
      this.#layout();
    }
    return this.#pending();
  }

  /** The first message whose platform state differs from what it should show. */
  #pending(): OutgoingMessage | undefined {
    return this.#messages.find(
      (m) => m.wanted !== undefined && (m.wanted !== m.shown || (this.#isFinal(m) && !m.finalized)),
    );
  }

  /** A message's text can no longer change: it was frozen, or the answer is over. */
  #isFinal(message: OutgoingMessage): boolean {
    return message.frozen || this.#end !== undefined;
  }

  #layout(): void {
    const { renderer, limits } = this.#surface;
    const note = this.#finalNote();
    const suffix =
      note === undefined ? "" : `${this.#hasText() ? "\n\n" : ""}${renderer.note(note)}`;
    const fits = (markdown: string, withSuffix: boolean) =>
      renderer.measure(this.#render(markdown) + (withSuffix ? suffix : "")) <=
      limits.maxMessageLength;
    let markdown = this.#tailPrefix + this.#text.slice(this.#tailStart);
    if (!this.#hasText() && note === undefined) return;
    const final = this.#end !== undefined;
    for (;;) {
      const split = splitToFit(markdown, (head) => fits(head, final));
      if (!split) break;
      this.#current().wanted = this.#render(split.head);
      this.#current().source = { markdown: split.head };
      this.#current().frozen = true;
      this.#messages.push({ frozen: false });
      this.#tailStart += Math.max(0, split.index - this.#tailPrefix.length);
      this.#tailPrefix = split.reopened;
      markdown = split.tail;
    }
    const current = this.#current();
    const body = markdown.trim() ? this.#render(markdown) : "";
    const ending = final && note !== undefined ? renderer.note(note) : "";
    const wanted = body.trim() ? body + (ending && suffix) : ending;
    // A platform refuses an empty message: whitespace waits for text, or for the end.
    if (!wanted.trim()) {
      if (current.ref === undefined && this.#messages.length > 1) this.#messages.pop();
      return;
    }
    current.wanted = wanted;
    current.source = ending ? { markdown: body ? markdown : "", note } : { markdown };
  }

  #render(markdown: string): string {
    if (this.#rendered?.markdown !== markdown) {
      this.#rendered = { markdown, output: this.#surface.renderer.render(markdown) };
    }
    return this.#rendered.output;
  }

  /** Whether the answer has anything to show beyond white space. */
  #hasText(): boolean {
    return this.#text.trim().length > 0;
  }

  #current(): OutgoingMessage {
    let last = this.#messages.at(-1);
    if (!last || last.frozen) {
      last = { frozen: false };
      this.#messages.push(last);
    }
    return last;
  }

  #finalNote(): string | undefined {
    const end = this.#end;
    if (!end) return undefined;
    if (end.kind !== "complete") return end.note;
    if (this.#truncated) return TRUNCATED;
    return this.#hasText() ? undefined : NO_ANSWER;
  }

  #keepTyping(showTyping: () => Promise<void>): void {
    const interval = this.#options.typingIntervalMs ?? 4_000;
    this.#stopTyping = new AbortController();
    const signal = this.#stopTyping.signal;
    void (async () => {
      while (!signal.aborted) {
        // A typing action is a call too: none while the platform said to wait.
        const paused =
          performance.now() < this.#pausedUntil || this.#surface.budget?.paused === true;
        if (!paused) await showTyping().catch(() => undefined);
        await sleep(interval, undefined, { signal }).catch(() => undefined);
      }
    })();
  }
}

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** The longest cut of at most `room` code units that ends on a grapheme boundary. */
function graphemeCut(text: string, room: number): number {
  let cut = 0;
  // A grapheme cluster is far shorter than 64 code units; only complete ones are taken.
  for (const { index, segment } of graphemes.segment(text.slice(0, room + 64))) {
    if (index + segment.length > room) break;
    cut = index + segment.length;
  }
  return cut;
}

function once(callback: (() => void) | undefined): (() => void) | undefined {
  if (!callback) return undefined;
  let called = false;
  return () => {
    if (called) return;
    called = true;
    callback();
  };
}
