import { createInterface, type Interface } from "node:readline";
import type { EchoGate } from "./terminal.ts";

/** A line the person entered. */
export interface EnteredLine {
  text: string;
  /** Entered while the echo was held (an answer printing): not on the screen yet. */
  typedAhead: boolean;
}

// Piped input is read ahead of the answers up to this many lines, then paused.
const READ_AHEAD_LINES = 1_000;

/**
 * The lines of the console's input, in order. At a terminal (`echo` given) readline edits
 * the line and echoes it through `echo`, which is held from the moment a line is entered
 * until `prompt()`: lines typed meanwhile wait their turn, unechoed, and Ctrl+C reaches
 * `onInterrupt` instead of ending the process.
 */
export class ConsoleInput {
  /** Ctrl+C at the terminal. */
  onInterrupt: () => void = () => undefined;
  /**
   * Sees each line typed while an answer prints before it waits its turn: true when the line
   * acted at once (`/stop`) and takes no turn.
   */
  onTypedAhead: (text: string) => boolean = () => false;
  readonly #lines: Interface;
  readonly #echo: EchoGate | undefined;
  readonly #queue: EnteredLine[] = [];
  #ended = false;
  #wake: (() => void) | undefined;

  constructor(options: { input: NodeJS.ReadableStream; echo?: EchoGate; prompt: string }) {
    this.#echo = options.echo;
    this.#lines = createInterface({
      input: options.input,
      output: options.echo,
      terminal: options.echo !== undefined,
      prompt: options.prompt,
    });
    this.#lines.on("line", (text) => {
      const typedAhead = this.#echo?.held ?? false;
      if (typedAhead && this.onTypedAhead(text)) return;
      this.#queue.push({ text, typedAhead });
      // Held at once: the rest of a pasted block is not echoed above the answer to its first line.
      this.#echo?.hold();
      if (!this.#echo && this.#queue.length >= READ_AHEAD_LINES) this.#lines.pause();
      this.#wake?.();
    });
    this.#lines.on("close", () => {
      this.#ended = true;
      this.#wake?.();
    });
    this.#lines.on("SIGINT", () => this.onInterrupt());
  }

  /** The next line; undefined once the input has ended and every line was taken. */
  async next(): Promise<EnteredLine | undefined> {
    while (this.#queue.length === 0 && !this.#ended) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
    const line = this.#queue.shift();
    if (!this.#echo && !this.#ended && this.#queue.length < READ_AHEAD_LINES / 2) {
      this.#lines.resume();
    }
    return line;
  }

  /** Lines entered and not taken yet. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** Forgets the lines not taken yet; returns how many there were. */
  drop(): number {
    return this.#queue.splice(0).length;
  }

  /**
   * Shows the prompt with what the person has typed of the next line so far, and echoes
   * again. The typed text is taken out of readline while the echo is still held and typed
   * back after the prompt: readline then draws the line from the prompt's own row.
   */
  prompt(): void {
    const echo = this.#echo;
    if (!echo || this.#ended) return;
    const typed = echo.held ? this.#lines.line : "";
    if (echo.held) {
      this.#lines.write(null, { ctrl: true, name: "e" });
      this.#lines.write(null, { ctrl: true, name: "u" });
      echo.release();
    }
    this.#lines.prompt();
    if (typed) this.#lines.write(typed);
  }

  /** Stops reading: lines entered already are still given by `next()`. */
  close(): void {
    this.#lines.close();
  }
}
