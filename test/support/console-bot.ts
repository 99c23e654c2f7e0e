import { startBotInProcess } from "./in-process-bot.ts";

/** What a run of the console channel left: its exit code and its two outputs. */
export interface ConsoleRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The whole bot in-process with `input` as the console's stdin, run until that input is
 * answered and the console ends, as `printf … | npm start` runs it: only `env` as its
 * environment (LOG_LEVEL warn unless it says), a DATA_DIR of its own unless it names one.
 */
export async function runConsole(options: {
  input: string;
  env?: Record<string, string>;
}): Promise<ConsoleRun> {
  const bot = startBotInProcess({
    env: { LOG_LEVEL: "warn", ...options.env },
    input: options.input,
  });
  const code = await bot.exited;
  return { code, stdout: bot.stdout, stderr: bot.stderr };
}
