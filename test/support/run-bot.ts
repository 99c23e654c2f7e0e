import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { inject } from "vitest";
// The type of what bot-build.ts provides (inject("botBuild")).
import type {} from "./bot-build.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const MAIN = join(ROOT, "src/main.ts");
// By path: the child runs in a temporary directory where `tsx` alone would not resolve.
const TSX_LOADER = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;

/**
 * The command that runs the bot: the run's build of it (bot-build.ts, vitest's globalSetup),
 * else `src/main.ts` through tsx, as `npm start` runs it.
 */
export function botCommand(): string[] {
  const build = inject("botBuild");
  return build
    ? [process.execPath, join(build, "src/main.js")]
    : [process.execPath, "--import", TSX_LOADER, MAIN];
}

export interface BotRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * How long a test waits for a bot process to start: a second or two alone, many more on a
 * loaded two-core machine with several starting at once.
 */
export const START_MS = 30_000;

/** A fresh working directory for a bot process: its own `.env`-free cwd and data dir. */
export function botWorkDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), "bot-run-"));
}

/**
 * Runs the bot as a user would (botCommand), with stdin from `input` and only the given
 * environment plus PATH, so no setting leaks in from the machine running the tests.
 */
export async function runBot(options: {
  input: string;
  env?: Record<string, string>;
  cwd: string;
  timeoutMs?: number;
  /** stderr into stdout's pipe, as `npm start > out.log 2>&1` has them: `stderr` stays empty. */
  oneOutput?: boolean;
}): Promise<BotRun> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const bot = startBot({
    cwd: options.cwd,
    env: { LOG_LEVEL: "warn", ...options.env },
    input: options.input,
    oneOutput: options.oneOutput,
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    bot.child.kill("SIGKILL");
  }, timeoutMs);
  const code = await bot.exited;
  clearTimeout(timer);
  if (timedOut) {
    throw new Error(`bot did not exit within ${timeoutMs} ms:\n${bot.stdout}\n${bot.stderr}`);
  }
  return { code, stdout: bot.stdout, stderr: bot.stderr };
}

/** A bot process that keeps running (platform channels): its output so far, and a stop. */
export interface RunningBot {
  child: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  /**
   * Resolves with the first stderr JSON log line whose `msg` is `match`, or, given fields,
   * whose fields equal all of them (`{ msg: "channel started", channel: "slack" }`); with
   * `after`, the first past that many log lines (a count `logEntries(bot.stderr).length` took).
   */
  logLine(match: LogMatch, timeoutMs?: number, after?: number): Promise<Record<string, unknown>>;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Resolves with the exit code once the process has ended. */
  readonly exited: Promise<number | null>;
}

/** One JSON log line of the bot, as pino writes it (level 30 info, 40 warn, 50 error). */
export interface LogEntry {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** The JSON log lines in a process's output; anything else there (an answer) is left out. */
export function logEntries(output: string): LogEntry[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogEntry);
}

/** A log line's `msg`, or fields it has (all of them equal). */
export type LogMatch = string | Record<string, unknown>;

/** The JSON log lines of `output` that `match`, past its first `after` log lines. */
export function matchingLines(output: string, match: LogMatch, after = 0): LogEntry[] {
  const fields = typeof match === "string" ? { msg: match } : match;
  return logEntries(output)
    .slice(after)
    .filter((entry) => Object.entries(fields).every(([key, value]) => entry[key] === value));
}

/** Starts the bot (botCommand); with `input`, that text is its stdin (then closed). */
export function startBot(options: {
  env: Record<string, string>;
  cwd: string;
  input?: string;
  oneOutput?: boolean | undefined;
}): RunningBot {
  const command = botCommand();
  const [file, args] = options.oneOutput
    ? ["sh", ["-c", 'exec "$@" 2>&1', "sh", ...command]]
    : [process.execPath, command.slice(1)];
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "info", ...options.env },
    stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolvePromise) => child.on("close", resolvePromise));
  return {
    child,
    exited,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    async logLine(match, timeoutMs = 10_000, after = 0) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const [entry] = matchingLines(stderr, match, after);
        if (entry) return entry;
        if (child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`no log line ${JSON.stringify(match)} within ${timeoutMs} ms:\n${stderr}`);
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * Polls `probe` until it gives a value (what a fake received, say, or what a bot's /metrics or
 * Redis says); fails after the timeout.
 */
export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
