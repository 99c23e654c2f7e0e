/** Text attributes the console uses, as bits of a style. */
export const STYLE = {
  bold: 1,
  italic: 2,
  strike: 4,
  code: 8,
  dim: 16,
  underline: 32,
} as const;

// SGR parameters of each attribute (ECMA-48 §8.3.117); code shows in cyan.
const SGR: readonly [bit: number, parameter: string][] = [
  [STYLE.bold, "1"],
  [STYLE.dim, "2"],
  [STYLE.italic, "3"],
  [STYLE.underline, "4"],
  [STYLE.strike, "9"],
  [STYLE.code, "36"],
];

const RESET = "\u001b[0m";

/** A piece of text in one style. */
export interface Run {
  text: string;
  style: number;
}

/**
 * Text with a style per character: `styles` holds one character per character of `text`,
 * so that two texts compare, and cut, as plain strings do.
 */
export interface StyledText {
  text: string;
  styles: string;
}

export function styledText(runs: readonly Run[]): StyledText {
  let text = "";
  let styles = "";
  for (const run of runs) {
    text += run.text;
    // A line break carries no style: the same text compares equal however it was styled.
    const mark = String.fromCharCode(run.style);
    styles += run.text.replace(/[\s\S]/g, (char) => (char === "\n" ? "\0" : mark));
  }
  return { text, styles };
}

export function plainText(text: string): StyledText {
  return styledText([{ text, style: 0 }]);
}

export function sliceStyled(styled: StyledText, start: number): StyledText {
  return { text: styled.text.slice(start), styles: styled.styles.slice(start) };
}

/** Where two styled texts first differ, in text or in style (the shorter length if nowhere). */
export function firstDifference(a: StyledText, b: StyledText): number {
  const length = Math.min(a.text.length, b.text.length);
  for (let i = 0; i < length; i++) {
    if (a.text[i] !== b.text[i] || a.styles[i] !== b.styles[i]) return i;
  }
  return length;
}

/**
 * The text with SGR sequences. Every line ends with the style reset, so a terminal can be
 * left, or rewritten, at any line start without a style running on.
 */
export function toAnsi(styled: StyledText): string {
  let out = "";
  let active = 0;
  for (let i = 0; i < styled.text.length; ) {
    const style = styled.styles.charCodeAt(i);
    let end = i + 1;
    while (
      end < styled.text.length &&
      styled.styles.charCodeAt(end) === style &&
      styled.text[end] !== "\n" &&
      styled.text[end - 1] !== "\n"
    ) {
      end++;
    }
    const piece = styled.text.slice(i, end);
    if (piece === "\n") {
      if (active) out += RESET;
      active = 0;
    } else if (style !== active) {
      if (active) out += RESET;
      if (style) out += sgr(style);
      active = style;
    }
    out += piece;
    i = end;
  }
  return active ? out + RESET : out;
}

/** Reads back what `toAnsi` wrote; text without SGR sequences is unstyled. */
export function fromAnsi(ansi: string): StyledText {
  const runs: Run[] = [];
  let style = 0;
  let at = 0;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: reading SGR sequences is the point.
  for (const match of ansi.matchAll(/\u001b\[([\d;]*)m/g)) {
    runs.push({ text: ansi.slice(at, match.index), style });
    style = 0;
    for (const parameter of (match[1] ?? "").split(";")) {
      style |= SGR.find(([, p]) => p === parameter)?.[0] ?? 0;
    }
    at = match.index + match[0].length;
  }
  runs.push({ text: ansi.slice(at), style });
  return styledText(runs);
}

function sgr(style: number): string {
  const parameters = SGR.filter(([bit]) => style & bit).map(([, parameter]) => parameter);
  return `\u001b[${parameters.join(";")}m`;
}
