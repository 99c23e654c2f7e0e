// One bot process offered twice its answer cap at once (MAX_ACTIVE_ANSWERS): how many answers
// it runs at a time, how late its event loop runs meanwhile, how fast it acknowledges Slack,
// and whether every question ends answered or told the bot is busy.
import { setTimeout as sleep } from "node:timers/promises";
import { botEnv, loopDelayMs } from "./bot-bench.ts";
import { benchChat } from "./bot-bench-chats.ts";
import { BotDeliveries } from "./bot-deliveries.ts";
import { scrapeMetrics } from "./bot-metrics.ts";
import { startBotProcess } from "./bot-process.ts";
import { startFakePlatformsProcess } from "./fake-platforms-process.ts";
import { probeSlackAcks } from "./slack-ack-probe.ts";
import { startStampBackendProcess } from "./stamp-backend-process.ts";
import { percentile, round } from "./stats.ts";

export interface CapBenchOptions {
  /** MAX_ACTIVE_ANSWERS of the bot. */
  cap: number;
  /** MAX_QUEUED_QUESTIONS of the bot. */
  maxQueued: number;
  /** Slack events a second delivered while the bot is at its cap (the ack probe). */
  ackEventsPerSecond: number;
  ackSeconds: number;
}

export interface CapRow {
  cap: number;
  maxQueued: number;
  offered: number;
  /** Most answers streaming at once, from the bot's active_answers (sampled every second). */
  mostActive: number;
  /** Most questions waiting at once (queued_questions). */
  mostQueued: number;
  answered: number;
  toldBusy: number;
  /** Neither answered nor told busy when the run ended: lost. */
  unaccounted: number;
  /**
   * Event-loop delay p99 of each one-second window of the run: the median window's and the
   * worst one's (the burst's arrival), and the longest delay seen.
   */
  loopP99Ms: number;
  loopWorstP99Ms: number;
  loopMaxMs: number;
  /** The Slack ack probe while at the cap. */
  ackEvents: number;
  ackP99Ms: number;
  acksLate: number;
  /** From the offer to the last question accounted for. */
  wallMs: number;
}

// Each scrape starts the bot's event-loop histogram anew: a window long enough for its p99 to
// be more than its maximum (the monitor samples every 10 ms).
const SAMPLE_MS = 1_000;
const RUN_TIMEOUT_MS = 180_000;
/** Slack wants an ack within 3 s. https://docs.slack.dev/apis/events-api/#responding */
const SLACK_ACK_DEADLINE_MS = 3_000;

export async function benchCap(options: CapBenchOptions): Promise<CapRow> {
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
    const bot = await startBotProcess({
      ...botEnv(backend.info.url, platforms.url),
      MAX_ACTIVE_ANSWERS: String(options.cap),
      MAX_QUEUED_QUESTIONS: String(options.maxQueued),
    });
    cleanups.unshift(() => bot.close());
    // One connection per delivery: all of them reach the bot at once, as a burst would.
    const deliveries = new BotDeliveries(bot.url, null);
    cleanups.unshift(() => deliveries.close());

    const offered = 2 * options.cap;
    await scrapeMetrics(bot.url); // starts the event-loop histogram anew
    const started = performance.now();
    const offers = Array.from({ length: offered }, (_, slot) =>
      deliveries.question(benchChat(slot), `Question of conversation ${slot}: how does it work?`),
    );
    let ack: ReturnType<typeof probeSlackAcks> | undefined;
    let mostActive = 0;
    let mostQueued = 0;
    const loopP99s: number[] = [];
    let loopMaxMs = 0;
    let answered = 0;
    let toldBusy = 0;
    while (performance.now() - started < RUN_TIMEOUT_MS) {
      await sleep(SAMPLE_MS);
      const now = await scrapeMetrics(bot.url);
      const active = now.get("active_answers") ?? 0;
      mostActive = Math.max(mostActive, active);
      mostQueued = Math.max(mostQueued, now.get("queued_questions") ?? 0);
      loopP99s.push(loopDelayMs(now.get("nodejs_eventloop_lag_p99_seconds")));
      loopMaxMs = Math.max(loopMaxMs, loopDelayMs(now.get("nodejs_eventloop_lag_max_seconds")));
      answered = now.get("questions_total") ?? 0;
      toldBusy = now.get("questions_refused_total") ?? 0;
      // At the cap: the probe's events arrive while answers stream and others wait.
      if (!ack && active >= options.cap) {
        ack = probeSlackAcks(deliveries, options.ackEventsPerSecond, options.ackSeconds);
      }
      if (answered + toldBusy >= offered) break;
    }
    const wallMs = performance.now() - started;
    await Promise.all(offers);
    const probe = await ack;
    return {
      cap: options.cap,
      maxQueued: options.maxQueued,
      offered,
      mostActive,
      mostQueued,
      answered,
      toldBusy,
      unaccounted: offered - answered - toldBusy,
      loopP99Ms: round(percentile(loopP99s, 50), 1),
      loopWorstP99Ms: round(Math.max(...loopP99s), 1),
      loopMaxMs: round(loopMaxMs, 1),
      ackEvents: probe?.events ?? 0,
      ackP99Ms: round(percentile(probe?.latenciesMs ?? [], 99), 1),
      acksLate:
        (probe?.failed ?? 0) +
        (probe?.latenciesMs.filter((ms) => ms > SLACK_ACK_DEADLINE_MS).length ?? 0),
      wallMs: Math.round(wallMs),
    };
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}
