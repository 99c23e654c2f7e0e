// How far the bot scales out: N bot processes (src/main.ts) on one redis-server, the same
// offered load delivered round-robin across them as a load balancer would, each with a small
// MAX_ACTIVE_ANSWERS so that what one process has no room for goes through the shared queue.
// For one N, a few steps of offered rate find the highest at which every answer is given at
// that rate with a p99 added latency under the goal; the queue's lag is read meanwhile as
// KEDA's redis-streams scaler reads it (XINFO GROUPS).

import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "@keyv/redis";
import { ANSWER_QUEUE_KEY } from "../../src/coordination/shared-queue.ts";
import { DEFAULT_NAMESPACE } from "../../src/store/redis-store.ts";
import { readQueueLag } from "../support/queue-lag.ts";
import { spawnRedisServer } from "../support/redis.ts";
import { botEnv } from "./bot-bench.ts";
import type { BenchChat } from "./bot-bench-chats.ts";
import { BotDeliveries, type Delivered } from "./bot-deliveries.ts";
import { runBotLoad } from "./bot-load.ts";
import { type BotProcess, startBotProcess } from "./bot-process.ts";
import { addedLatency, type Clocks, pairUp } from "./bot-summary.ts";
import { type FakePlatforms, startFakePlatformsProcess } from "./fake-platforms-process.ts";
import { QUICK, STAMP_ANSWER_MS } from "./stamp-backend.ts";
import { measureClockOffset, startStampBackendProcess } from "./stamp-backend-process.ts";
import { machineBusyPercentSince, machineCpuMs, percentile, round } from "./stats.ts";

export interface ScaleBenchOptions {
  /** Bot processes on the one Redis. */
  processes: number;
  /** MAX_ACTIVE_ANSWERS of each. */
  cap: number;
  /** How long each step offers its rate. */
  stepSeconds: number;
  /** The p99 added latency a step must stay under, ms. */
  addedP99GoalMs: number;
}

/** One offered rate, held for a step. */
export interface ScaleStep {
  offeredPerSecond: number;
  questions: number;
  /** Answers closed per second (see answersPerSecondOf). */
  answersPerSecond: number;
  /** Refused, never closed, or never showed the backend's first chunk. */
  unanswered: number;
  addedP99Ms: number;
  /** The most questions no process had taken (the consumer group's lag), sampled. */
  maxLag: number;
  /** CPU of each bot process over the step, % of one core. */
  cpuPercentByProcess: number[];
  machineBusyPercent: number;
  /** Every answer given at the offered rate, p99 added under the goal; else why not. */
  keptUp: boolean;
  why: string[];
}

export interface ScaleRow {
  processes: number;
  cap: number;
  stepSeconds: number;
  steps: ScaleStep[];
  /** The step of the highest rate kept up, and the lowest rate above it that was not. */
  best: ScaleStep | null;
  nextFailed: ScaleStep | null;
}

/** A step keeps up when it answers at least this share of the offered rate. */
const KEPT_UP_SHARE = 0.95;
const ANSWER_TIMEOUT_MS = 30_000;
const LAG_SAMPLE_MS = 200;
/** Each step's conversations start at slot step × this (fresh conversations, no history). */
const SLOTS_PER_STEP = 100_000;
const WARM_UP_FIRST_SLOT = 1_000_000;
/** Steps of the ladder: doublings (or halvings) first, then bisections. */
const LADDER = { start: 0.75, moves: 2, bisections: 2 };

export async function benchScale(options: ScaleBenchOptions): Promise<ScaleRow> {
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const [backend, platforms, redis] = await Promise.all([
      startStampBackendProcess({ stampEnd: true }),
      startFakePlatformsProcess(),
      spawnRedisServer(),
    ]);
    cleanups.push(
      () => backend.close(),
      () => platforms.close(),
      () => redis.close(),
    );
    const env = {
      ...botEnv(backend.info.url, platforms.url),
      MAX_ACTIVE_ANSWERS: String(options.cap),
      STORE_URL: redis.url,
    };
    const started = await Promise.allSettled(
      Array.from({ length: options.processes }, () => startBotProcess(env)),
    );
    const bots: BotProcess[] = [];
    for (const outcome of started) {
      if (outcome.status === "fulfilled") {
        bots.push(outcome.value);
        cleanups.unshift(() => outcome.value.close());
      }
    }
    const failed = started.find((o) => o.status === "rejected");
    if (failed) throw failed.reason;
    const balancer = new RoundRobin(bots.map((bot) => new BotDeliveries(bot.url)));
    cleanups.unshift(() => balancer.close());
    const lag = await openLagReader(redis.url);
    cleanups.unshift(() => lag.close());
    const clock: Clocks = {
      backend: await measureClockOffset(backend.info.url),
      platforms: await measureClockOffset(platforms.url),
    };

    // Connections open, code compiled, the queue's stream and group made: quick answers,
    // more at once than the caps hold, so the shared queue is used too.
    await runBotLoad({
      deliveries: balancer,
      platforms,
      concurrency: 2 * options.cap * options.processes,
      rounds: 2,
      rampMs: 0,
      firstSlot: WARM_UP_FIRST_SLOT,
      question: () => `warm up ${QUICK}`,
      answerTimeoutMs: ANSWER_TIMEOUT_MS,
      botRss: () => 0,
    });
    await sleep(500);

    const steps: ScaleStep[] = [];
    const step = async (rate: number) => {
      const result = await runStep({
        rate,
        index: steps.length + 1,
        options,
        balancer,
        platforms,
        bots,
        lag,
        clock,
      });
      steps.push(result);
      console.error(
        `  … scale: ${options.processes} × cap ${options.cap}, ${result.offeredPerSecond}/s offered: ${result.answersPerSecond}/s, p99 added ${result.addedP99Ms} ms, lag ≤ ${result.maxLag}${result.keptUp ? "" : ` (${result.why.join(", ")})`}`,
      );
      return result.keptUp;
    };
    // What the caps allow: each process holds `cap` answers of STAMP_ANSWER_MS.
    const capacity = (options.processes * options.cap * 1000) / STAMP_ANSWER_MS;
    let low: number | undefined;
    let high: number | undefined;
    let rate = capacity * LADDER.start;
    for (let move = 0; move <= LADDER.moves; move++) {
      if (await step(rate)) {
        low = rate;
        if (high !== undefined) break;
        rate *= 2;
      } else {
        high = rate;
        if (low !== undefined) break;
        rate /= 2;
      }
    }
    for (let i = 0; i < LADDER.bisections && low !== undefined && high !== undefined; i++) {
      const middle = (low + high) / 2;
      if (await step(middle)) low = middle;
      else high = middle;
    }
    const at = (r: number | undefined) =>
      steps.find((s) => r !== undefined && s.offeredPerSecond === round(r, 1)) ?? null;
    return {
      processes: options.processes,
      cap: options.cap,
      stepSeconds: options.stepSeconds,
      steps,
      best: at(low),
      nextFailed: at(high),
    };
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

interface StepContext {
  rate: number;
  index: number;
  options: ScaleBenchOptions;
  balancer: RoundRobin;
  platforms: FakePlatforms;
  bots: readonly BotProcess[];
  lag: LagReader;
  clock: Clocks;
}

/**
 * Offers `rate` questions a second for stepSeconds, each in a conversation of its own (the
 * load does not wait for answers: people keep writing), and waits for every answer.
 */
async function runStep(context: StepContext): Promise<ScaleStep> {
  const { rate, options, platforms, bots, lag } = context;
  await platforms.reset();
  const questions = Math.max(1, Math.round(rate * options.stepSeconds));
  const cpuBefore = bots.map((bot) => bot.cpuMs());
  const machine = machineCpuMs();
  const started = performance.now();
  let maxLag = 0;
  const sampler = setInterval(() => {
    void lag.read().then((n) => {
      maxLag = Math.max(maxLag, n);
    });
  }, LAG_SAMPLE_MS);
  let load: Awaited<ReturnType<typeof runBotLoad>>;
  try {
    load = await runBotLoad({
      deliveries: context.balancer,
      platforms,
      concurrency: questions,
      rounds: 1,
      rampMs: options.stepSeconds * 1000,
      firstSlot: context.index * SLOTS_PER_STEP,
      question: (slot) => `Question of conversation ${slot}: how does it work?`,
      answerTimeoutMs: ANSWER_TIMEOUT_MS,
      botRss: () => 0,
    });
  } finally {
    clearInterval(sampler);
  }
  const wallMs = performance.now() - started;
  const machineBusyPercent = machineBusyPercentSince(machine);
  const cpuPercentByProcess = bots.map((bot, i) =>
    round((100 * (bot.cpuMs() - (cpuBefore[i] ?? 0))) / wallMs, 1),
  );
  const timed = pairUp(load.questions, (await platforms.report()).answers);
  const added = timed.map(addedLatency(context.clock));
  const unanswered = timed.filter(
    (t, i) => !t.question.closed || Number.isNaN(added[i] ?? Number.NaN),
  ).length;
  const addedP99Ms = round(
    percentile(
      added.filter((ms) => !Number.isNaN(ms)),
      99,
    ),
    1,
  );
  const answersPerSecond = round(answersPerSecondOf(timed, rate), 1);
  const why = [
    ...(unanswered > 0 ? [`${unanswered} unanswered`] : []),
    ...(addedP99Ms >= options.addedP99GoalMs ? [`p99 added ≥ ${options.addedP99GoalMs} ms`] : []),
    ...(answersPerSecond < KEPT_UP_SHARE * rate ? ["answers fell behind"] : []),
  ];
  return {
    offeredPerSecond: round(rate, 1),
    questions,
    answersPerSecond,
    unanswered,
    addedP99Ms,
    maxLag,
    cpuPercentByProcess,
    machineBusyPercent,
    keptUp: why.length === 0,
    why,
  };
}

/**
 * Answers closed a second: those closed, over the time from the first close to the last (and
 * one question's interval). Below capacity that is the offered rate; above it, what the
 * processes could answer (the rest waited in the queue and closed later, spreading the
 * closes out).
 */
function answersPerSecondOf(timed: ReturnType<typeof pairUp>, rate: number): number {
  const closes = timed.flatMap((t) => (t.seen?.finalAt === undefined ? [] : [t.seen.finalAt]));
  if (closes.length === 0) return 0;
  const spanMs = Math.max(...closes) - Math.min(...closes) + 1000 / rate;
  return (1000 * closes.length) / spanMs;
}

/** Deliveries spread over the bot processes in turn, as a load balancer in front of them. */
class RoundRobin {
  readonly #targets: readonly BotDeliveries[];
  #next = 0;

  constructor(targets: readonly BotDeliveries[]) {
    this.#targets = targets;
  }

  question(chat: BenchChat, text: string): Promise<Delivered> {
    const target = this.#targets[this.#next++ % this.#targets.length] as BotDeliveries;
    return target.question(chat, text);
  }

  async close(): Promise<void> {
    await Promise.all(this.#targets.map((t) => t.close()));
  }
}

interface LagReader {
  /** The answer queue's consumer-group lag now (0 before the stream exists). */
  read(): Promise<number>;
  close(): Promise<void>;
}

async function openLagReader(url: string): Promise<LagReader> {
  const client = createClient({ url });
  await client.connect();
  const stream = `${DEFAULT_NAMESPACE}:${ANSWER_QUEUE_KEY}`;
  return {
    async read() {
      try {
        return Number((await readQueueLag(client, stream)) ?? 0);
      } catch {
        return 0;
      }
    },
    async close() {
      client.destroy();
    },
  };
}
