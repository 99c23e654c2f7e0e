// The whole bot under load: src/main.ts in a process of its own, with its Slack (HTTP
// Events API) and Telegram (webhook) channels talking to fake platforms in a second process
// and the stamp backend in a third. This process delivers the questions, as the platforms
// would, and reads the bot's figures from its /metrics and /proc. One row per process.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { LOOP_DELAY_RESOLUTION_MS } from "../../src/loop-delay.ts";
import { spawnRedisServer } from "../support/redis.ts";
import { BENCH_SLACK_TOKEN } from "./bench-slack-api.ts";
import { BENCH_TELEGRAM_TOKEN } from "./bench-telegram-api.ts";
import { BENCH_SIGNING_SECRET, BENCH_WEBHOOK_SECRET, BotDeliveries } from "./bot-deliveries.ts";
import { type BotLoadResult, runBotLoad } from "./bot-load.ts";
import { grew, quantileBoundMs, scrapeMetrics, storeCallsByOperation } from "./bot-metrics.ts";
import { startBotProcess } from "./bot-process.ts";
import { type BotRow, type BotStore, summarizeBot } from "./bot-summary.ts";
import { startFakePlatformsProcess } from "./fake-platforms-process.ts";
import { type AckProbe, probeSlackAcks } from "./slack-ack-probe.ts";
import { QUICK, STAMP_ANSWER_MS } from "./stamp-backend.ts";
import {
  backendCpuMs,
  measureClockOffset,
  startStampBackendProcess,
} from "./stamp-backend-process.ts";
import { cpuMsSince, machineBusyPercentSince, machineCpuMs } from "./stats.ts";
import { warmUpRounds } from "./warm-up.ts";

export interface BotBenchOptions {
  concurrency: number;
  /** Slack events a second delivered while every conversation is busy; 0 (default): none. */
  ackEventsPerSecond?: number;
  /** How long those events are delivered. Default 5 s. */
  ackSeconds?: number;
  /** Questions per conversation; the middle ones are measured. Default 3. */
  rounds?: number;
  /** MAX_ACTIVE_ANSWERS; unset: the bot's default (questions past it wait in its queue). */
  maxActiveAnswers?: number;
  /** "redis": the bot's STORE_URL is a redis-server of the row's own. Default: embedded. */
  store?: BotStore;
  /**
   * A folder for the bot's CPU profile (`--cpu-prof`) and the measured window in its clock
   * (window.json), which test/bench/cpu-profile.ts reads to leave warm-up and shutdown out.
   */
  profileDir?: string;
}

/** An answer not closed by then has failed (it would normally close within ~5 s). */
const ANSWER_TIMEOUT_MS = 60_000;
/**
 * Before the measured answers, quick ones (connections open, the store warm) in conversations
 * of their own; where every answer streams at once (maxActiveAnswers), answers like the
 * measured ones after them (see warm-up.ts).
 */
const WARM_UP = { conversations: 200, firstSlot: 1_000_000, pacedFirstSlot: 2_000_000 };
/**
 * The bot's event-loop monitor (src/loop-delay.ts) looks every 10 ms and records the whole
 * interval: a loop on time shows ~10 ms. Taken off, the figure is how late the loop ran, as
 * the pipeline section's own monitor reports it.
 */
const LOOP_MONITOR_RESOLUTION_MS = LOOP_DELAY_RESOLUTION_MS;

export async function benchBot(options: BotBenchOptions): Promise<BotRow> {
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const [backend, platforms] = await Promise.all([
      startStampBackendProcess({ stampEnd: true }),
      startFakePlatformsProcess(),
    ]);
    cleanups.push(
      () => backend.close(),
      () => platforms.close(),
    );
    const { profileDir } = options;
    if (profileDir) await mkdir(profileDir, { recursive: true });
    const store = options.store ?? "embedded";
    const redis = store === "redis" ? await spawnRedisServer() : undefined;
    if (redis) cleanups.push(() => redis.close());
    const bot = await startBotProcess(
      {
        ...botEnv(backend.info.url, platforms.url),
        ...(options.maxActiveAnswers && { MAX_ACTIVE_ANSWERS: String(options.maxActiveAnswers) }),
        ...(redis && { STORE_URL: redis.url }),
      },
      profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
    );
    cleanups.unshift(() => bot.close());
    const deliveries = new BotDeliveries(bot.url);
    cleanups.unshift(() => deliveries.close());
    const clock = {
      backend: await measureClockOffset(backend.info.url),
      platforms: await measureClockOffset(platforms.url),
    };

    const warmUp = { deliveries, platforms, answerTimeoutMs: ANSWER_TIMEOUT_MS, botRss: () => 0 };
    await runBotLoad({
      ...warmUp,
      concurrency: WARM_UP.conversations,
      rounds: 2,
      rampMs: 0,
      firstSlot: WARM_UP.firstSlot,
      question: () => `warm up ${QUICK}`,
    });
    await sleep(1_000);
    // Before the paced warm-up, which grows the heap from here (see BotObservations.memory).
    const rssIdleBytes = bot.rssBytes();
    const rounds = options.rounds ?? 3;
    let memory: BotLoadResult | undefined;
    const cap = options.maxActiveAnswers;
    if (cap) {
      const paced = (times: number, botRss: () => number) =>
        runBotLoad({
          ...warmUp,
          botRss,
          concurrency: cap,
          rounds: times,
          rampMs: STAMP_ANSWER_MS,
          firstSlot: WARM_UP.pacedFirstSlot,
          question: (slot, round) => `Warm-up question ${round + 1} of ${slot}: how does it work?`,
        });
      // As the measured load, from idle: its RSS is what that load would grow (see memory).
      memory = await paced(rounds, () => bot.rssBytes());
      const more = warmUpRounds(cap) - rounds;
      if (more > 0) await paced(more, () => 0);
    }
    await platforms.reset();
    await sleep(1_000);

    // This scrape also starts the bot's event-loop delay histogram anew.
    const before = await scrapeMetrics(bot.url);
    const platformsCpuBefore = (await platforms.report()).cpuMs;
    const backendCpuBefore = await backendCpuMs(backend.info.url);
    const machine = machineCpuMs();
    const benchCpu = process.cpuUsage();
    const started = performance.now();
    const window = { startUs: monotonicUs(), endUs: 0 };
    const ackRate = options.ackEventsPerSecond ?? 0;
    let ack: Promise<AckProbe> | undefined;
    const load = await runBotLoad({
      deliveries,
      platforms,
      concurrency: options.concurrency,
      rounds,
      rampMs: STAMP_ANSWER_MS,
      answerTimeoutMs: ANSWER_TIMEOUT_MS,
      question: (slot, round) => `Question ${round + 1} of conversation ${slot}: how does it work?`,
      botRss: () => bot.rssBytes(),
      onFull: () => {
        if (ackRate > 0) ack = probeWhileBusy(bot.url, ackRate, options.ackSeconds ?? 5);
      },
    });
    const ackProbe = await ack;
    const wallMs = performance.now() - started;
    window.endUs = monotonicUs();
    if (profileDir) await writeFile(join(profileDir, "window.json"), JSON.stringify(window));
    const benchCpuMs = cpuMsSince(benchCpu);
    const after = await scrapeMetrics(bot.url);
    const machineBusyPercent = machineBusyPercentSince(machine);
    const report = await platforms.report();
    const backendCpu = (await backendCpuMs(backend.info.url)) - backendCpuBefore;
    return summarizeBot({
      concurrency: options.concurrency,
      store,
      ackEventsPerSecond: ackRate,
      load,
      memory,
      platforms: report,
      ack: ackProbe,
      rssIdleBytes,
      bot: {
        cpuMs: grew(before, after, "process_cpu_seconds_total") * 1000,
        edits: grew(before, after, "edits_total"),
        rateLimited: grew(before, after, "rate_limited_total"),
        storeOps: grew(before, after, "store_seconds_count"),
        storeOpsByOperation: storeCallsByOperation(before, after),
        deliveryP99Ms: quantileBoundMs(before, after, "delivery_seconds", 0.99),
        loopP99Ms: loopDelayMs(after.get("nodejs_eventloop_lag_p99_seconds")),
        loopMaxMs: loopDelayMs(after.get("nodejs_eventloop_lag_max_seconds")),
      },
      platformsCpuMs: report.cpuMs - platformsCpuBefore,
      backendCpuMs: backendCpu,
      benchCpuMs,
      machineBusyPercent,
      botLog: bot.logSummary(),
      clock,
      wallMs,
    });
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

/**
 * The bot's environment: both channels on, over HTTP (Slack's Events API, Telegram's
 * webhook: deliveries the bench can time), the stamp backend, no lead poll and no per-user
 * question limit (the bench's people ask more than a person would).
 */
export function botEnv(backendUrl: string, platformsUrl: string): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: BENCH_SLACK_TOKEN,
    SLACK_SIGNING_SECRET: BENCH_SIGNING_SECRET,
    SLACK_API_URL: `${platformsUrl}/api/`,
    TELEGRAM_BOT_TOKEN: BENCH_TELEGRAM_TOKEN,
    TELEGRAM_API_ROOT: platformsUrl,
    TELEGRAM_WEBHOOK_URL: "https://bot.example.com/telegram/webhook",
    TELEGRAM_WEBHOOK_SECRET: BENCH_WEBHOOK_SECRET,
    CHATBOT_BASE_URL: backendUrl,
    CHATBOT_API_KEY: "bench-key",
    CHATBOT_BOT_UID: "bench-bot",
    LEADS_POLL_INTERVAL: "0",
    RATE_LIMIT_QUESTIONS: "0",
    SHUTDOWN_GRACE_MS: "1000",
  };
}

/** Now on the clock of V8's CPU profiles (CLOCK_MONOTONIC, as process.hrtime reads it), µs. */
function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

export function loopDelayMs(seconds: number | undefined): number {
  return seconds === undefined
    ? Number.NaN
    : Math.max(0, seconds * 1000 - LOOP_MONITOR_RESOLUTION_MS);
}

/**
 * The ack probe, half a second after every conversation is busy. Slack sends each delivery
 * on its own, not queued behind a slow one: a connection per delivery in flight, so the time
 * measured is the bot's alone.
 */
async function probeWhileBusy(botUrl: string, perSecond: number, seconds: number) {
  await sleep(500);
  const probe = new BotDeliveries(botUrl, null);
  try {
    return await probeSlackAcks(probe, perSecond, seconds);
  } finally {
    await probe.close();
  }
}
