/**
 * A note of the bot's own, with the commands and codes its catalog writes as `…` ("expected
 * `/stop`") shown as code on the platform and the rest as text: `show.code` and `show.text`
 * escape each part for it. A pair of backticks in an inserted name shows its words in
 * monospace, nothing more.
 */
export function noteWithCode(
  text: string,
  show: { code(value: string): string; text(value: string): string },
): string {
  return text
    .split(CODE_SPAN)
    .map((part, i) => (i % 2 === 1 ? show.code(part.slice(1, -1)) : show.text(part)))
    .join("");
}

// The split keeps each span (its group) at the odd places.
const CODE_SPAN = /(`[^`\n]+`)/;
