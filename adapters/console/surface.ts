import type { MessageRef, ReplySurface } from "../../src/bridge/ports.ts";
import { consoleRenderer } from "./render.ts";

/** What one console "message" has printed so far. */
interface PrintedMessage {
  printed: string;
}

/**
 * The terminal as a reply surface. A terminal cannot edit what it printed, but an answer
 * only grows, so an edit prints what was added; anything else (an error replacing a
 * placeholder) starts on a new line.
 */
export class ConsoleOutput {
  readonly #out: NodeJS.WritableStream;
  #atLineStart = true;

  constructor(out: NodeJS.WritableStream) {
    this.#out = out;
  }

  write(text: string): void {
    if (!text) return;
    this.#out.write(text);
    this.#atLineStart = text.endsWith("\n");
  }

  /** Ends the current line, if one is open, so the next output starts on its own. */
  endLine(): void {
    if (!this.#atLineStart) this.write("\n");
  }
}

export function createConsoleSurface(output: ConsoleOutput): ReplySurface {
  return {
    renderer: consoleRenderer,
    // Nothing limits a terminal: no splitting, and every chunk is shown as it arrives.
    limits: { maxMessageLength: Number.POSITIVE_INFINITY, minEditIntervalMs: 0 },
    async post(rendered): Promise<MessageRef> {
      output.endLine();
      output.write(rendered);
      return { printed: rendered } satisfies PrintedMessage;
    },
    async edit(ref, rendered) {
      const message = ref as PrintedMessage;
      if (rendered.startsWith(message.printed)) {
        output.write(rendered.slice(message.printed.length));
      } else {
        output.endLine();
        output.write(rendered);
      }
      message.printed = rendered;
    },
    async notice(rendered) {
      output.endLine();
      output.write(`${rendered}\n`);
    },
    // The answer itself appears the moment it starts; no placeholder line is needed.
    async showTyping() {},
  };
}
