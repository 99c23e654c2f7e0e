import type { ChatStreamEvent, ChatStreamReader, StreamHeader } from "./types.ts";

/**
 * What a streamed answer brought since its reader last looked. Text that arrived meanwhile
 * is handed on as one piece: a reader that fell behind (a busy process) catches up in one
 * step instead of one per network chunk, and a reader that keeps up sees each chunk at once.
 */
export class StreamInbox implements ChatStreamReader {
  #header: StreamHeader | undefined;
  #text = "";
  #ended = false;
  #failure: { error: unknown } | undefined;
  #wake: (() => void) | undefined;

  header(header: StreamHeader): void {
    this.#header = header;
    this.#notify();
  }

  text(text: string): boolean {
    this.#text += text;
    this.#notify();
    return true;
  }

  end(): void {
    this.#ended = true;
    this.#notify();
  }

  /** The stream broke: the text before the failure is still handed on, then `error` is thrown. */
  fail(error: unknown): void {
    if (this.#ended || this.#failure) return;
    this.#failure = { error };
    this.#notify();
  }

  /** Characters waiting for the reader. */
  get waiting(): number {
    return this.#text.length;
  }

  /** Whether the stream is over and everything in it was taken. */
  get done(): boolean {
    return this.#ended && this.#header === undefined && this.#text === "";
  }

  /** The header, else the text that came, else undefined; throws the failure once all is taken. */
  take(): ChatStreamEvent | undefined {
    const header = this.#header;
    if (header) {
      this.#header = undefined;
      return { type: "header", header };
    }
    if (this.#text) {
      const text = this.#text;
      this.#text = "";
      return { type: "text", text };
    }
    if (this.#failure) throw this.#failure.error;
    return undefined;
  }

  /** Resolves when something new came. */
  arrival(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
