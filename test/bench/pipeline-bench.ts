// The bridge pipeline under load: the real Bridge with the real backend client over HTTP to
// a backend in another process (stamp-backend.ts), a real store (embedded or an own
// redis-server), and an in-memory reply surface. Runs in a process of its own per row.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBackendClient } from "../../src/backend/client.ts";
import type { BackendClient } from "../../src/backend/types.ts";
import type { Bridge } from "../../src/bridge/bridge.ts";
import { createLogger } from "../../src/log.ts";
import { Metrics } from "../../src/metrics.ts";
import type { SurfaceLimits } from "../../src/ports.ts";
import { openEmbeddedStore } from "../../src/store/embedded-store.ts";
import { instrumentStore } from "../../src/store/instrumented-store.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import type { Store } from "../../src/store/types.ts";
import { startTracing } from "../../src/tracing.ts";
import { OPEN_BRIDGE, startBridge } from "../support/bridge-harness.ts";
import { spawnRedisServer } from "../support/redis.ts";
import { countingStore } from "./counting-store.ts";
import { LoopDelayMonitor } from "./loop-delay.ts";
import { type SinkStats, sinkStats, startOtlpSinkProcess } from "./otlp-sink.ts";
import { runLoad } from "./pipeline-load.ts";
import { type PipelineRow, summarize } from "./pipeline-report.ts";
import { commandsBetween, redisCommandCount } from "./redis-commands.ts";
import { QUICK, STAMP_ANSWER_MS } from "./stamp-backend.ts";
import {
  backendCpuMs,
  measureClockOffset,
  startStampBackendProcess,
} from "./stamp-backend-process.ts";
import { StampSurface } from "./stamp-surface.ts";
import { collectGarbage, cpuMsSince, machineBusyPercentSince, machineCpuMs } from "./stats.ts";

export interface PipelineBenchOptions {
  store: "embedded" | "redis";
  concurrency: number;
  /** Questions per thread; the middle ones are measured (all threads busy). Default 3. */
  rounds?: number;
  /** Traces exported (protobuf, as by default) to a collector in another process (otlp-sink.ts). */
  traced?: boolean;
}

/**
 * A platform-like surface: about one edit per second per message, as Slack's chat.update
 * and Telegram's editMessageText tolerate; 4,000 characters per message.
 */
export const BENCH_LIMITS: SurfaceLimits = { maxMessageLength: 4_000, minEditIntervalMs: 1_000 };

export async function benchPipeline(options: PipelineBenchOptions): Promise<PipelineRow> {
  const rounds = options.rounds ?? 3;
  const backend = await startStampBackendProcess();
  const cleanups: (() => Promise<unknown>)[] = [() => backend.close()];
  try {
    const { url } = backend.info;
    const clock = await measureClockOffset(url);
    const { store: inner, redisUrl } = await openBenchStore(options.store, cleanups);
    const store = countingStore(inner);
    const client = createBackendClient({ baseUrl: url, apiKey: "bench-key", botUid: "bench-bot" });
    cleanups.unshift(() => client.close());
    const sink = options.traced ? await startTracedExport(cleanups) : undefined;
    const bridge = await newBridge(client, store.store);

    await warmUp(bridge);
    store.reset();
    collectGarbage();
    const baseline = process.memoryUsage();
    const commandsBefore = redisUrl ? await redisCommandCount(redisUrl) : undefined;
    const sinkBefore = sink && (await sinkStats(sink.url));
    const loopDelay = new LoopDelayMonitor();
    const backendCpuBefore = await backendCpuMs(url);
    const cpu = process.cpuUsage();
    const machine = machineCpuMs();
    const started = performance.now();
    loopDelay.resume();
    const load = await runLoad({
      bridge,
      concurrency: options.concurrency,
      rounds,
      rampMs: STAMP_ANSWER_MS,
      limits: BENCH_LIMITS,
      clockOffsetMs: clock.offsetMs,
      loopDelay,
      // Generous (answers take STAMP_ANSWER_MS plus up to one edit interval), yet bounded.
      timeoutMs: 5 * STAMP_ANSWER_MS * rounds + 30_000,
    });
    // The spans still batched are sent now, so that their export is measured with the rest.
    await sink?.stop();
    const delay = loopDelay.result();
    const wallMs = performance.now() - started;
    const cpuMs = cpuMsSince(cpu) - (load.liveHeap?.gcCpuMs ?? 0);
    const machineBusyPercent = machineBusyPercentSince(machine);
    const backendCpu = (await backendCpuMs(url)) - backendCpuBefore;
    const exported = sink && (await exportedSince(sink, sinkBefore));
    const redisCommands =
      redisUrl && commandsBefore
        ? commandsBetween(commandsBefore, await redisCommandCount(redisUrl))
        : undefined;
    return summarize({
      store: options.store,
      concurrency: options.concurrency,
      load,
      baseline,
      wallMs,
      cpuMs,
      backendCpuMs: backendCpu,
      machineBusyPercent,
      loopDelay: delay,
      storeCounts: store.counts,
      storeRoundTrips: store.roundTrips,
      redisCommands,
      clock,
      exported,
    });
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

async function openBenchStore(
  kind: "embedded" | "redis",
  cleanups: (() => Promise<unknown>)[],
): Promise<{ store: Store; redisUrl?: string }> {
  if (kind === "redis") {
    const server = await spawnRedisServer();
    cleanups.push(() => server.close());
    const store = await openRedisStore({ url: server.url, namespace: "bench" });
    cleanups.unshift(() => store.close());
    return { store, redisUrl: server.url };
  }
  const dir = await mkdtemp(join(tmpdir(), "pipeline-bench-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const store = await openEmbeddedStore({ dataDir: dir });
  cleanups.unshift(() => store.close());
  return { store };
}

/** Tracing started as src/bot.ts starts it, exporting to a collector in a process of its own. */
async function startTracedExport(
  cleanups: (() => Promise<unknown>)[],
): Promise<{ url: string; stop: () => Promise<void> }> {
  const sink = await startOtlpSinkProcess();
  cleanups.push(() => sink.close());
  const stop = await startTracing(
    {
      url: `${sink.info.url}/v1/traces`,
      protocol: "http/protobuf",
      headers: {},
      serviceName: "bench",
    },
    createLogger({ level: "silent", secrets: [] }),
  );
  if (!stop) throw new Error("tracing did not start");
  cleanups.unshift(stop);
  return { url: sink.info.url, stop };
}

/** What the collector received since `before`. */
async function exportedSince(
  sink: { url: string },
  before: SinkStats | undefined,
): Promise<{ requests: number; bytes: number }> {
  const now = await sinkStats(sink.url);
  return {
    requests: now.requests - (before?.requests ?? 0),
    bytes: now.bytes - (before?.bytes ?? 0),
  };
}

/** Composed as src/bot.ts composes it: metrics on, the store timed by them. */
function newBridge(backend: BackendClient, store: Store): Promise<Bridge> {
  const metrics = new Metrics();
  return startBridge({
    backend,
    store: instrumentStore(store, metrics),
    metrics,
    // Silent: at info level the bridge writes one log line per answer, not measured here.
    log: createLogger({ level: "silent", secrets: [] }),
    ...OPEN_BRIDGE,
  });
}

/** JIT, connections and store files warm before anything is measured. */
async function warmUp(bridge: Bridge): Promise<void> {
  const questions = Array.from({ length: 100 }, (_, i) =>
    bridge.handle(
      {
        channel: "bench",
        deliveryId: `warm-${i}`,
        channelKey: "bench:warm",
        channelId: "warm",
        threadKey: `bench:warm:${i}`,
        authorId: "warm",
        text: `warm up ${QUICK}`,
        isAdmin: async () => false,
      },
      new StampSurface({ ...BENCH_LIMITS, minEditIntervalMs: 0 }, 0),
    ),
  );
  await Promise.all(questions);
}
