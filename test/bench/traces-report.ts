import type { PipelineRow } from "./pipeline-report.ts";
import { median, round } from "./stats.ts";
import { formatTable } from "./table.ts";
import type { TraceOffRow } from "./trace-off-bench.ts";

/** One pipeline run of the traces section: traces off or exported. */
export interface TracedRun {
  traced: boolean;
  row: PipelineRow;
}

export function tracesTable(runs: readonly TracedRun[]): string {
  return formatTable(
    [
      { heading: "traces", cell: (r: TracedRun) => (r.traced ? "on" : "off") },
      { heading: "answers", cell: (r) => r.row.answers },
      { heading: "failures", cell: (r) => r.row.failures },
      { heading: "CPU ms/answer", cell: (r) => r.row.cpuMsPerAnswer },
      { heading: "first text p50 ms", cell: (r) => r.row.firstTextMs.p50 },
      { heading: "p99 ms", cell: (r) => r.row.firstTextMs.p99 },
      { heading: "exported B/answer", cell: (r) => r.row.exportedPerAnswer?.bytes ?? "" },
      { heading: "exports/answer", cell: (r) => r.row.exportedPerAnswer?.requests ?? "" },
      { heading: "others %", cell: (r) => r.row.machineBusyPercent },
    ],
    runs,
  );
}

/**
 * What off costs beside what an answer costs: the off calls of one question (timed in a loop)
 * ÷ the CPU of one answer with traces off, and the spread between the off runs, which bounds
 * what a run can tell apart.
 */
export function tracesLines(runs: readonly TracedRun[], off: TraceOffRow): string[] {
  const cpu = (traced: boolean) =>
    runs.filter((r) => r.traced === traced).map((r) => r.row.cpuMsPerAnswer);
  const offCpu = cpu(false);
  const onCpu = cpu(true);
  const offMs = median(offCpu);
  const spread = Math.max(...offCpu) - Math.min(...offCpu);
  const onPercent = round((100 * (median(onCpu) - offMs)) / offMs, 1);
  const offShare = (100 * off.nsPerQuestion) / 1e6 / offMs;
  return [
    `Off: one question's calls into src/tracing.ts (${off.storeCalls} store, ${off.platformCalls} surface, ${off.chunks} chunks) take ${off.nsPerQuestion} ns, ${offShare.toPrecision(2)} % of an answer's ${offMs} ms of CPU;`,
    `the off runs differ by ${round(spread, 3)} ms (${round((100 * spread) / offMs, 1)} %): off costs ${offShare < (100 * spread) / offMs ? "less" : "more"} than a run can measure.`,
    `On (exported, protobuf): ${onPercent >= 0 ? "+" : ""}${onPercent} % CPU per answer, the batched export included.`,
  ];
}
