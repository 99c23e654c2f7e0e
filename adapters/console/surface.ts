import type { MessageRef, Renderer, ReplySurface } from "../../src/ports.ts";
import { MAX_MESSAGE_LENGTH, PIPED_EDIT_INTERVAL_MS, STYLED_EDIT_INTERVAL_MS } from "./limits.ts";
import { renderTerminal, terminalRenderer, verbatimRenderer } from "./render.ts";
import { settledPrefix } from "./settle.ts";
import { fromAnsi, toAnsi } from "./styled-text.ts";
import type { ConsoleOutput, PrintedMessage } from "./terminal.ts";

/**
 * A terminal's rendering of an answer: styled, and while it streams only up to its settled
 * part (see settle.ts), so that what is printed only grows.
 */
const streamingTerminalRenderer: Renderer = {
  ...terminalRenderer,
  interim: (markdown) => toAnsi(renderTerminal(settledPrefix(markdown))),
};

/**
 * The terminal as a reply surface. A terminal cannot edit what it printed: ConsoleOutput
 * prints what was added, or rewrites the lines that changed. Piped output is the answer's
 * Markdown verbatim, as it grows.
 */
export function createConsoleSurface(
  output: ConsoleOutput,
  /** The status line's words ("thinking…"), in the console's language now. */
  thinking: () => string,
): ReplySurface {
  return {
    renderer: output.styled ? streamingTerminalRenderer : verbatimRenderer,
    limits: {
      maxMessageLength: MAX_MESSAGE_LENGTH,
      minEditIntervalMs: output.styled ? STYLED_EDIT_INTERVAL_MS : PIPED_EDIT_INTERVAL_MS,
    },
    async send(request): Promise<MessageRef> {
      // The console has no native streams: the engine posts and edits.
      if (request.call !== "post" && request.call !== "edit") {
        return "ref" in request ? request.ref : {};
      }
      const message = request.call === "post" ? {} : (request.ref as PrintedMessage);
      output.show(message, fromAnsi(request.text), request.final);
      return message;
    },
    async notice(rendered) {
      output.endLine();
      output.write(`${rendered}\n`);
    },
    // Piped output gets the answer alone; a terminal shows a status line until it starts.
    async showTyping() {
      output.status(thinking());
    },
  };
}
