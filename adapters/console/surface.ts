import type { MessageRef, ReplySurface, SendOptions } from "../../src/ports.ts";
import { MAX_MESSAGE_LENGTH, PIPED_EDIT_INTERVAL_MS, STYLED_EDIT_INTERVAL_MS } from "./limits.ts";
import { renderTerminal, terminalRenderer, verbatimRenderer } from "./render.ts";
import { settledPrefix } from "./settle.ts";
import { fromAnsi, type StyledText } from "./styled-text.ts";
import type { ConsoleOutput, PrintedMessage } from "./terminal.ts";

const THINKING = "thinking…";

/**
 * The terminal as a reply surface. A terminal cannot edit what it printed: ConsoleOutput
 * prints what was added, or rewrites the lines that changed. On a terminal an answer that is
 * still streaming is shown up to its settled part (see settle.ts), so that it only grows.
 */
export function createConsoleSurface(output: ConsoleOutput): ReplySurface {
  const styled = output.styled;
  const textOf = (rendered: string, options: SendOptions): StyledText => {
    const source = options.source;
    if (styled && !options.final && source && source.note === undefined) {
      return renderTerminal(settledPrefix(source.markdown));
    }
    return fromAnsi(rendered);
  };
  return {
    renderer: styled ? terminalRenderer : verbatimRenderer,
    limits: {
      maxMessageLength: MAX_MESSAGE_LENGTH,
      minEditIntervalMs: styled ? STYLED_EDIT_INTERVAL_MS : PIPED_EDIT_INTERVAL_MS,
    },
    async post(rendered, options): Promise<MessageRef> {
      const message: PrintedMessage = {};
      output.show(message, textOf(rendered, options));
      return message;
    },
    async edit(ref, rendered, options) {
      output.show(ref as PrintedMessage, textOf(rendered, options));
    },
    async notice(rendered) {
      output.endLine();
      output.write(`${rendered}\n`);
    },
    // Piped output gets the answer alone; a terminal shows a status line until it starts.
    async showTyping() {
      output.status(THINKING);
    },
  };
}
