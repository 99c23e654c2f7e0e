import { Writable } from "node:stream";
import {
  firstDifference,
  STYLE,
  type StyledText,
  sliceStyled,
  styledText,
  toAnsi,
} from "./styled-text.ts";
import { rowsOf } from "./width.ts";

/** An output stream, with the size a terminal reports (process.stdout at a terminal). */
export type ConsoleStream = NodeJS.WritableStream & { columns?: number; rows?: number };

/** What one message of the console shows on the terminal now. */
export interface PrintedMessage {
  shown?: StyledText;
}

// ECMA-48: CR, cursor up (CUU), erase in display below (ED 0), erase the line (EL 2).
const TO_LINE_START = "\r";
const up = (rows: number) => (rows > 0 ? `\u001b[${rows}A` : "");
const ERASE_BELOW = "\u001b[J";
const ERASE_LINE = "\u001b[2K";

/**
 * Everything the console channel prints goes through here: answers, notes, a status line,
 * and the person's typing echoed by readline. On a terminal (`styled`), a message that
 * changed in a way a plain append cannot show is rewritten from the start of the line
 * that changed; piped output only ever grows, as written.
 */
export class ConsoleOutput {
  readonly styled: boolean;
  /** The echo of the person's typing (readline's output): held while an answer prints. */
  readonly echo: EchoGate;
  readonly #out: ConsoleStream;
  #atLineStart = true;
  #status = false;
  /** The message printed last, the only one that can still grow in place. */
  #last: PrintedMessage | undefined;

  constructor(out: ConsoleStream, options: { styled: boolean }) {
    this.#out = out;
    this.styled = options.styled;
    this.echo = new EchoGate(out, (text) => this.#print(text));
  }

  /** Text of the bot's own: a greeting, a question typed ahead, a note. */
  write(text: string): void {
    this.#print(text);
  }

  /** Ends the current line, if one is open, so the next output starts on its own. */
  endLine(): void {
    if (!this.#atLineStart) this.#print("\n");
  }

  /** A line that shows what is going on until anything else is printed ("thinking…"). */
  status(text: string): void {
    if (!this.styled || this.#status) return;
    this.endLine();
    this.#out.write(toAnsi(styledText([{ text, style: STYLE.dim }])));
    this.#status = true;
  }

  /**
   * Shows `next` as the text of `message`, printing only what the terminal lacks. `final`:
   * the message will not change again, so its line ends with it (in the same write): a log
   * line written to the same file (`2>&1`) starts on a line of its own.
   */
  show(message: PrintedMessage, next: StyledText, final = false): void {
    const shown = message.shown;
    // Only the message printed last can change in place; another starts on a new line.
    const resume = shown && this.#last === message ? this.#resumeAt(shown, next) : undefined;
    if (resume === undefined) this.endLine();
    const added = toAnsi(resume === undefined ? next : sliceStyled(next, resume));
    this.#print(final && !next.text.endsWith("\n") ? `${added}\n` : added);
    message.shown = next;
    this.#last = final ? undefined : message;
  }

  /**
   * Where in `next` printing goes on: the end of `shown` when `next` only adds to it, else
   * the start of the line that changed, once the cursor is back there.
   */
  #resumeAt(shown: StyledText, next: StyledText): number | undefined {
    const from = firstDifference(shown, next);
    return from === shown.text.length ? from : this.#rewind(shown, from);
  }

  /**
   * Moves back to the start of the line of `shown` that holds `from` and erases from there;
   * returns where in the text that line starts. Undefined on piped output, or when those
   * lines may have scrolled off the screen and cannot be reached.
   */
  #rewind(shown: StyledText, from: number): number | undefined {
    if (!this.styled) return undefined;
    const lineStart = shown.text.lastIndexOf("\n", from - 1) + 1;
    const rows = rowsOf(shown.text.slice(lineStart), this.#out.columns || 80) - 1;
    if (rows >= (this.#out.rows || 24)) return undefined;
    this.#clearStatus();
    this.#out.write(`${TO_LINE_START}${up(rows)}${ERASE_BELOW}`);
    this.#atLineStart = true;
    return lineStart;
  }

  #print(text: string): void {
    if (!text) return;
    this.#clearStatus();
    this.#out.write(text);
    this.#atLineStart = text.endsWith("\n");
    this.#last = undefined;
  }

  #clearStatus(): void {
    if (!this.#status) return;
    this.#status = false;
    this.#out.write(`${TO_LINE_START}${ERASE_LINE}`);
  }
}

/**
 * readline's output: the prompt and the echo of what the person types, passed on to the
 * terminal unless held. While an answer prints, readline still reads the keys (Ctrl+C must
 * work), but what it would echo is dropped, so typing cannot land inside the answer.
 */
export class EchoGate extends Writable {
  readonly isTTY = true;
  #held = false;
  readonly #out: ConsoleStream;
  readonly #print: (text: string) => void;

  constructor(out: ConsoleStream, print: (text: string) => void) {
    super({ decodeStrings: false });
    this.#out = out;
    this.#print = print;
    // readline lays out long lines by the terminal's width, and redoes it on a resize.
    out.on("resize", () => this.emit("resize"));
  }

  get columns(): number | undefined {
    return this.#out.columns;
  }

  get rows(): number | undefined {
    return this.#out.rows;
  }

  get held(): boolean {
    return this.#held;
  }

  hold(): void {
    this.#held = true;
  }

  release(): void {
    this.#held = false;
  }

  override _write(chunk: string | Buffer, _encoding: string, done: () => void): void {
    if (!this.#held) this.#print(chunk.toString());
    done();
  }
}
