// Which product code runs for one message: the whole bot (createBot, as `npm start` builds
// it, embedded store) in this process on a fake platform of the tests, the simulator in a
// process of its own; after a warm-up, V8's precise coverage counts the functions that run
// from the message's delivery to its answer's end, then those that run over IDLE_MS with
// nobody writing (the process's timers, which may or may not beat within the message's window).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { createBot } from "../../src/bot.ts";
import { loadConfig } from "../../src/config.ts";
import { FunctionCoverage, type RanFunctions } from "./function-coverage.ts";
import { LogCount } from "./log-count.ts";
import { type PathPlatformName, startPathPlatform } from "./path-platforms.ts";
import { startSimulatorProcess } from "./simulator-process.ts";

export interface PathBenchOptions {
  platform: PathPlatformName;
  /** Messages answered before the measured one, in the same conversation. */
  warmUp: number;
}

/** A product file that ran for the message: the functions that did, and how many of them also ran idle. */
export interface PathFile {
  file: string;
  functions: string[];
  alsoIdle: number;
}

export interface PathRow {
  platform: PathPlatformName;
  message: string;
  warmUp: number;
  /** From the delivery to the answer's end, settle included: how long the counts were taken over. */
  windowMs: number;
  /** Files with at least one function that ran, most functions first. */
  files: PathFile[];
  functions: number;
  /** How long nobody wrote while the idle functions were counted. */
  idleMs: number;
  /** Product functions that ran with nobody writing, in any file. */
  idleFunctions: number;
  /** Answers the bot gave in all: one a message, the measured one's included, or the figures are off. */
  answers: number;
  /** Warnings and errors the bot logged. */
  problems: string[];
}

/** The bot logs this line once an answer is final on screen. */
const ANSWERED = "question answered";
/** After that line, the answer's record is closed and the question ends: a store trip or two. */
const SETTLE_MS = 300;
const ANSWER_TIMEOUT_MS = 30_000;
/** Longer than the period of the process's timers (the presence's renewal, the queue's rounds). */
const IDLE_MS = 10_000;

export async function benchPath(options: PathBenchOptions): Promise<PathRow> {
  // Before the bot exists, so that every call of its functions is counted.
  const coverage = await FunctionCoverage.start();
  const cleanups: (() => Promise<unknown>)[] = [() => coverage.stop()];
  try {
    const [simulator, platform, dir] = await Promise.all([
      startSimulatorProcess(),
      startPathPlatform(options.platform),
      mkdtemp(join(tmpdir(), "path-bench-")),
    ]);
    cleanups.unshift(
      () => simulator.close(),
      () => platform.close(),
      () => rm(dir, { recursive: true, force: true }),
    );
    const answered = new LogCount(ANSWERED);
    const config = loadConfig({
      PORT: "0",
      DATA_DIR: join(dir, "data"),
      LOG_LEVEL: "info",
      CHATBOT_BASE_URL: simulator.info.url,
      CHATBOT_API_KEY: simulator.info.apiKey,
      CHATBOT_BOT_UID: simulator.info.botUid,
      ...platform.env,
    });
    const bot = await createBot(config, {
      stdin: new PassThrough(),
      stdout: discard(),
      stderr: answered.stream,
    });
    cleanups.unshift(() => bot.stop());
    const botUrl = `http://127.0.0.1:${bot.port}`;
    const ask = async (n: number) => {
      await platform.send(n, botUrl);
      await answered.nth(n, ANSWER_TIMEOUT_MS);
      await sleep(SETTLE_MS);
    };
    for (let n = 1; n <= options.warmUp; n++) await ask(n);
    await coverage.take();
    const started = performance.now();
    await ask(options.warmUp + 1);
    const ran = await coverage.take();
    const windowMs = performance.now() - started;
    const idleMs = Math.max(windowMs, IDLE_MS);
    await sleep(idleMs);
    const idle = await coverage.take();
    const files = pathFiles(ran, idle);
    return {
      platform: options.platform,
      message: platform.message,
      warmUp: options.warmUp,
      windowMs: Math.round(windowMs),
      files,
      functions: files.reduce((sum, f) => sum + f.functions.length, 0),
      idleMs: Math.round(idleMs),
      idleFunctions: [...idle.values()].reduce((sum, names) => sum + names.length, 0),
      answers: answered.count,
      problems: [...new Set(answered.problems)],
    };
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

function pathFiles(ran: RanFunctions, idle: RanFunctions): PathFile[] {
  return [...ran]
    .map(([file, functions]) => {
      const idleHere = new Set(idle.get(file)?.map((f) => f.at));
      return {
        file,
        functions: functions.map((f) => f.name).sort(),
        alsoIdle: functions.filter((f) => idleHere.has(f.at)).length,
      };
    })
    .sort((a, b) => b.functions.length - a.functions.length || a.file.localeCompare(b.file));
}

function discard(): Writable {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}
