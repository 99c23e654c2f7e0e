import { MessageGoneError, RateLimitedError, StreamUnavailableError } from "../errors.ts";
import { translator } from "../i18n/translator.ts";
import type {
  AnswerMessageEvent,
  CallBudget,
  CallName,
  FinishingMessage,
  MessageRef,
  ReplySurface,
} from "../ports.ts";
import {
  type AnswerButtons,
  type AnswerEnd,
  AnswerLayout,
  type AnswerNotes,
} from "./answer-layout.ts";
import { CallPacer } from "./call-pacer.ts";
import {
  markGone,
  markSent,
  newMessage,
  type OutgoingMessage,
  type Plan,
  planFor,
  toReplace,
} from "./outgoing-message.ts";

export type { AnswerButtons, AnswerEnd, AnswerNotes } from "./answer-layout.ts";

export interface AnswerWriterOptions {
  /** Longest answer shown; the rest is dropped and a "(truncated)" note added. */
  maxAnswerChars: number;
  /** "(truncated)" and "(no answer)" in the answer's language; English when absent. */
  notes?: AnswerNotes | undefined;
  /** How often a typing indicator is repeated until the first text shows. */
  typingIntervalMs?: number;
  /** The typing indicator's words where a platform shows them; English when absent. */
  typingText?: string | undefined;
  /** How long the backend may stay silent before the typing indicator shows. Default 0. */
  typingDelayMs?: number | undefined;
  /** Called after every successful post or edit, and for every rate-limit answer. */
  onCall?: ((kind: "post" | "edit" | "rate-limited") => void) | undefined;
  /** Told of every message as it reaches the platform (the answer journal listens). */
  onMessage?: ((event: AnswerMessageEvent) => void) | undefined;
  /**
   * Awaited before a message on the platform gets its final text: the answer journal writes
   * it first, so that a kill between the call and its reply leaves nothing to take back.
   */
  onFinishing?: ((message: FinishingMessage) => Promise<void>) | undefined;
  /** Failed calls (other than rate limits) tolerated before the writer gives up. */
  maxFailures?: number;
}

export interface AnswerSummary {
  messages: number;
  calls: number;
  truncated: boolean;
  /** When the first answer text reached the platform (performance.now()), if it did. */
  firstTextAt: number | undefined;
}

const WORKING = "…";
const THINKING = translator("en").t("statusThinking");

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
  readonly #layout: AnswerLayout;
  readonly #messages: OutgoingMessage[];
  readonly #pacer: CallPacer;
  #firstTextAt: number | undefined;
  #calls = 0;
  #failures = 0;
  #wake: (() => void) | undefined;
  #loop: Promise<void> | undefined;
  /** Stops the typing sign's repeats; set only for surfaces that show one. */
  #stopTyping: (() => void) | undefined;
  /** Changes the budget's places kept for this answer's first and final texts. */
  #reserved: ((calls: number) => void) | undefined;
  /** What the answer's messages wait for before any goes (a notice shown ahead of them). */
  #after: Promise<void> | undefined;

  constructor(surface: ReplySurface, options: AnswerWriterOptions) {
    this.#surface = surface;
    this.#options = options;
    this.#layout = new AnswerLayout(surface, options.maxAnswerChars, options.notes);
    this.#messages = this.#layout.messages;
    this.#pacer = new CallPacer(surface.limits.minEditIntervalMs);
  }

  /**
   * Shows a note of the bot's own (a "queued" notice) as the answer's first message, which
   * the answer then replaces; a later note replaces the earlier one in the same message (from
   * "queued behind 1 question" to "number 3 in line"). Before `start`; throws when the note
   * could not be shown.
   */
  async showNote(note: string): Promise<void> {
    if (this.#loop || this.#messages.length > 1) return;
    const shown = this.#messages[0];
    const message = shown ?? newMessage({ source: { markdown: "", note }, noStream: true });
    const plan = planFor(message, "replace", this.#surface.renderer.note(note), false);
    if (!plan) return;
    const budget = this.#budgetFor(plan.request.call);
    try {
      await budget?.acquire();
      if (!shown) this.#messages.push(message);
      message.source = { markdown: "", note };
      this.#sent(plan, await this.#surface.send(plan.request));
    } catch (error) {
      if (!shown) this.#messages.pop();
      if (error instanceof RateLimitedError) budget?.pause?.(error.retryAfterMs);
      throw error;
    }
  }

  /**
   * Takes over a note already on screen for this answer (a queued notice another process
   * posted, rebuilt from its saved ref): the answer replaces it, as it would its own note.
   * Before `start`.
   */
  adoptNote(ref: MessageRef, note: string): void {
    if (this.#loop || this.#messages.length > 0) return;
    const message = newMessage({ source: { markdown: "", note }, noStream: true });
    const text = this.#surface.renderer.note(note);
    this.#messages.push(message);
    this.#sent({ message, request: { call: "post", text, final: false }, text, final: false }, ref);
  }

  /** Shows that the bot is working and starts the send loop. */
  start(): void {
    if (this.#loop) return;
    if (this.#messages.length === 0) {
      const { showTyping } = this.#surface;
      if (showTyping) {
        const text = this.#options.typingText ?? THINKING;
        this.#keepTyping(() => showTyping.call(this.#surface, text));
      } else
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
   * Makes no call for the answer until `ready` settles, however it settles: text appended
   * meanwhile waits, capped as ever, and goes as one (the backend's system message shows
   * first).
   */
  after(ready: Promise<unknown>): void {
    this.#after = ready.then(noop, noop);
  }

  /**
   * Adds streamed text, without the characters that would hide or reorder what a reader sees.
   * Returns false once the answer reached its cap: stop reading.
   */
  append(piece: string): boolean {
    if (this.#layout.end) return false;
    const more = this.#layout.append(piece);
    this.#wake?.();
    return more;
  }

  /**
   * The buttons under the answer's last message: `live` while it grows (where the platform
   * lets a growing message have them), `final` once it is complete.
   */
  setButtons(buttons: AnswerButtons): void {
    this.#layout.setButtons(buttons);
    this.#wake?.();
  }

  /** The answer is over: sends what remains and resolves once the platform shows it. */
  async finish(end: AnswerEnd): Promise<AnswerSummary> {
    this.#layout.finish(end);
    this.#pacer.cut();
    this.#wake?.();
    if (!this.#loop) this.start();
    await this.#loop;
    return {
      messages: this.#messages.length,
      calls: this.#calls,
      truncated: this.#layout.text.truncated,
      firstTextAt: this.#firstTextAt,
    };
  }

  get text(): string {
    return this.#layout.text.value;
  }

  async #run(): Promise<void> {
    try {
      for (;;) {
        if (!this.#layout.due) {
          if (this.#layout.end) return;
          await this.#idle();
          continue;
        }
        const after = this.#after;
        if (after) {
          await after;
          if (this.#after === after) this.#after = undefined;
          continue;
        }
        const turn = await this.#pacer.turn(this.#turnState);
        // Laid out after the wait, not before: text that came meanwhile is rendered once.
        let plan = this.#layout.next();
        if (!plan) continue;
        const version = this.#layout.version;
        const budget = this.#budgetFor(plan.request.call);
        if (!(await this.#pacer.acquire(budget, turn, plan.final))) continue;
        // Text may have grown while the budget was busy: send the freshest state.
        if (this.#layout.version !== version) {
          plan = this.#layout.next();
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
      this.#stopTyping?.();
      // Also after an answer that showed no typing (it replaced its queued notice): a sign of
      // work the surface shows apart from it (Slack's agent session) ends with the answer.
      await this.#surface.stopTyping?.().catch(() => undefined);
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

  readonly #turnState = {
    // The first text goes out at once, unless a failed call asks for a pause first.
    first: () =>
      this.#firstTextAt === undefined && this.#layout.text.hasText && this.#failures === 0,
    endsWithoutEdit: () => this.#endsWithoutEdit(),
    ended: () => this.#layout.end !== undefined,
  };

  /** The answer is over and its last message ends by a call that is no edit of it. */
  #endsWithoutEdit(): boolean {
    const message = this.#layout.end === undefined ? undefined : this.#messages.at(-1);
    if (message?.ref === undefined) return false;
    if (message.mode === "append") return this.#layout.streamUsable(message);
    return this.#surface.endsWithoutEdit?.(message.ref) === true;
  }

  async #send(plan: Plan, budget: CallBudget | undefined): Promise<void> {
    const { request } = plan;
    let stamp = request.call !== "stop";
    try {
      if (plan.final && request.call !== "stop") await this.#finishing(plan);
      this.#sent(plan, await this.#surface.send(request));
      this.#failures = 0;
    } catch (error) {
      const { message } = plan;
      if (error instanceof RateLimitedError) {
        // One 429 pauses the budget every answer there draws on, once; this one waits as well.
        budget?.pause?.(error.retryAfterMs);
        this.#options.onCall?.("rate-limited");
        this.#pacer.pause(error.retryAfterMs);
      } else if (error instanceof StreamUnavailableError) {
        // Goes on by post and edit at once: the text is due now.
        toReplace(message);
        stamp = false;
      } else if (error instanceof MessageGoneError) {
        markGone(message);
        this.#options.onMessage?.({ kind: "gone", index: this.#messages.indexOf(message) });
      } else if (++this.#failures > (this.#options.maxFailures ?? 3)) {
        throw error;
      }
    } finally {
      // A stream's stop is followed by its edit at once.
      if (stamp) this.#pacer.called();
    }
  }

  async #finishing({ message, request }: Plan): Promise<void> {
    if (message.saved === undefined || !this.#options.onFinishing) return;
    await this.#options.onFinishing({
      index: this.#messages.indexOf(message),
      saved: message.saved,
      markdown: message.source?.markdown ?? "",
      note: message.source?.note,
      buttons: "buttons" in request ? request.buttons : undefined,
    });
  }

  /** Keeps what the platform shows now, and tells whoever listens. */
  #sent(plan: Plan, ref: MessageRef): void {
    const { message, request, final } = plan;
    const refChanged = ref !== message.ref;
    markSent(plan, ref);
    if (refChanged) message.saved = this.#surface.persistRef?.(ref);
    if (request.call !== "stop") {
      this.#calls++;
      this.#options.onCall?.(
        request.call === "post" || request.call === "stream" ? "post" : "edit",
      );
    }
    if (this.#firstTextAt === undefined && this.#layout.text.hasText && request.call !== "stop") {
      this.#firstTextAt = performance.now();
      this.#reserved?.(final ? 0 : 1);
      this.#stopTyping?.();
    }
    this.#options.onMessage?.({
      kind: "sent",
      index: this.#messages.indexOf(message),
      saved: message.saved,
      refChanged,
      markdown: message.source?.markdown ?? "",
      final,
      live: message.live,
    });
  }

  #keepTyping(showTyping: () => Promise<void>): void {
    const interval = this.#options.typingIntervalMs ?? 4_000;
    const delay = this.#options.typingDelayMs ?? 0;
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const repeat = async () => {
      // A typing action is a call too: none while the platform said to wait.
      const paused = this.#pacer.paused || this.#budgetFor("post")?.paused === true;
      if (!paused) await showTyping().catch(() => undefined);
      if (!stopped) timer = setTimeout(repeat, interval);
    };
    this.#stopTyping = () => {
      stopped = true;
      clearTimeout(timer);
    };
    if (delay > 0) timer = setTimeout(repeat, delay);
    else void repeat();
  }
}

function noop(): void {}
