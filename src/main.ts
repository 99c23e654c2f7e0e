import { config as loadDotenv } from "dotenv";
import { type Bot, botLogger, createBot } from "./bot.ts";
import { loadConfig, secretsOf, unknownSettings } from "./config.ts";
import { ConfigError, StartupError } from "./errors.ts";
import { type Logger, maskSecrets } from "./log.ts";
import { guardProcess } from "./process-guard.ts";

/**
 * The process around the bot (src/bot.ts): the environment and `.env`, the signals, the last
 * line of defence and the exit code.
 */
async function main(): Promise<number> {
  loadDotenv({ quiet: true });
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // A misspelt variable is often why a required one is missing: said with the problems.
    const hints = unknownSettings(process.env).map((warning) => `\n${warning}`);
    process.stderr.write(`chatbot-bridge cannot start: ${error.message}${hints.join("")}\n`);
    return 1;
  }
  // Only for what reaches the process itself; the bot logs its own work.
  const log = botLogger(config, process);
  for (const warning of unknownSettings(process.env)) log.warn(warning);
  // Past the drain's own grace: the channels' stop and the store's close get a moment too.
  const crashed = guardProcess(log, { exitAfterMs: config.shutdownGraceMs + 5_000 });
  const stop = new AbortController();
  let crash: Error | undefined;
  void crashed.then((error) => {
    crash = error;
    stop.abort();
  });
  onStopSignal(log, () => stop.abort());
  let bot: Bot;
  try {
    bot = await createBot(config, process, { signal: stop.signal });
  } catch (error) {
    if (error instanceof StartupError) {
      // Like a configuration problem: one plain line naming the setting, no stack.
      process.stderr.write(
        `chatbot-bridge cannot start: ${maskSecrets(error.message, secretsOf(config))}\n`,
      );
    }
    return 1;
  }
  const code = await bot.stopped;
  return crash ? 1 : code;
}

/**
 * Calls `stop` on the first SIGTERM or SIGINT. npm and tsx may both pass a signal on, so a
 * second one is only logged; the drain already under way decides when the process ends.
 */
function onStopSignal(log: Logger, stop: () => void): void {
  let received = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) {
      log.info({ signal }, "already stopping");
      return;
    }
    received = true;
    log.info({ signal }, "stop requested");
    stop();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}

const exitCode = await main();
// After a failure nothing may keep the process up without serving (a timer, a socket, a
// thread still busy): exit now. A clean stop ends on its own, once its output is out.
if (exitCode === 0) process.exitCode = 0;
else process.exit(exitCode);
