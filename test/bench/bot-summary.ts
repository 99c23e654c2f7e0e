import type { PlatformReport, SeenAnswer } from "./answer-log.ts";
import type { AskedQuestion, BotLoadResult, MemorySample } from "./bot-load.ts";
import type { AckProbe } from "./slack-ack-probe.ts";
import type { ClockOffset } from "./stamp-backend-process.ts";
import { median, percentile, round } from "./stats.ts";

/** Slack retries a delivery not acknowledged within 3 s. https://docs.slack.dev/apis/events-api/#responding */
const SLACK_ACK_DEADLINE_MS = 3_000;

export type BotStore = "embedded" | "redis";

export type Spread = { p50: number; p95: number; p99: number; max: number };

/** The whole bot at one level of concurrent answers. */
export interface BotRow {
  concurrency: number;
  /** Where the bot keeps its state: its embedded store, or a Redis of the row's own. */
  store: BotStore;
  /** Slack events per second delivered beside the answers, for the ack figure; 0: none. */
  ackEventsPerSecond: number;
  answers: number;
  /** Answers of the middle rounds, asked while every conversation was busy. */
  measuredAnswers: number;
  /** Questions the bot refused, or whose answers never closed or never showed the stamp. */
  failures: number;
  /** Backend writes the first answer chunk → the fake platform receives the call showing it. */
  addedLatencyMs: Spread;
  addedLatencyP99MsBy: { telegram: number; slack: number };
  /** Question delivered to the bot → first answer text at the platform (backend's 240 ms in). */
  firstTextMs: Spread;
  /** Backend ends the stream → the platform receives the call that closes the answer. */
  finalDelayMs: Spread;
  finalDelayP99MsBy: { telegram: number; slack: number };
  /** Calls showing text per answer (posts, edits, drafts, stream appends), by the fakes. */
  editsPerAnswer: number;
  /** The bot's own chatbot_bridge_edits_total per answer. */
  botEditsPerAnswer: number;
  callsPerAnswer: Record<string, number>;
  /** 429s the fakes answered, by method; and those the bot counted. */
  rateLimited: Record<string, number>;
  botRateLimited: number;
  cpuMsPerAnswer: number;
  /**
   * CPU per answer of undici alone reading the same answers on this machine (stream-floor.ts):
   * what the bot's figure can only add to. Absent where it was not measured (the ack row).
   */
  floorCpuMsPerAnswer?: number;
  botCpuPercent: number;
  platformsCpuPercent: number;
  backendCpuPercent: number;
  /** The process delivering the questions (the bench itself). */
  benchCpuPercent: number;
  /** The rest of the machine: other work competing for the two cores. */
  othersCpuPercent: number;
  machineBusyPercent: number;
  activeAnswers: number;
  rssIdleMb: number;
  rssKbPerAnswer: number;
  /** The bot's event-loop delay over the load (prom-client's monitor, 10 ms resolution). */
  eventLoopDelayMs: { p99: number; max: number };
  storeRoundTripsPerMessage: number;
  /** Those round trips by store operation. */
  storeOpsPerMessage: Record<string, number>;
  /** The bot's response to the deliveries of the questions (Slack and Telegram alike). */
  questionAckMs: Spread;
  /**
   * The bot's own time from a delivery's request to its response, p99 over every delivery of
   * the row (its delivery_seconds histogram: a bucket's bound, ms). The acks timed by the
   * sender add what waits before the request is read: a new connection waits for the event
   * loop to accept it, one per turn of the loop.
   */
  botDeliveryP99Ms: number;
  /** Latencies of the acks that came; `late`: those after Slack's 3 s, or never. */
  ack: ({ events: number; late: number } & Spread) | null;
  /** Most Telegram messages the bot sent for good in one second (Telegram's bulk guide: ~30). */
  peakTelegramSendsPerSecond: number;
  botLog: { lines: number; first: string[] };
  clock: Clocks;
  wallMs: number;
}

/** What bot-bench.ts measured, before it is summed up. */
export interface BotObservations {
  concurrency: number;
  store: BotStore;
  ackEventsPerSecond: number;
  load: BotLoadResult;
  /**
   * The load whose memory samples give RSS per answer: the first that took the bot from idle
   * to every conversation busy (a warm-up, where one came first; the heap it grew stays
   * grown, so the measured load would find "idle" as large as busy).
   */
  memory?: BotLoadResult;
  platforms: PlatformReport;
  ack: AckProbe | undefined;
  rssIdleBytes: number;
  bot: {
    cpuMs: number;
    edits: number;
    rateLimited: number;
    storeOps: number;
    storeOpsByOperation: Record<string, number>;
    /** The bot's own time to answer the deliveries, p99, as its histogram's bucket bound. */
    deliveryP99Ms: number;
    loopP99Ms: number;
    loopMaxMs: number;
  };
  platformsCpuMs: number;
  backendCpuMs: number;
  benchCpuMs: number;
  machineBusyPercent: number;
  botLog: { lines: number; first: string[] };
  clock: Clocks;
  wallMs: number;
}

/** A question and the answer the platform saw for it (none: it never showed). */
export interface Timed {
  question: AskedQuestion;
  seen: SeenAnswer | undefined;
}

/** The other processes' clocks, as measured from this one. */
export interface Clocks {
  backend: ClockOffset;
  platforms: ClockOffset;
}

/** Remote epoch times on this process's clock (each offset: remote minus local). */
function onOurClock(clock: Clocks): {
  atPlatform(ms: number): number;
  atBackend(ms: number): number;
} {
  return {
    atPlatform: (ms) => ms - clock.platforms.offsetMs,
    atBackend: (ms) => ms - clock.backend.offsetMs,
  };
}

/**
 * The added latency of an answer: the backend writes the first chunk (stamped) → the fake
 * platform receives the call showing it; NaN when it never showed.
 */
export function addedLatency(clock: Clocks): (t: Timed) => number {
  const { atPlatform, atBackend } = onOurClock(clock);
  return (t) =>
    t.seen?.firstTextAt !== undefined && t.seen.startStamp !== undefined
      ? atPlatform(t.seen.firstTextAt) - atBackend(t.seen.startStamp)
      : Number.NaN;
}

export function summarizeBot(o: BotObservations): BotRow {
  const { questions } = o.load;
  const timed = pairUp(questions, o.platforms.answers);
  const lastRound = Math.max(...questions.map((q) => q.round));
  const measured = timed.filter((t) => t.question.round > 0 && t.question.round < lastRound);
  const { atPlatform, atBackend } = onOurClock(o.clock);
  const added = addedLatency(o.clock);
  const firstText = (t: Timed) =>
    t.seen?.firstTextAt === undefined
      ? Number.NaN
      : atPlatform(t.seen.firstTextAt) - t.question.sentAt;
  const finalDelay = (t: Timed) =>
    t.seen?.finalAt !== undefined && t.seen.endStamp !== undefined
      ? atPlatform(t.seen.finalAt) - atBackend(t.seen.endStamp)
      : Number.NaN;
  const answers = questions.length;
  const active = median(busySamples(o.load).map((s) => s.active));
  const grown = busySamples(o.memory ?? o.load);
  const perAnswer = (n: number) => round(n / Math.max(1, answers), 2);
  const cpuPercent = (ms: number) => round((100 * ms) / o.wallMs, 1);
  const ours = o.bot.cpuMs + o.platformsCpuMs + o.backendCpuMs + o.benchCpuMs;
  return {
    concurrency: o.concurrency,
    store: o.store,
    ackEventsPerSecond: o.ackEventsPerSecond,
    answers,
    measuredAnswers: measured.length,
    failures: timed.filter((t) => !t.question.closed || Number.isNaN(added(t))).length,
    addedLatencyMs: spread(measured.map(added)),
    addedLatencyP99MsBy: {
      telegram: spread(measured.filter(on("telegram")).map(added)).p99,
      slack: spread(measured.filter(on("slack")).map(added)).p99,
    },
    firstTextMs: spread(measured.map(firstText)),
    finalDelayMs: spread(measured.map(finalDelay)),
    finalDelayP99MsBy: {
      telegram: spread(measured.filter(on("telegram")).map(finalDelay)).p99,
      slack: spread(measured.filter(on("slack")).map(finalDelay)).p99,
    },
    editsPerAnswer: perAnswer(o.platforms.answers.reduce((sum, a) => sum + a.textCalls, 0)),
    botEditsPerAnswer: perAnswer(o.bot.edits),
    callsPerAnswer: Object.fromEntries(
      Object.entries(o.platforms.calls).map(([method, n]) => [method, perAnswer(n)]),
    ),
    rateLimited: o.platforms.rateLimited,
    botRateLimited: o.bot.rateLimited,
    cpuMsPerAnswer: round(o.bot.cpuMs / Math.max(1, answers), 2),
    botCpuPercent: cpuPercent(o.bot.cpuMs),
    platformsCpuPercent: cpuPercent(o.platformsCpuMs),
    backendCpuPercent: cpuPercent(o.backendCpuMs),
    benchCpuPercent: cpuPercent(o.benchCpuMs),
    othersCpuPercent: Math.max(0, round(o.machineBusyPercent - cpuPercent(ours), 1)),
    machineBusyPercent: o.machineBusyPercent,
    activeAnswers: active,
    rssIdleMb: round(o.rssIdleBytes / 2 ** 20, 1),
    rssKbPerAnswer: round(
      (median(grown.map((s) => s.rss)) - o.rssIdleBytes) /
        1024 /
        Math.max(1, median(grown.map((s) => s.active))),
      1,
    ),
    eventLoopDelayMs: { p99: round(o.bot.loopP99Ms), max: round(o.bot.loopMaxMs) },
    botDeliveryP99Ms: o.bot.deliveryP99Ms,
    storeRoundTripsPerMessage: perAnswer(o.bot.storeOps),
    storeOpsPerMessage: Object.fromEntries(
      Object.entries(o.bot.storeOpsByOperation).map(([operation, n]) => [operation, perAnswer(n)]),
    ),
    questionAckMs: spread(questions.map((q) => q.ackMs)),
    ack: o.ack
      ? {
          events: o.ack.events,
          late: o.ack.failed + o.ack.latenciesMs.filter((ms) => ms > SLACK_ACK_DEADLINE_MS).length,
          ...spread(o.ack.latenciesMs),
        }
      : null,
    peakTelegramSendsPerSecond: o.platforms.peakTelegramSendsPerSecond,
    botLog: o.botLog,
    clock: o.clock,
    wallMs: Math.round(o.wallMs),
  };
}

/**
 * Each question with the answer the platform saw for it: a conversation's answers arrive
 * one after the other, so its n-th answer is its n-th question's.
 */
export function pairUp(questions: readonly AskedQuestion[], seen: readonly SeenAnswer[]): Timed[] {
  const byKey = new Map<string, SeenAnswer[]>();
  for (const answer of seen) {
    const list = byKey.get(answer.key) ?? [];
    list.push(answer);
    byKey.set(answer.key, list);
  }
  return questions.map((question) => ({
    question,
    seen: byKey.get(question.key)?.[question.round],
  }));
}

/** A load's memory samples while every conversation was busy. */
function busySamples({ samples, fullFrom, fullUntil }: BotLoadResult): MemorySample[] {
  return samples.filter((s) => s.at >= fullFrom && s.at <= fullUntil);
}

function on(platform: "telegram" | "slack"): (t: Timed) => boolean {
  return (t) => t.question.key.startsWith(`${platform}:`);
}

function spread(values: readonly number[]): Spread {
  const known = values.filter((v) => !Number.isNaN(v));
  return {
    p50: round(percentile(known, 50)),
    p95: round(percentile(known, 95)),
    p99: round(percentile(known, 99)),
    max: round(known.length === 0 ? Number.NaN : Math.max(...known)),
  };
}
