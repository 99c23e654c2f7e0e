import type { Bridge } from "../../src/bridge/bridge.ts";
import { parseCommand } from "../../src/bridge/commands.ts";
import type { ChannelLanguages } from "../../src/i18n/channel-language.ts";
import { type Translator, translator } from "../../src/i18n/translator.ts";
import type { Channel } from "../../src/ports.ts";
import { ConsoleInput } from "./input.ts";
import { sanitize } from "./render.ts";
import { createConsoleSurface } from "./surface.ts";
import { ConsoleOutput } from "./terminal.ts";
import { CHANNEL_KEY, toIncoming } from "./to-incoming.ts";

export interface ConsoleChannelOptions {
  bridge: Bridge;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /**
   * A person at a terminal: a prompt, a greeting, styled Markdown, Ctrl+C to stop an answer.
   * Otherwise answers only, verbatim.
   */
  interactive: boolean;
  /** The answers come from the built-in simulated chatbot: the welcome says how to use yours. */
  simulated?: boolean | undefined;
  /** The language the console speaks: one set with `/language`, else `locale`'s. */
  languages: ChannelLanguages;
  /** The person's language: the system locale (LANGUAGE, LC_ALL, LC_MESSAGES, LANG). */
  locale?: string | undefined;
}

/** The console channel: it ends of itself, so it has `done`. */
export interface ConsoleChannel extends Channel {
  readonly done: Promise<void>;
}

const PROMPT = "› ";

function welcome(t: Translator, simulated: boolean): string {
  const lines = [
    t.t("consoleWelcome", { command: "/help" }),
    t.t("consoleKeys", { stop: "Ctrl+C", quit: "Ctrl+D" }),
  ];
  if (simulated) lines.push(t.t("consoleSimulated", SIMULATED_SETTINGS));
  return lines.join("\n");
}

/** The settings that point the bot at a real chatbot. */
const SIMULATED_SETTINGS = {
  url: "CHATBOT_BASE_URL",
  key: "CHATBOT_API_KEY",
  uid: "CHATBOT_BOT_UID",
} as const;

/**
 * Chats in the terminal: each line is a question or a command, answered in order as it
 * streams. `start` opens the chat; `done` resolves once the input has ended (or the person
 * quit) and the last answer is complete; `stop` stops reading lines (the answer being shown
 * is the bridge's to finish or cut).
 */
export function createConsoleChannel(options: ConsoleChannelOptions): ConsoleChannel {
  const { interactive } = options;
  const authorLocale = async () => options.locale;
  // Read again after each line: `/language` may have changed it.
  const speaking = () => options.languages.translatorFor(CHANNEL_KEY, authorLocale);
  // Set by `start`, before the first line is read.
  let t = translator("en");
  const output = new ConsoleOutput(options.output, { styled: interactive });
  const surface = createConsoleSurface(output, () => t.t("consoleThinking"));
  const input = new ConsoleInput({
    input: options.input,
    echo: interactive ? output.echo : undefined,
    prompt: PROMPT,
  });
  const quit = () => {
    input.drop();
    input.close();
  };
  let answering: AbortController | undefined;
  // A reader that went away (`npm start | head`, a closed terminal) ends the chat: nobody
  // reads the answers any more. Handled here, the write error is no crash; later writes to the
  // closed stream fail the same way and land here too.
  options.output.on("error", () => {
    answering?.abort();
    quit();
  });
  let dropped = 0;
  // The first Ctrl+C stops the answer and the lines typed ahead; a second one, or one at
  // the prompt, quits.
  input.onInterrupt = () => {
    if (answering && !answering.signal.aborted) {
      answering.abort();
      dropped += input.drop();
    } else {
      answering?.abort();
      quit();
    }
  };

  // `/stop` typed while an answer prints stops it at once, as in any thread; it waits no turn.
  input.onTypedAhead = (text) => {
    const command = parseCommand(text);
    if (!answering || command === undefined || !("name" in command) || command.name !== "stop") {
      return false;
    }
    void options.bridge.handle(toIncoming(text), surface);
    return true;
  };

  const chat = async () => {
    // One line at a time: the next question waits for the answer before it, as in a chat.
    for (let line = await input.next(); line; line = await input.next()) {
      if (line.text.trim()) {
        // Typed while the answer before it printed: shown now, where its own answer starts.
        if (line.typedAhead) output.write(`${PROMPT}${sanitize(line.text)}\n`);
        answering = new AbortController();
        await options.bridge.handle(
          toIncoming(line.text, { signal: answering.signal, authorLocale }),
          surface,
        );
        answering = undefined;
        output.endLine();
        t = await speaking();
        if (dropped > 0) {
          output.write(`${t.t("consoleDropped", { count: dropped })}\n`);
          dropped = 0;
        }
      }
      if (input.waiting === 0) input.prompt();
    }
    output.endLine();
  };

  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    name: "console",
    routes: [],
    done: opened.then(chat),
    async start() {
      t = await speaking();
      if (interactive) {
        output.write(`${welcome(t, options.simulated ?? false)}\n`);
        input.prompt();
      }
      open();
      return { mode: interactive ? "interactive" : "piped" };
    },
    async stop() {
      quit();
    },
    unhealthyReason: () => undefined,
  };
}
