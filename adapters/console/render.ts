import type { Renderer } from "../../src/bridge/ports.ts";

// C0 controls but tab and newline, DEL, and C1 controls: an escape sequence from the backend
// could otherwise move the cursor, recolour or retitle the person's terminal.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** The terminal shows the chatbot's Markdown as it is written, minus terminal controls. */
export const consoleRenderer: Renderer = {
  render: (markdown) => sanitize(markdown),
  note: (text) => sanitize(text),
  measure: (rendered) => rendered.length,
};

function sanitize(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(CONTROL, "\uFFFD");
}
