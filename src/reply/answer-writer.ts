import { setTimeout as sleep } from "node:timers/promises";
import type { MessageRef, MessageSource, ReplySurface } from "../bridge/ports.ts";
import { MessageGoneError, RateLimitedError } from "../errors.ts";
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
}

const NO_ANSWER = "(no answer)";
const TRUNCATED = "(truncated)";
const WORKING = "…";

/**
 * Shows one answer growing in place on a reply surface. Text is appended as it streams;
 * a single loop sends at most one platform call at a time, always with the latest text, no
 * more often than the surface allows, so a burst of small chunks costs a handful of edits.
 * The first text goes out at once (leading edge); the final text within one edit interval
 * of `finish`. A message that outgrows the platform's limit is frozen and the answer goes
 * on in a new one. Every message the writer posted ends with real content or a note.
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
          await new Promise<void>((resolve) => {
            this.#wake = resolve;
          });
          this.#wake = undefined;
          continue;
        }
        // Laid out after the wait, not before: text that came meanwhile is rendered once.
        const urgent = await this.#waitTurn();
        let pending = this.#nextPending();
        if (!pending) continue;
        const version = this.#version;
        if (!(await this.#acquire(urgent, this.#isFinal(pending)))) continue;
        // Text may have grown while the budget was busy: send the freshest state.
        if (this.#version !== version) pending = this.#nextPending();
        if (pending) await this.#send(pending);
      }
    } finally {
      this.#stopTyping?.abort();
      this.#options.onFirstPost?.();
      if (this.#stopTyping) await this.#surface.stopTyping?.().catch(() => undefined);
    }
  }

  /**
   * Takes the budget's token for the next call. False when the answer ended meanwhile: its
   * last text is urgent, and may go by another method (Slack's chat.stopStream), so the
   * token is asked for again rather than waited for behind the other answers' edits.
   */
  async #acquire(urgent: boolean, final: boolean): Promise<boolean> {
    const budget = this.#surface.budget;
    if (!budget) return true;
    if (final) {
      await budget.acquire({ urgent, final });
      return true;
    }
    const ended = new AbortController();
    this.#budgetWait = ended;
    try {
      await budget.acquire({ urgent, final, signal: ended.signal });
      return true;
    } catch (error) {
      if (ended.signal.aborted) return false;
      throw error;
    } finally {
      this.#budgetWait = undefined;
    }
  }

  /**
   * Waits out a rate-limit pause and the surface's edit interval. True when the coming call
   * is urgent for the shared budget: the first text or the final one.
   */
  async #waitTurn(): Promise<boolean> {
    // The first text goes out at once, unless a failed call asks for a pause first.
    const leading = !this.#textShown && this.#hasText() && this.#failures === 0;
    const intervalEnd = leading ? 0 : this.#lastCallAt + this.#surface.limits.minEditIntervalMs;
    const wait = Math.max(this.#pausedUntil, intervalEnd) - performance.now();
    // Timers fire on whole milliseconds: round up so the call never lands early.
    if (wait > 0) await sleep(Math.ceil(wait) + 1);
    return leading || this.#end !== undefined;
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
      message.finalized = final;
      this.#calls++;
      this.#failures = 0;
      if (hasText && !this.#textShown) {
        this.#textShown = true;
        this.#stopTyping?.abort();
        this.#options.onFirstText?.();
      }
    } catch (error) {
      if (error instanceof RateLimitedError) {
        this.#options.onCall?.("rate-limited");
        this.#pausedUntil = performance.now() + error.retryAfterMs;
        // Every answer drawing on the same budget must hold off too, not only this one.
        this.#surface.budget?.pause?.(error.retryAfterMs);
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
