const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

// East Asian wide and fullwidth characters and emoji take two cells in a terminal
// (https://www.unicode.org/reports/tr11/); marks and format characters take none.
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]|\p{Emoji_Presentation}|\p{Extended_Pictographic}\ufe0f/u;
const NO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]+$/u;
const TAB_STOP = 8;

/** The cells one line of text takes in a terminal (no control sequences in it). */
export function cellsOf(line: string): number {
  let cells = 0;
  for (const { segment } of graphemes.segment(line)) {
    if (segment === "\t") cells = (Math.floor(cells / TAB_STOP) + 1) * TAB_STOP;
    else if (!NO_WIDTH.test(segment)) cells += WIDE.test(segment) ? 2 : 1;
  }
  return cells;
}

/** The screen rows `text` takes on a terminal `columns` wide: each line wraps on its own. */
export function rowsOf(text: string, columns: number): number {
  return text
    .split("\n")
    .reduce((rows, line) => rows + Math.max(1, Math.ceil(cellsOf(line) / columns)), 0);
}
