import { translator } from "../i18n/translator.ts";
import type { Button, ReplySurface } from "../ports.ts";
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

/** The buttons under an answer's last message: while it grows, and once it is final. */
export interface AnswerButtons {
  live: readonly Button[];
  final: readonly Button[];
}

/** How the answer ended, for the final note. */
export type AnswerEnd =
  | { kind: "complete" }
  /** Cut by a failure after some text: `note` says why. */
  | { kind: "cut"; note: string }
  /** Failed before any text: `note` is the readable error. */
  | { kind: "error"; note: string }
  /** Stopped by a person: the text so far, then `note` says who stopped it. */
  | { kind: "stopped"; note: string };

/** The notes the layout adds of itself, in the answer's language. */
export interface AnswerNotes {
  /** Ends an answer cut at MAX_ANSWER_CHARS: "(truncated)". */
  truncated: string;
  /** Stands for an answer with no text: "(no answer)". */
  noAnswer: string;
}

const ENGLISH_NOTES: AnswerNotes = {
  truncated: translator("en").t("truncated"),
  noAnswer: translator("en").t("noAnswer"),
};

/**
 * One answer's text and its messages: what each should show (the text split where it
 * outgrows the platform's limit, the final note on the last) and the call each needs next.
 * The layout is redone only when the text or the end changed, and each text is rendered once
 * however often it is asked for.
 */
export class AnswerLayout {
  readonly messages: OutgoingMessage[] = [];
  readonly text: AnswerText;
  #buttons: AnswerButtons = { live: [], final: [] };
  readonly #surface: ReplySurface;
  readonly #notes: AnswerNotes;
  #end: AnswerEnd | undefined;
  /** Markdown of the current (last) message = #tailPrefix + text.slice(#tailStart). */
  #tailStart = 0;
  #tailPrefix = "";
  #version = 0;
  #laidOutVersion = -1;

  constructor(surface: ReplySurface, maxAnswerChars: number, notes = ENGLISH_NOTES) {
    this.#surface = surface;
    this.#notes = notes;
    const ownCap = surface.limits.maxAnswerChars ?? Number.POSITIVE_INFINITY;
    this.text = new AnswerText(Math.min(maxAnswerChars, ownCap));
  }

  /** Changes with every piece of text and with the end. */
  get version(): number {
    return this.#version;
  }

  get end(): AnswerEnd | undefined {
    return this.#end;
  }

  /** Adds a streamed piece; false once the answer reached its cap. */
  append(piece: string): boolean {
    this.#version++;
    return this.text.append(piece);
  }

  /** Sets the buttons under the last message, from its next call on. */
  setButtons(buttons: AnswerButtons): void {
    this.#buttons = buttons;
    this.#version++;
  }

  finish(end: AnswerEnd): void {
    this.#end = end;
    this.#version++;
  }

  /** Lays the answer out again if it changed, and returns the first call due. */
  next(): Plan | undefined {
    if (this.#laidOutVersion !== this.#version) {
      this.#laidOutVersion = this.#version;
      this.#layout();
    }
    return this.pending();
  }

  /** Whether a call is due: the answer changed since its last layout, or a message differs. */
  get due(): boolean {
    return this.#laidOutVersion !== this.#version || this.pending() !== undefined;
  }

  /** The first call a message needs to show what it should, as laid out now. */
  pending(): Plan | undefined {
    for (const message of this.messages) {
      const plan = this.#planOf(message);
      if (plan) return plan;
    }
    return undefined;
  }

  /**
   * A live stream the platform has not ended for its age (SurfaceLimits.streamMaxAgeMs), that
   * can show `text` (when given) by appending.
   */
  streamUsable(message: OutgoingMessage, text?: string): boolean {
    const maxAge = this.#surface.limits.streamMaxAgeMs ?? Number.POSITIVE_INFINITY;
    if (performance.now() - message.startedAt >= maxAge) return false;
    return text === undefined ? message.live : canAppend(message, text);
  }

  #planOf(message: OutgoingMessage): Plan | undefined {
    const { source } = message;
    if (!source || message.finalized) return undefined;
    const final = message.frozen || this.#end !== undefined;
    const { renderer } = this.#surface;
    let mode = modeOf(message, final, this.#canStream());
    let text = textOf(renderer, message, { mode, source, final });
    // A stream that cannot go on, or whose last text would not show what the chatbot wrote,
    // is stopped and its whole text replaced.
    if (
      message.ref !== undefined &&
      mode === "append" &&
      (!this.streamUsable(message, text) ||
        (final && message.stream?.endsAsWritten?.(source) === false))
    ) {
      toReplace(message);
      mode = "replace";
      text = textOf(renderer, message, { mode, source, final });
    }
    const plan = planFor(message, mode, text, final);
    if (!plan) return undefined;
    // Only the last message has buttons: earlier ones lose theirs with their final edit.
    const last = !message.frozen && message === this.messages.at(-1);
    const buttons = last ? (final ? this.#buttons.final : this.#buttons.live) : [];
    const { request } = plan;
    if (buttons.length === 0) return plan;
    if (request.call === "post" || request.call === "edit" || request.call === "end") {
      return { ...plan, request: { ...request, buttons } };
    }
    return plan;
  }

  #canStream(): boolean {
    return this.#surface.renderer.stream !== undefined && this.#surface.canStream?.() === true;
  }

  /**
   * Decides what each message should show: the answer's text from where the current message
   * starts, split where it outgrows the platform's limit (the head frozen in the current
   * message, the rest in a new one), and the final note on the last.
   */
  #layout(): void {
    const { renderer, limits } = this.#surface;
    const note = this.#finalNote();
    const hasText = this.text.hasText;
    if (!hasText && note === undefined) return;
    const final = this.#end !== undefined;
    const canStream = this.#canStream();
    let markdown = this.#tailPrefix + this.text.value.slice(this.#tailStart);
    for (;;) {
      const current = this.#current();
      const mode = modeOf(current, final, canStream);
      // The whole tail as it would be sent now; a head that would be cut off as it will stay.
      const fits = (head: string) => {
        const source = { markdown: head, note: final ? note : undefined };
        const text =
          head === markdown
            ? textOf(renderer, current, { mode, source, final })
            : renderSource(renderer, current, { mode, source, final: true });
        return renderer.measure(text) <= limits.maxMessageLength;
      };
      const split = splitToFit(markdown, fits);
      if (!split) break;
      current.source = { markdown: split.head };
      current.frozen = true;
      this.messages.push(newMessage());
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
    } else if (current.ref === undefined && this.messages.length > 1) {
      // A platform refuses an empty message: whitespace waits for text, or for the end.
      this.messages.pop();
    }
  }

  #current(): OutgoingMessage {
    let last = this.messages.at(-1);
    if (!last || last.frozen) {
      last = newMessage();
      this.messages.push(last);
    }
    return last;
  }

  #finalNote(): string | undefined {
    const end = this.#end;
    if (!end) return undefined;
    if (end.kind !== "complete") return end.note;
    if (this.text.truncated) return this.#notes.truncated;
    return this.text.hasText ? undefined : this.#notes.noAnswer;
  }
}
