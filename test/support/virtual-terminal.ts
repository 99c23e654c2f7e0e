/** Text attributes a cell can carry, as SGR sets them. */
export type Attribute = "bold" | "dim" | "italic" | "underline" | "strike" | "color";

interface Cell {
  char: string;
  attributes: ReadonlySet<Attribute>;
}

interface Line {
  cells: Cell[];
  /** The line above ran past the right edge and continued here. */
  wrapped: boolean;
}

const SGR_ON: Record<number, Attribute> = {
  1: "bold",
  2: "dim",
  3: "italic",
  4: "underline",
  9: "strike",
};
const SGR_OFF: Record<number, Attribute[]> = {
  22: ["bold", "dim"],
  23: ["italic"],
  24: ["underline"],
  29: ["strike"],
  39: ["color"],
};

// A control sequence (CSI … final byte), or save/restore cursor (ESC 7, ESC 8).
// biome-ignore lint/suspicious/noControlCharactersInRegex: reading control sequences is the point.
const SEQUENCE = /^\u001b(?:\[([?0-9;]*)([@-~])|[78])/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: reading control sequences is the point.
const UNFINISHED_SEQUENCE = /^\u001b(\[[?0-9;]*)?$/;

/**
 * What a person sees in a terminal that was sent `write(...)` output: the few VT100 controls
 * readline and the console channel use (CR, LF as the tty's CR LF, BS, cursor moves, erase
 * line and erase below, SGR), autowrap at the right edge, a screen of `rows` at the bottom
 * of a scrollback that keeps every line. Each character takes one cell.
 */
export class VirtualTerminal {
  readonly #lines: Line[] = [{ cells: [], wrapped: false }];
  #x = 0;
  #y = 0;
  /** First line of the screen: the cursor cannot go above it. */
  #top = 0;
  #pendingWrap = false;
  #attributes = new Set<Attribute>();
  #partial = "";

  constructor(
    readonly columns: number,
    readonly rows: number,
  ) {}

  write(data: string | Uint8Array): void {
    let text = this.#partial + (typeof data === "string" ? data : Buffer.from(data).toString());
    this.#partial = "";
    while (text.length > 0) {
      const sequence = SEQUENCE.exec(text);
      if (sequence) {
        if (sequence[2] !== undefined) this.#csi(sequence[1] ?? "", sequence[2]);
        text = text.slice(sequence[0].length);
        continue;
      }
      if (text.startsWith("\u001b")) {
        // A sequence cut between two writes: kept for the next one.
        if (UNFINISHED_SEQUENCE.test(text)) {
          this.#partial = text;
          return;
        }
        text = text.slice(1);
        continue;
      }
      const char = String.fromCodePoint(text.codePointAt(0) ?? 0);
      text = text.slice(char.length);
      this.#char(char);
    }
  }

  /** Every line, scrollback included, with wrapped lines joined and trailing blanks cut. */
  text(): string {
    const logical: string[] = [];
    for (const line of this.#lines) {
      const chars = line.cells.map((cell) => cell.char).join("");
      if (line.wrapped && logical.length > 0) logical[logical.length - 1] += chars;
      else logical.push(chars);
    }
    return logical
      .map((line) => line.trimEnd())
      .join("\n")
      .replace(/\n+$/, "");
  }

  /** The line the cursor is on, as shown. */
  get cursorLine(): string {
    return (this.#lines[this.#y]?.cells ?? [])
      .map((cell) => cell.char)
      .join("")
      .trimEnd();
  }

  /** The attributes of each character of the first place `text` shows (one line). */
  attributesOf(text: string): ReadonlySet<Attribute>[] | undefined {
    for (const line of this.#lines) {
      const chars = line.cells.map((cell) => cell.char).join("");
      const at = chars.indexOf(text);
      if (at >= 0) return line.cells.slice(at, at + text.length).map((cell) => cell.attributes);
    }
    return undefined;
  }

  #char(char: string): void {
    switch (char) {
      case "\r":
        this.#x = 0;
        this.#pendingWrap = false;
        return;
      case "\n":
        // The tty turns LF into CR LF on the way out (ONLCR, kept in raw mode by libuv).
        this.#x = 0;
        this.#lineFeed();
        return;
      case "\b":
        this.#x = Math.max(0, this.#x - 1);
        this.#pendingWrap = false;
        return;
      case "\u0007":
        return;
      case "\t":
        this.#x = Math.min(this.columns - 1, (Math.floor(this.#x / 8) + 1) * 8);
        return;
    }
    if (this.#pendingWrap) {
      this.#x = 0;
      this.#lineFeed();
      this.#line().wrapped = true;
    }
    const cells = this.#line().cells;
    while (cells.length < this.#x) cells.push({ char: " ", attributes: new Set() });
    cells[this.#x] = { char, attributes: new Set(this.#attributes) };
    if (this.#x === this.columns - 1) this.#pendingWrap = true;
    else this.#x++;
  }

  #csi(params: string, final: string): void {
    if (params.startsWith("?")) return;
    const numbers = params === "" ? [] : params.split(";").map((p) => Number(p || "0"));
    const n = Math.max(1, numbers[0] ?? 1);
    this.#pendingWrap = final === "m" ? this.#pendingWrap : false;
    switch (final) {
      case "A":
        this.#y = Math.max(this.#top, this.#y - n);
        return;
      case "B":
        this.#y = Math.min(this.#y + n, this.#top + this.rows - 1);
        this.#ensureLine();
        return;
      case "C":
        this.#x = Math.min(this.columns - 1, this.#x + n);
        return;
      case "D":
        this.#x = Math.max(0, this.#x - n);
        return;
      case "G":
        this.#x = Math.min(this.columns - 1, n - 1);
        return;
      case "K":
        this.#eraseLine(numbers[0] ?? 0);
        return;
      case "J":
        this.#eraseLine(0);
        for (let y = this.#y + 1; y < this.#lines.length; y++) {
          this.#lines[y] = { cells: [], wrapped: false };
        }
        return;
      case "m":
        this.#sgr(numbers.length === 0 ? [0] : numbers);
        return;
    }
  }

  #eraseLine(mode: number): void {
    const cells = this.#line().cells;
    if (mode === 0) cells.splice(this.#x);
    else if (mode === 1) for (let x = 0; x <= this.#x && x < cells.length; x++) cells[x] = blank();
    else cells.splice(0);
  }

  #sgr(codes: number[]): void {
    for (const code of codes) {
      if (code === 0) this.#attributes.clear();
      else if (SGR_ON[code]) this.#attributes.add(SGR_ON[code]);
      else if (SGR_OFF[code]) for (const off of SGR_OFF[code]) this.#attributes.delete(off);
      else if ((code >= 30 && code <= 37) || (code >= 90 && code <= 97)) {
        this.#attributes.add("color");
      }
    }
  }

  #lineFeed(): void {
    this.#pendingWrap = false;
    this.#y++;
    this.#ensureLine();
    this.#top = Math.max(this.#top, this.#y - this.rows + 1);
  }

  #ensureLine(): void {
    while (this.#lines.length <= this.#y) this.#lines.push({ cells: [], wrapped: false });
  }

  #line(): Line {
    this.#ensureLine();
    return this.#lines[this.#y] as Line;
  }
}

function blank(): Cell {
  return { char: " ", attributes: new Set() };
}
