import { createInterface } from "node:readline";
import type { Bridge } from "../../src/bridge/bridge.ts";
import { ConsoleOutput, createConsoleSurface } from "./surface.ts";
import { toIncoming } from "./to-incoming.ts";

export interface ConsoleChannelOptions {
  bridge: Bridge;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** A person at a terminal: a prompt and a greeting. Otherwise answers only, verbatim. */
  interactive: boolean;
  /** Said once under the welcome line, in an interactive terminal. */
  greeting?: string | undefined;
  /** Stops reading new lines (the process is shutting down). */
  signal?: AbortSignal;
}

const PROMPT = "› ";

/**
 * Chats in the terminal: each line is a question or a command, answered in order as it
 * streams. Resolves once the input has ended and the last answer is complete.
 */
export async function runConsoleChannel(options: ConsoleChannelOptions): Promise<void> {
  const output = new ConsoleOutput(options.output);
  const surface = createConsoleSurface(output);
  const lines = createInterface({
    input: options.input,
    output: options.interactive ? options.output : undefined,
    terminal: options.interactive,
    prompt: PROMPT,
  });
  let closed = false;
  lines.on("close", () => {
    closed = true;
  });
  options.signal?.addEventListener("abort", () => lines.close(), { once: true });
  // A terminal in raw mode turns Ctrl+C into an event instead of a signal: stop as a signal would.
  lines.on("SIGINT", () => process.kill(process.pid, "SIGINT"));
  if (options.interactive) {
    output.write("Chat with the chatbot: type a question, /help for commands, Ctrl+D to quit.\n");
    if (options.greeting) output.write(`${options.greeting}\n`);
    lines.prompt();
  }
  // One line at a time: the next question waits for the answer before it, as in a chat.
  for await (const line of lines) {
    if (line.trim()) {
      await options.bridge.handle(toIncoming(line), surface);
      output.endLine();
    }
    if (options.interactive && !closed) lines.prompt();
  }
  output.endLine();
}
