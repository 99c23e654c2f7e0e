import type { CatalogLanguage } from "../i18n/languages.ts";
import type { Logger } from "../log.ts";
import type { AnswerMessageEvent, FinishingMessage } from "../ports.ts";
import type { JournalEntry } from "./entry.ts";

/**
 * The longest a final text waits for its record: a store slow or away must not hold up what a
 * person sees (a kill in that window then finds the record one edit behind, as before it).
 */
const FINISHING_WAIT_MS = 500;

/** Where one answer's record goes (the process's AnswerJournal). */
export interface JournalSink {
  readonly log: Logger;
  /** The record's field in its run's map. */
  readonly field: string;
  /** Writes the record now: a new message, or a ref that changed. */
  save(entry: JournalEntry): Promise<void>;
  /**
   * The text grew: the journal writes the record at its next round, with every other
   * answer's that grew (JournaledAnswer.takeEntry), in one store call.
   */
  due(answer: JournaledAnswer): void;
  /**
   * Removes the written record, now or, when the store is away, once it answers again; its
   * place serves another answer once it is gone. Never throws.
   */
  remove(): Promise<void>;
  /** No record was written: its place may serve another answer. */
  closed(): void;
}

interface TrackedMessage {
  /** What the surface's persistRef saved of it. */
  saved: unknown;
  markdown: string;
  final: boolean;
  /** A native stream not stopped yet (AnswerMessageEvent.live). */
  live?: boolean;
  /** Its final text is on its way: how it ends. */
  end?: JournalEntry["messages"][number]["end"];
}

/**
 * Keeps one answer's record in the journal while it is in flight, fed by the reply engine's
 * message events (AnswerWriterOptions.onMessage). A new message (or a message whose ref
 * changed: a stream stopped, a draft sent) is written at once; text that only grew waits for
 * the journal's next round, which writes every such answer's record together (a restart
 * re-renders what was written last, one edit behind at most). At most one write is
 * under way at a time, always with the latest state, so a record is never overwritten with
 * an older one nor written again after `close` removed it.
 */
export class JournaledAnswer {
  readonly #channel: string;
  readonly #language: CatalogLanguage;
  readonly #thread: string;
  readonly #sink: JournalSink;
  #answer: { id: string; channelKey: string } | undefined;
  readonly #messages = new Map<number, TrackedMessage>();
  #dirty = false;
  #urgent = false;
  #closed = false;
  #wrote = false;
  #warned = false;
  #writing: Promise<void> | undefined;
  #waitingIn: unknown;

  constructor(channel: string, language: CatalogLanguage, thread: string, sink: JournalSink) {
    this.#channel = channel;
    this.#language = language;
    this.#thread = thread;
    this.#sink = sink;
  }

  /** The record's field in its run's map. */
  get field(): string {
    return this.#sink.field;
  }

  /** The answer's Stop button names it `id` in `channelKey`: a press another process got finds it. */
  named(id: string, channelKey: string): void {
    this.#answer = { id, channelKey };
  }

  /**
   * The question waits for its thread in `replyPlace` with nothing on screen: written at once,
   * so that after a kill the person is told their question was not answered.
   */
  waiting(replyPlace: unknown): void {
    this.#waitingIn = replyPlace;
    this.#changed(true);
  }

  /** A message of the answer reached the platform, or a person deleted it. */
  update(event: AnswerMessageEvent): void {
    if (event.kind === "gone") {
      // The reply engine posts the text anew; the vanished message needs no finishing.
      this.#messages.delete(event.index);
      return;
    }
    const { index, saved, markdown, final, refChanged, live } = event;
    const isNew = !this.#messages.has(index);
    this.#messages.set(index, { saved, markdown, final, live });
    // Its own message will carry the note now.
    this.#waitingIn = undefined;
    // A final text needs no finishing: the record is removed (or rewritten) soon.
    if (final) return;
    // A live stream keeps all it was sent (a restart ends it with the note appended): only a
    // new message or a changed ref is news for the record, not its growing text.
    if (live && !isNew && !refChanged) return;
    this.#changed(isNew || refChanged);
  }

  /**
   * Message `index` is about to show its final text: the record says so before the call goes
   * (resolves once written, or once the write failed), so that a restart after a kill finishes
   * it as it ends, never with the interrupted note over a finished answer.
   */
  async finishing(message: FinishingMessage): Promise<void> {
    if (this.#closed) return;
    const { index, saved, markdown, note, buttons } = message;
    const known = this.#messages.get(index);
    // A live stream's end appends to all it showed: a kill before it lands is ended with the
    // interrupted note appended, as any kill mid-stream, with nothing taken back; the record
    // need not hold the final text, nor the final text wait for it.
    if (known?.live) return;
    const end = { ...(note !== undefined && { note }), ...(buttons && { buttons: [...buttons] }) };
    if (known?.markdown === markdown && JSON.stringify(known.end) === JSON.stringify(end)) return;
    this.#messages.set(index, { saved, markdown, final: false, end });
    this.#changed(true);
    const written = (async () => {
      while (this.#writing) await this.#writing;
    })();
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, FINISHING_WAIT_MS);
    });
    await Promise.race([written, waited]);
    clearTimeout(timer);
  }

  /** The answer is over (complete, cut or failed): its record goes. Never throws. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writing;
    if (this.#wrote) await this.#sink.remove();
    else this.#sink.closed();
  }

  #changed(urgent: boolean): void {
    if (this.#closed) return;
    this.#dirty = true;
    if (urgent) this.#urgent = true;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#closed || this.#writing || !this.#dirty) return;
    if (!this.#urgent) {
      this.#sink.due(this);
      return;
    }
    const entry = this.takeEntry();
    if (entry) this.writing(this.#sink.save(entry));
  }

  /**
   * The record to write now, if it changed since the last write and none is under way; the
   * caller writes it and hands the write to `writing`. The journal's round calls this for
   * the answers that were due.
   */
  takeEntry(): JournalEntry | undefined {
    if (this.#closed || this.#writing || !this.#dirty) return undefined;
    this.#dirty = false;
    this.#urgent = false;
    return this.#entry();
  }

  /** The write of what takeEntry gave: the answer's one write under way until it settles. */
  writing(write: Promise<void>): void {
    const first = !this.#wrote;
    this.#wrote = true;
    this.#writing = write
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
    const indexes = [...this.#messages.keys()].sort((a, b) => a - b);
    for (const index of indexes) {
      const message = this.#messages.get(index);
      if (!message || message.final || message.saved === undefined) continue;
      const end = message.end && { end: message.end };
      messages.push({ ref: message.saved, markdown: message.markdown, ...end });
    }
    const waitingIn = this.#waitingIn === undefined ? {} : { waitingIn: this.#waitingIn };
    const answer = this.#answer && { answer: this.#answer.id, channelKey: this.#answer.channelKey };
    return {
      channel: this.#channel,
      messages,
      language: this.#language,
      thread: this.#thread,
      ...answer,
      ...waitingIn,
    };
  }
}
