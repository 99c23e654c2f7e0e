import { config as loadDotenv } from "dotenv";
import { runConsoleChannel } from "../adapters/console/index.ts";
import { createBackendClient } from "./backend/client.ts";
import { Bridge } from "./bridge/bridge.ts";
import type { BackendConfig, Config } from "./config.ts";
import { loadConfig, secretsOf } from "./config.ts";
import { ConfigError } from "./errors.ts";
import { createLogger, type Logger } from "./log.ts";
import { startSimulator } from "./simulator/index.ts";
import { openStore } from "./store/open-store.ts";

/** The composition root: the one place that knows every part. */
async function main(): Promise<number> {
  loadDotenv({ quiet: true });
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`chatbot-bridge cannot start: ${error.message}\n`);
    return 1;
  }
  const log = createLogger({ level: config.logLevel, secrets: secretsOf(config) });
  const cleanup: (() => Promise<void>)[] = [];
  try {
    const backendConfig = config.backend ?? (await startSimulatedBackend(log, cleanup));
    const backend = createBackendClient({
      ...backendConfig,
      timeoutMs: config.backendTimeoutMs,
      idleTimeoutMs: config.backendIdleTimeoutMs,
    });
    cleanup.unshift(() => backend.close());
    const store = await openStore({ storeUrl: config.storeUrl, dataDir: config.dataDir });
    cleanup.unshift(() => store.close());
    const bridge = new Bridge({
      backend,
      store,
      log,
      defaultLanguage: config.defaultLanguage,
      guards: config.guards,
      maxAnswerChars: config.maxAnswerChars,
    });
    if (config.slack || config.telegram) {
      log.error("Slack and Telegram channels are not available in this version yet");
      return 1;
    }
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    await runConsoleChannel({
      bridge,
      input: process.stdin,
      output: process.stdout,
      interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
      signal: stop.signal,
    });
    return 0;
  } catch (error) {
    log.fatal({ err: error }, "chatbot-bridge stopped");
    return 1;
  } finally {
    for (const close of cleanup) await close().catch(() => undefined);
  }
}

async function startSimulatedBackend(
  log: Logger,
  cleanup: (() => Promise<void>)[],
): Promise<BackendConfig> {
  const simulator = await startSimulator();
  cleanup.push(() => simulator.close());
  log.info(
    { url: simulator.url },
    "CHATBOT_BASE_URL is not set: answers come from the built-in simulated backend",
  );
  return { baseUrl: simulator.url, apiKey: simulator.apiKey, botUid: simulator.botUid };
}

process.exitCode = await main();
