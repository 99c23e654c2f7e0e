import type { LoadResult } from "./pipeline-load.ts";
import type { ClockOffset } from "./stamp-backend-process.ts";
import { median, percentile, round } from "./stats.ts";

/** The pipeline figures of one store at one concurrency. */
export interface PipelineRow {
  store: "embedded" | "redis";
  concurrency: number;
  answers: number;
  /** Answers of the middle rounds, started while every thread was busy: the latency sample. */
  measuredAnswers: number;
  /** Answers that never showed their first text or never got their final edit. */
  failures: number;
  /** Backend's write of the first answer chunk → the surface receiving the edit showing it. */
  firstTextMs: { p50: number; p95: number; p99: number; max: number };
  cpuMsPerAnswer: number;
  /** Share of one core over the run: the bridge process and the backend process. */
  bridgeCpuPercent: number;
  backendCpuPercent: number;
  /** The whole machine, all processes, in % of one core: the rest competed with the bench. */
  machineBusyPercent: number;
  /** Answers under way while every thread was busy (median of samples). */
  activeAnswers: number;
  /** (RSS or heapUsed, garbage included, while every thread was busy − idle) ÷ active answers. */
  rssKbPerAnswer: number;
  heapKbPerAnswer: number;
  /** Heap after a full GC while every thread was busy, minus idle, ÷ active answers then. */
  liveHeapKbPerAnswer: number;
  callsPerAnswer: number;
  storeRoundTripsPerMessage: number;
  storeOpsPerMessage: Record<string, number>;
  /** Commands the redis-server processed per message (INFO commandstats), Redis only. */
  redisCommandsPerMessage?: Record<string, number>;
  /** How late the event loop ran a timer, beyond the monitor's period. */
  eventLoopDelayMs: { p99: number; max: number };
  clock: ClockOffset;
  wallMs: number;
  /** With traces on: what the collector received per answer (protobuf). */
  exportedPerAnswer?: { requests: number; bytes: number };
}

export interface Observations {
  store: PipelineRow["store"];
  concurrency: number;
  load: LoadResult;
  baseline: NodeJS.MemoryUsage;
  wallMs: number;
  cpuMs: number;
  backendCpuMs: number;
  machineBusyPercent: number;
  loopDelay: { p99Ms: number; maxMs: number };
  storeCounts: ReadonlyMap<string, number>;
  storeRoundTrips: number;
  redisCommands: ReadonlyMap<string, number> | undefined;
  clock: ClockOffset;
  exported?: { requests: number; bytes: number } | undefined;
}

export function summarize(o: Observations): PipelineRow {
  const { answers, samples, fullFrom, fullUntil, liveHeap } = o.load;
  const lastRound = Math.max(...answers.map((a) => a.round));
  const measured = answers.filter((a) => a.round > 0 && a.round < lastRound);
  const latencies = measured.map((a) => a.firstTextLatencyMs).filter((ms) => !Number.isNaN(ms));
  const busy = samples.filter((s) => s.at >= fullFrom && s.at <= fullUntil);
  const active = median(busy.map((s) => s.active));
  const perAnswerKb = (values: number[], base: number) =>
    round((median(values) - base) / 1024 / Math.max(1, active), 1);
  const messages = answers.length;
  const perMessage = (counts: ReadonlyMap<string, number>) =>
    Object.fromEntries([...counts].map(([name, n]) => [name, round(n / messages, 2)]));
  return {
    store: o.store,
    concurrency: o.concurrency,
    answers: messages,
    measuredAnswers: measured.length,
    failures: answers.filter((a) => !a.finished || Number.isNaN(a.firstTextLatencyMs)).length,
    firstTextMs: {
      p50: round(percentile(latencies, 50)),
      p95: round(percentile(latencies, 95)),
      p99: round(percentile(latencies, 99)),
      max: round(Math.max(...latencies)),
    },
    cpuMsPerAnswer: round(o.cpuMs / messages, 3),
    bridgeCpuPercent: round((100 * o.cpuMs) / o.wallMs, 1),
    backendCpuPercent: round((100 * o.backendCpuMs) / o.wallMs, 1),
    machineBusyPercent: o.machineBusyPercent,
    activeAnswers: active,
    rssKbPerAnswer: perAnswerKb(
      busy.map((s) => s.rss),
      o.baseline.rss,
    ),
    heapKbPerAnswer: perAnswerKb(
      busy.map((s) => s.heapUsed),
      o.baseline.heapUsed,
    ),
    liveHeapKbPerAnswer: liveHeap
      ? round((liveHeap.heapUsed - o.baseline.heapUsed) / 1024 / liveHeap.active, 1)
      : Number.NaN,
    callsPerAnswer: round(answers.reduce((sum, a) => sum + a.calls, 0) / messages, 2),
    storeRoundTripsPerMessage: round(o.storeRoundTrips / messages, 2),
    storeOpsPerMessage: perMessage(o.storeCounts),
    ...(o.redisCommands ? { redisCommandsPerMessage: perMessage(o.redisCommands) } : {}),
    eventLoopDelayMs: {
      p99: round(o.loopDelay.p99Ms),
      max: round(o.loopDelay.maxMs),
    },
    clock: o.clock,
    wallMs: Math.round(o.wallMs),
    ...(o.exported
      ? {
          exportedPerAnswer: {
            requests: round(o.exported.requests / messages, 3),
            bytes: Math.round(o.exported.bytes / messages),
          },
        }
      : {}),
  };
}
