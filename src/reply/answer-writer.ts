import { setTimeout as sleep } from "node:timers/promises";
import type {
  AnswerMessageEvent,
  CallBudget,
  CallName,
  MessageRef,
  ReplySurface,
} from "../bridge/ports.ts";
import { MessageGoneError, RateLimitedError, StreamUnavailableError } from "../errors.ts";
import { AnswerText } from "./answer-text.ts";
import {
  canAppend,
  modeOf,
  newMessage,
  type OutgoingMessage,
  type Plan,
  planFor,
  renderSource,
  textOf,
  toReplace,
} from "./outgoing-message.ts";
import { splitToFit } from "./split.ts";

export interface AnswerWriterOptions {
  /** Longest answer shown; the rest is dropped and a "(truncated)" note added. */
  maxAnswerChars: number;
  /** How often a typing indicator is repeated until the first text shows. */
  typingIntervalMs?: number;
  /** Called once, when the first message of this answer is on screen. */
  onFirstPost?: (() => void) | undefined;
  /** Called after every successful post or edit, and for every rate-limit answer. */
  onCall?: ((kind: "post" | "edit" | "rate-limited") => void) | undefined;
  /** Told of every message as it reaches the platform (the answer journal listens). */
  onMessage?: ((event: AnswerMessageEvent) => void) | undefined;
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
  /** When the first answer text reached the platform (performance.now()), if it did. */
  firstTextAt: number | undefined;
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
 * The one owner of an answer on its way to a reply surface: its text, what each of its
 * messages shows now and should show, when the next call may go and which budget it draws
 * on. A single loop makes at most one platform call at a time, always with the latest text,
 * no more often than the surface allows, so a burst of small chunks costs a handful of
 * calls; each text is rendered once, for the call that sends it. The first text goes out at
 * once (leading edge), ahead of other answers' calls in a shared budget; the final text
 * ahead of routine edits, within one edit interval of `finish` (at once where the end is no
 * edit: a stream's stop, a draft sent for good). A message grows as a native stream where
 * the surface has one (appends of what was added), else by edits of its whole text, and
 * falls back from the one to the other mid-answer. A message that outgrows the platform's
 * limit is frozen and the answer goes on in a new one; one that would lapse unchanged (a
 * draft) is shown again in time by the same loop. Every message the writer posted ends with
 * real content or a note.
 */
export class AnswerWriter {
  readonly #surface: ReplySurface;
  readonly #options: AnswerWriterOptions;
  readonly #messages: OutgoingMessage[] = [];
  readonly #text: AnswerText;
  #end: AnswerEnd | undefined;
  /** Markdown of the current (last) message = #tailPrefix + text.slice(#tailStart). */
  #tailStart = 0;
  #tailPrefix = "";
  #firstTextAt: number | undefined;
  #lastCallAt = Number.NEGATIVE_INFINITY;
  #pausedUntil = 0;
  #calls = 0;
  #failures = 0;
  #wake: (() => void) | undefined;
  #loop: Promise<void> | undefined;
  // The layout is redone only when the text or the end changed.
  #version = 0;
  #laidOutVersion = -1;
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
    this.#text = new AnswerText(options.maxAnswerChars);
  }

  /**
   * Posts a note of the bot's own (a "queued" notice) as the answer's first message, which
   * the answer then replaces. Before `start`; throws when the note could not be posted.
   */
  async showNote(note: string): Promise<void> {
    if (this.#loop || this.#messages.length > 0) return;
    const message = newMessage({ source: { markdown: "", note }, noStream: true });
    const plan = planFor(message, "replace", this.#surface.renderer.note(note), false);
    if (!plan) return;
    const budget = this.#budgetFor(plan.request.call);
    try {
      await budget?.acquire();
      this.#messages.push(message);
      this.#sent(plan, await this.#surface.send(plan.request));
    } catch (error) {
      this.#messages.pop();
      if (error instanceof RateLimitedError) budget?.pause?.(error.retryAfterMs);
      throw error;
    }
  }

  /** Shows that the bot is working and starts the send loop. */
  start(): void {
    if (this.#loop) return;
    if (this.#messages.length === 0) {
      if (this.#surface.showTyping) this.#keepTyping(this.#surface.showTyping.bind(this.#surface));
      else
        this.#messages.push(
          newMessage({ source: { markdown: "", note: WORKING }, noStream: true }),
        );
    }
    // Its first and final texts: others' routine edits leave room for them.
    this.#reserved = this.#budgetFor("post")?.reserve?.(2);
    this.#loop = this.#run();
    // Awaited in finish(); until then a failure must not count as an unhandled rejection.
    this.#loop.catch(() => undefined);
  }

  /**
   * Adds streamed text, without the characters that would hide or reorder what a reader sees.
   * Returns false once the answer reached its cap: stop reading.
   */
  append(piece: string): boolean {
    if (this.#end) return false;
    const more = this.#text.append(piece);
    this.#version++;
    this.#wake?.();
    return more;
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
    return {
      messages: this.#messages.length,
      calls: this.#calls,
      truncated: this.#text.truncated,
      firstTextAt: this.#firstTextAt,
    };
  }

  get text(): string {
    return this.#text.value;
  }

  async #run(): Promise<void> {
    try {
      for (;;) {
        if (this.#laidOutVersion === this.#version && !this.#plan()) {
          if (this.#end) return;
          await this.#idle();
          continue;
        }
        const turn = await this.#waitTurn();
        // Laid out after the wait, not before: text that came meanwhile is rendered once.
        let plan = this.#nextPlan();
        if (!plan) continue;
        const version = this.#version;
        const budget = this.#budgetFor(plan.request.call);
        if (!(await this.#acquire(budget, turn, plan.final))) continue;
        // Text may have grown while the budget was busy: send the freshest state.
        if (this.#version !== version) {
          plan = this.#nextPlan();
          if (!plan) continue;
          const other = this.#budgetFor(plan.request.call);
          if (other !== budget) await other?.acquire({ urgent: true });
          await this.#send(plan, other);
        } else {
          await this.#send(plan, budget);
        }
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

  #budgetFor(call: CallName): CallBudget | undefined {
    return this.#surface.budgetFor?.(call);
  }

  /**
   * Takes the budget's token for the next call. False when the answer ended meanwhile: its
   * last text is urgent, and may go by another method (a stream's stop), so the token is
   * asked for again rather than waited for behind the other answers' edits.
   */
  async #acquire(budget: CallBudget | undefined, turn: Turn, final: boolean): Promise<boolean> {
    if (!budget) return true;
    const { first } = turn;
    const urgent = turn.urgent || final;
    if (final) {
      await budget.acquire({ first, urgent });
      return true;
    }
    const ended = new AbortController();
    this.#budgetWait = ended;
    try {
      await budget.acquire({ first, urgent, signal: ended.signal });
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
   * that is no edit (a stream's stop, a draft sent for good) wait for no interval. Says how
   * the coming call queues for a shared budget.
   */
  async #waitTurn(): Promise<Turn> {
    for (;;) {
      // The first text goes out at once, unless a failed call asks for a pause first.
      const first = this.#firstTextAt === undefined && this.#text.hasText && this.#failures === 0;
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
    const message = this.#end === undefined ? undefined : this.#messages.at(-1);
    if (message?.ref === undefined) return false;
    if (message.mode === "append") return this.#streamUsable(message);
    return this.#surface.endsWithoutEdit?.(message.ref) === true;
  }

  async #send(plan: Plan, budget: CallBudget | undefined): Promise<void> {
    const { request } = plan;
    let stamp = request.call !== "stop";
    try {
      this.#sent(plan, await this.#surface.send(request));
      this.#failures = 0;
    } catch (error) {
      const { message } = plan;
      if (error instanceof RateLimitedError) {
        // One 429 pauses the budget every answer there draws on, once; this one waits as well.
        budget?.pause?.(error.retryAfterMs);
        this.#options.onCall?.("rate-limited");
        this.#pausedUntil = performance.now() + error.retryAfterMs;
      } else if (error instanceof StreamUnavailableError) {
        // Goes on by post and edit at once: the text is due now.
        toReplace(message);
        stamp = false;
      } else if (error instanceof MessageGoneError) {
        Object.assign(message, { ref: undefined, saved: undefined, shown: undefined });
        Object.assign(message, { finalized: false, live: false, mode: "replace" });
        this.#options.onMessage?.({ kind: "gone", index: this.#messages.indexOf(message) });
      } else if (++this.#failures > (this.#options.maxFailures ?? 3)) {
        throw error;
      }
    } finally {
      // A stream's stop is followed by its edit at once.
      if (stamp) this.#lastCallAt = performance.now();
    }
  }

  /** Keeps what the platform shows now, and tells whoever listens. */
  #sent(plan: Plan, ref: MessageRef): void {
    const { message, request, text, final } = plan;
    const refChanged = ref !== message.ref;
    message.ref = ref;
    if (refChanged) message.saved = this.#surface.persistRef?.(ref);
    switch (request.call) {
      case "stream":
        Object.assign(message, { mode: "append", live: true, startedAt: performance.now() });
        break;
      case "append":
        break;
      case "end":
      case "stop":
        message.live = false;
        break;
      default:
        message.mode = "replace";
    }
    message.shown = request.call === "stop" ? undefined : text;
    message.shownAt = performance.now();
    message.finalized = final;
    if (request.call !== "stop") {
      this.#calls++;
      this.#options.onCall?.(
        request.call === "post" || request.call === "stream" ? "post" : "edit",
      );
      this.#options.onFirstPost?.();
    }
    if (this.#firstTextAt === undefined && this.#text.hasText && request.call !== "stop") {
      this.#firstTextAt = performance.now();
      this.#reserved?.(final ? 0 : 1);
      this.#stopTyping?.abort();
    }
    this.#options.onMessage?.({
      kind: "sent",
      index: this.#messages.indexOf(message),
      saved: message.saved,
      refChanged,
      markdown: message.source?.markdown ?? "",
      final,
    });
  }

  /** Lays the answer out again if it changed, and returns the first call due. */
  #nextPlan(): Plan | undefined {
    if (this.#laidOutVersion !== this.#version) {
      this.#laidOutVersion = this.#version;
      this.#layout();
    }
    return this.#plan();
  }

  /** The first call a message needs to show what it should, in order. */
  #plan(): Plan | undefined {
    for (const message of this.#messages) {
      const plan = this.#planOf(message);
      if (plan) return plan;
    }
    return undefined;
  }

  #planOf(message: OutgoingMessage): Plan | undefined {
    const { source } = message;
    if (!source || message.finalized) return undefined;
    const final = this.#isFinal(message);
    const { renderer } = this.#surface;
    let mode = modeOf(message, final, this.#canStream());
    let text = textOf(renderer, message, mode, source, final);
    if (message.ref !== undefined && mode === "append" && !this.#streamUsable(message, text)) {
      toReplace(message);
      mode = "replace";
      text = textOf(renderer, message, mode, source, final);
    }
    return planFor(message, mode, text, final);
  }

  /**
   * A live stream the platform has not ended for its age (SurfaceLimits.streamMaxAgeMs) that
   * can show `text` by appending.
   */
  #streamUsable(message: OutgoingMessage, text?: string): boolean {
    const maxAge = this.#surface.limits.streamMaxAgeMs ?? Number.POSITIVE_INFINITY;
    if (performance.now() - message.startedAt >= maxAge) return false;
    return text === undefined ? message.live : canAppend(message, text);
  }

  #canStream(): boolean {
    return this.#surface.renderer.stream !== undefined && this.#surface.canStream?.() === true;
  }

  /** A message's text can no longer change: it was frozen, or the answer is over. */
  #isFinal(message: OutgoingMessage): boolean {
    return message.frozen || this.#end !== undefined;
  }

  /**
   * Decides what each message should show: the answer's text from where the current message
   * starts, split where it outgrows the platform's limit (the head frozen in the current
   * message, the rest in a new one), and the final note on the last.
   */
  #layout(): void {
    const { renderer, limits } = this.#surface;
    const note = this.#finalNote();
    const hasText = this.#text.hasText;
    if (!hasText && note === undefined) return;
    const final = this.#end !== undefined;
    const canStream = this.#canStream();
    let markdown = this.#tailPrefix + this.#text.value.slice(this.#tailStart);
    for (;;) {
      const current = this.#current();
      const mode = modeOf(current, final, canStream);
      // The whole tail as it would be sent now; a head that would be cut off as it will stay.
      const fits = (head: string) => {
        const whole = head === markdown;
        const source = { markdown: head, note: final ? note : undefined };
        const text = whole
          ? textOf(renderer, current, mode, source, final)
          : renderSource(renderer, current, mode, source, true);
        return renderer.measure(text) <= limits.maxMessageLength;
      };
      const split = splitToFit(markdown, fits);
      if (!split) break;
      current.source = { markdown: split.head };
      current.frozen = true;
      this.#messages.push(newMessage());
      this.#tailStart += Math.max(0, split.index - this.#tailPrefix.length);
      this.#tailPrefix = split.reopened;
      markdown = split.tail;
    }
    const current = this.#current();
    const body = markdown.trim() ? markdown : "";
    if (final && note !== undefined) {
      current.source = { markdown: body, note };
    } else if (body) {
      current.source = { markdown };
    } else if (current.ref === undefined && this.#messages.length > 1) {
      // A platform refuses an empty message: whitespace waits for text, or for the end.
      this.#messages.pop();
    }
  }

  #current(): OutgoingMessage {
    let last = this.#messages.at(-1);
    if (!last || last.frozen) {
      last = newMessage();
      this.#messages.push(last);
    }
    return last;
  }

  #finalNote(): string | undefined {
    const end = this.#end;
    if (!end) return undefined;
    if (end.kind !== "complete") return end.note;
    if (this.#text.truncated) return TRUNCATED;
    return this.#text.hasText ? undefined : NO_ANSWER;
  }

  #keepTyping(showTyping: () => Promise<void>): void {
    const interval = this.#options.typingIntervalMs ?? 4_000;
    this.#stopTyping = new AbortController();
    const signal = this.#stopTyping.signal;
    void (async () => {
      while (!signal.aborted) {
        // A typing action is a call too: none while the platform said to wait.
        const paused =
          performance.now() < this.#pausedUntil || this.#budgetFor("post")?.paused === true;
        if (!paused) await showTyping().catch(() => undefined);
        await sleep(interval, undefined, { signal }).catch(() => undefined);
      }
    })();
  }
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
