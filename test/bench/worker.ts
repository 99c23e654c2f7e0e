// One bench task in a fresh process (started by run.ts with --expose-gc), so each figure
// has its own heap, RSS and JIT state. Usage: worker.ts <task> '<options as JSON>'.
// The result goes back to run.ts over the IPC channel.

import { type BotBenchOptions, benchBot } from "./bot-bench.ts";
import { benchCap, type CapBenchOptions } from "./cap-bench.ts";
import { benchClient, type ClientBenchOptions } from "./client-bench.ts";
import { benchIdle, type IdleBenchOptions } from "./idle-bench.ts";
import { benchLeads, type LeadsBenchOptions } from "./leads-bench.ts";
import { benchMemory, type MemoryBenchOptions } from "./memory-bench.ts";
import { benchPace, type PaceBenchOptions } from "./pace-bench.ts";
import { benchParse, type ParseBenchOptions } from "./parse-bench.ts";
import { benchPath, type PathBenchOptions } from "./path-bench.ts";
import { benchPipeline, type PipelineBenchOptions } from "./pipeline-bench.ts";
import { benchQueue, type QueueBenchOptions } from "./queue-bench.ts";
import { benchRender } from "./render-bench.ts";
import { benchScale, type ScaleBenchOptions } from "./scale-bench.ts";
import { type BenchOptions, benchStore } from "./store-bench.ts";
import { benchStreamFloor, type StreamFloorOptions } from "./stream-floor.ts";
import { benchTraceOff, type TraceOffBenchOptions } from "./trace-off-bench.ts";

export const TASKS = {
  parse: (options: ParseBenchOptions) => benchParse(options),
  render: (_options: Record<string, never>) => benchRender(),
  client: (options: ClientBenchOptions) => benchClient(options),
  store: (options: BenchOptions) => benchStore({ ...options, log: (l) => console.error(`  ${l}`) }),
  pipeline: (options: PipelineBenchOptions) => benchPipeline(options),
  leads: (options: LeadsBenchOptions) => benchLeads(options),
  bot: (options: BotBenchOptions) => benchBot(options),
  floor: (options: StreamFloorOptions) => benchStreamFloor(options),
  idle: (options: IdleBenchOptions) => benchIdle(options),
  pace: (options: PaceBenchOptions) => benchPace(options),
  cap: (options: CapBenchOptions) => benchCap(options),
  queue: (options: QueueBenchOptions) => benchQueue(options),
  scale: (options: ScaleBenchOptions) => benchScale(options),
  memory: (options: MemoryBenchOptions) => benchMemory(options),
  path: (options: PathBenchOptions) => benchPath(options),
  traceOff: async (options: TraceOffBenchOptions) => benchTraceOff(options),
} as const;

export type TaskName = keyof typeof TASKS;
export type TaskOptions<T extends TaskName> = Parameters<(typeof TASKS)[T]>[0];
export type TaskResult<T extends TaskName> = Awaited<ReturnType<(typeof TASKS)[T]>>;

export type WorkerMessage = { ok: true; result: unknown } | { ok: false; error: string };

async function main(): Promise<void> {
  const [name, json] = process.argv.slice(2);
  const task = TASKS[name as TaskName] as ((options: unknown) => Promise<unknown>) | undefined;
  let message: WorkerMessage;
  try {
    if (!task) throw new Error(`unknown bench task "${name}"`);
    message = { ok: true, result: await task(JSON.parse(json ?? "{}")) };
  } catch (error) {
    message = {
      ok: false,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    };
  }
  process.send?.(message, () => process.exit(0));
}

if (process.send) await main();
