import { MessageGoneError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { MessageRef, ReplySurface, SendOptions } from "../ports.ts";
import type { JournalEntry } from "./entry.ts";

/** Where one answer's record goes (the process's AnswerJournal). */
export interface JournalSink {
  /** Shortest time between two writes that only bring the text up to date. */
  readonly updateIntervalMs: number;
  readonly log: Logger;
  save(entry: JournalEntry): Promise<void>;
  remove(): Promise<void>;
}

/** A surface that can describe its messages for a later process. */
export type PersistingSurface = ReplySurface & { persistRef(ref: MessageRef): unknown };

interface TrackedMessage {
  markdown: string;
  final: boolean;
  /** JSON of the ref as last written: a change (a stream started) is written at once. */
  writtenRef: string | undefined;
}

/**
 * Keeps one answer's record in the journal while it is in flight, by watching its surface:
 * `surface` is the answer's own surface with every post and edit noted. A new message (or a
 * message whose ref changed) is written at once; text that only grew is written at most once
 * per `updateIntervalMs`, since a restart re-renders what was written last. At most one
 * write is under way at a time, always with the latest state. `close` removes the record.
 */
export class JournaledAnswer {
  readonly surface: ReplySurface;
  readonly #inner: PersistingSurface;
  readonly #channel: string;
  readonly #sink: JournalSink;
  readonly #messages = new Map<MessageRef, TrackedMessage>();
  #dirty = false;
  #urgent = false;
  #closed = false;
  #wrote = false;
  #warned = false;
  #lastWriteAt = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> | undefined;

  constructor(channel: string, surface: PersistingSurface, sink: JournalSink) {
    this.#inner = surface;
    this.#channel = channel;
    this.#sink = sink;
    const inner = surface;
    const journaled: ReplySurface = {
      renderer: inner.renderer,
      limits: inner.limits,
      budget: inner.budget,
      post: async (rendered, options) => {
        const ref = await inner.post(rendered, options);
        this.#sent(ref, options);
        return ref;
      },
      edit: async (ref, rendered, options) => {
        try {
          await inner.edit(ref, rendered, options);
        } catch (error) {
          // The reply engine posts the text anew; the vanished message needs no finishing.
          if (error instanceof MessageGoneError) this.#messages.delete(ref);
          throw error;
        }
        this.#sent(ref, options);
      },
      notice: (rendered, options) => inner.notice(rendered, options),
      persistRef: (ref) => inner.persistRef(ref),
    };
    if (inner.showTyping) journaled.showTyping = () => inner.showTyping?.() ?? Promise.resolve();
    if (inner.stopTyping) journaled.stopTyping = () => inner.stopTyping?.() ?? Promise.resolve();
    if (inner.endsWithoutEdit)
      journaled.endsWithoutEdit = (ref) => inner.endsWithoutEdit?.(ref) ?? false;
    if (inner.refreshMs) journaled.refreshMs = (ref) => inner.refreshMs?.(ref);
    this.surface = journaled;
  }

  /** The answer is over (complete, cut or failed): its record goes. Never throws. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#writing;
    if (!this.#wrote) return;
    await this.#sink
      .remove()
      .catch((error: unknown) =>
        this.#sink.log.warn({ err: error }, "could not remove a finished answer from the journal"),
      );
  }

  #sent(ref: MessageRef, options: SendOptions): void {
    let message = this.#messages.get(ref);
    const isNew = message === undefined;
    if (!message) {
      message = { markdown: "", final: false, writtenRef: undefined };
      this.#messages.set(ref, message);
    }
    message.markdown = options.source?.markdown ?? "";
    message.final = options.final;
    // A final text needs no finishing: the record is removed (or rewritten) soon.
    if (options.final) return;
    const urgent = isNew || message.writtenRef !== refJson(this.#inner, ref);
    this.#changed(urgent);
  }

  #changed(urgent: boolean): void {
    if (this.#closed) return;
    this.#dirty = true;
    if (urgent) this.#urgent = true;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#closed || this.#writing || !this.#dirty) return;
    const wait = this.#urgent
      ? 0
      : this.#lastWriteAt + this.#sink.updateIntervalMs - performance.now();
    if (wait <= 0) {
      this.#flush();
      return;
    }
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, Math.ceil(wait));
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#closed || !this.#dirty) return;
    this.#dirty = false;
    this.#urgent = false;
    this.#lastWriteAt = performance.now();
    const entry = this.#entry();
    const first = !this.#wrote;
    this.#wrote = true;
    this.#writing = this.#sink
      .save(entry)
      .then(() => {
        if (first) this.#sink.log.debug({ channel: this.#channel }, "answer journaled");
      })
      .catch((error: unknown) => {
        if (this.#warned) return;
        this.#warned = true;
        this.#sink.log.warn({ err: error }, "could not journal an answer in flight");
      })
      .finally(() => {
        this.#writing = undefined;
        this.#schedule();
      });
  }

  #entry(): JournalEntry {
    const messages: JournalEntry["messages"] = [];
    for (const [ref, message] of this.#messages) {
      if (message.final) continue;
      const json = refJson(this.#inner, ref);
      message.writtenRef = json;
      if (json === undefined) continue;
      messages.push({ ref: JSON.parse(json) as unknown, markdown: message.markdown });
    }
    return { channel: this.#channel, messages };
  }
}

function refJson(surface: PersistingSurface, ref: MessageRef): string | undefined {
  const saved = surface.persistRef(ref);
  return saved === undefined ? undefined : JSON.stringify(saved);
}
