import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { type Bot, createBot } from "../../src/bot.ts";
import { type Config, loadConfig, secretsOf } from "../../src/config.ts";
import { ConfigError, StartupError } from "../../src/errors.ts";
import { maskSecrets } from "../../src/log.ts";
import { type LogEntry, logEntries, until } from "./run-bot.ts";

/** A whole bot started in the test's own process (src/bot.ts), as `npm start` would start it. */
export interface InProcessBot {
  /** The console channel's output so far. */
  readonly stdout: string;
  /** Log lines so far, and a start's one-line refusal, as the process would write them. */
  readonly stderr: string;
  /** The JSON log lines so far. */
  readonly logs: readonly LogEntry[];
  /** Resolves with the bot once it takes questions; rejects when it could not start. */
  readonly started: Promise<Bot>;
  /** Resolves with the exit code the process would have (0 orderly, 1 a failure). */
  readonly exited: Promise<number>;
  /**
   * Resolves with the first log line whose `msg` is `match`, or, given fields, whose fields
   * equal all of them, as soon as it is written.
   */
  logLine(match: string | Record<string, unknown>, timeoutMs?: number): Promise<LogEntry>;
  /** The orderly stop (SIGTERM's); resolves with the exit code. */
  stop(): Promise<number>;
}

/** A fresh DATA_DIR for a bot. */
export async function freshDataDir(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), "bot-in-process-")), "data");
}

/**
 * Starts the bot with only `env` as its environment (no `.env`, nothing of the machine's),
 * on port 0 and in a DATA_DIR of its own unless `env` names them; `input` is the console
 * channel's stdin (then ended). Close it with stop().
 */
export function startBotInProcess(options: {
  env: Record<string, string>;
  input?: string;
  /** Changes the loaded configuration where no variable goes below minutes (a hand-over's idle end). */
  adjust?: (config: Config) => void;
}): InProcessBot {
  let stdout = "";
  let stderr = "";
  const lines: LogEntry[] = [];
  const waiters = new Set<(entry: LogEntry) => void>();
  const errorStream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const text = String(chunk);
      stderr += text;
      for (const entry of logEntries(text)) {
        lines.push(entry);
        for (const waiter of [...waiters]) waiter(entry);
      }
      done();
    },
  });
  const outStream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      stdout += String(chunk);
      done();
    },
  });
  const stopping = new AbortController();
  const stdin = new PassThrough();
  if (options.input !== undefined) stdin.end(options.input);
  const started = (async () => {
    const env = {
      PORT: "0",
      LOG_LEVEL: "info",
      DATA_DIR: options.env.DATA_DIR ?? (await freshDataDir()),
      ...options.env,
    };
    const config = loadConfig(env);
    options.adjust?.(config);
    try {
      return await createBot(
        config,
        { stdin, stdout: outStream, stderr: errorStream },
        { signal: stopping.signal },
      );
    } catch (error) {
      // As src/main.ts says it: one line naming the setting.
      if (error instanceof StartupError) {
        errorStream.write(
          `chatbot-bridge cannot start: ${maskSecrets(error.message, secretsOf(config))}\n`,
        );
      }
      throw error;
    }
  })();
  const exited = started.then(
    (bot) => bot.stopped,
    (error: unknown) => {
      if (error instanceof ConfigError) {
        errorStream.write(`chatbot-bridge cannot start: ${error.message}\n`);
      }
      return 1;
    },
  );
  const matches = (fields: Record<string, unknown>) => (entry: LogEntry) =>
    Object.entries(fields).every(([key, value]) => entry[key] === value);
  return {
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    logs: lines,
    started,
    exited,
    logLine(match, timeoutMs = 10_000) {
      const fields = typeof match === "string" ? { msg: match } : match;
      const found = lines.find(matches(fields));
      if (found) return Promise.resolve(found);
      return new Promise<LogEntry>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(`no log line ${JSON.stringify(fields)} within ${timeoutMs} ms:\n${stderr}`),
          );
        }, timeoutMs);
        const waiter = (entry: LogEntry) => {
          if (!matches(fields)(entry)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(entry);
        };
        waiters.add(waiter);
      });
    },
    stop() {
      // A start still under way (a channel retrying) ends too, as a signal ends it.
      stopping.abort();
      return exited;
    },
  };
}

/** What registers a resource to close after the test (cleanupAfterEach's `track`). */
export type Track = <T>(resource: T, close: (resource: T) => Promise<unknown>) => T;

/** startBotInProcess with `env`, stopped the orderly way after the test. */
export function trackedBot(
  track: Track,
  env: Record<string, string>,
  adjust?: (config: Config) => void,
): InProcessBot {
  return track(startBotInProcess({ env, adjust }), (bot) => bot.stop());
}

/** Where Slack delivers events to the bot, once it takes questions. */
export async function slackEventsOf(bot: InProcessBot): Promise<string> {
  const { port } = await bot.started;
  return `http://127.0.0.1:${port}/slack/events`;
}

/** The bot's HTTP server (`/healthz`, `/metrics`, …), once it takes questions. */
export async function httpOf(bot: InProcessBot): Promise<string> {
  const { port } = await bot.started;
  return `http://127.0.0.1:${port}`;
}

/** Whether the bot still runs: it has not stopped by itself. */
export async function isRunning(bot: InProcessBot): Promise<boolean> {
  // An `exited` already settled wins the race: it is listened to first.
  const running = Symbol("running");
  return (await Promise.race([bot.exited, Promise.resolve(running)])) === running;
}

/** A run of the bot to its end: the exit code the process would have, and its output. */
export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the bot in this process until it ends by itself, as `npm start < input` would: the
 * console channel answers each line of `input` and ends with it; a start that fails ends at
 * once. LOG_LEVEL is warn unless `env` says otherwise (as runBot's). Fails if it is still
 * running after `timeoutMs`.
 */
export async function runBotInProcess(options: {
  env: Record<string, string>;
  input: string;
  timeoutMs?: number;
}): Promise<InProcessRun> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const bot = startBotInProcess({
    env: { LOG_LEVEL: "warn", ...options.env },
    input: options.input,
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), timeoutMs);
  });
  const code = await Promise.race([bot.exited, late]);
  clearTimeout(timer);
  if (code === "late") {
    await bot.stop();
    throw new Error(`bot did not end within ${timeoutMs} ms:\n${bot.stdout}\n${bot.stderr}`);
  }
  return { code, stdout: bot.stdout, stderr: bot.stderr };
}

/**
 * The bot's `/metrics` at `base` (httpOf) once `ready` holds of the text (a count reached), as
 * a Prometheus server would scrape it again; fails with the last scrape after `timeoutMs`.
 */
export async function metricsWhen(
  base: string,
  ready: (text: string) => boolean,
  timeoutMs = 10_000,
): Promise<string> {
  let last = "";
  const scrape = async () => {
    last = await (await fetch(`${base}/metrics`)).text();
    return ready(last) ? last : undefined;
  };
  return until("/metrics as awaited", scrape, timeoutMs).catch((error: unknown) => {
    throw new Error(`${String(error)} (${timeoutMs} ms):\n${last}`);
  });
}
