import type { ClientRow } from "./client-bench.ts";
import type { ParseRow } from "./parse-bench.ts";
import type { PipelineRow } from "./pipeline-report.ts";
import type { RenderRow } from "./render-bench.ts";
import { formatTable } from "./table.ts";

/** The project's goals at 1,000 concurrent answers (the project brief). */
export const GOALS = { firstTextMs: 50, addedLatencyP99Ms: 10, kbPerAnswer: 100, at: 1_000 };

export function parseTable(rows: readonly ParseRow[]): string {
  return formatTable(
    [
      { heading: "chunk", cell: (r: ParseRow) => bytes(r.chunkBytes) },
      { heading: "answer", cell: (r) => bytes(r.answerBytes) },
      { heading: "chunks", cell: (r) => r.chunks },
      { heading: "MB/s", cell: (r) => r.mbPerS },
      { heading: "ns/chunk", cell: (r) => r.nsPerChunk },
      { heading: "runs (median)", cell: (r) => r.runs },
    ],
    rows,
  );
}

export function renderTable(rows: readonly RenderRow[]): string {
  return formatTable(
    [
      { heading: "renderer", cell: (r: RenderRow) => r.renderer },
      { heading: "chars", cell: (r) => r.chars },
      { heading: "CPU ms/render", cell: (r) => r.msPerRender },
      { heading: "÷ HTML", cell: (r) => r.ratio },
    ],
    rows,
  );
}

export function clientTable(rows: readonly ClientRow[]): string {
  return formatTable(
    [
      { heading: "answers", cell: (r: ClientRow) => r.mode },
      { heading: "streams", cell: (r) => r.streams },
      { heading: "peak open", cell: (r) => r.peakConcurrent },
      { heading: "failed", cell: (r) => r.failures },
      { heading: "text events/stream", cell: (r) => r.textEventsPerStream },
      { heading: "wall ms", cell: (r) => r.wallMs },
      { heading: "CPU ms/stream", cell: (r) => r.cpuMsPerStream },
      { heading: "CPU µs/event", cell: (r) => r.cpuUsPerTextEvent },
      { heading: "heap KB/open stream", cell: (r) => r.heapKbPerActiveStream },
      { heading: "heap KB/stream after close", cell: (r) => r.heapKbAfterClosePerStream },
    ],
    rows,
  );
}

export function pipelineTables(rows: readonly PipelineRow[]): string {
  const latency = formatTable(
    [
      { heading: "store", cell: (r: PipelineRow) => r.store },
      { heading: "concurrent", cell: (r) => r.concurrency },
      { heading: "answers", cell: (r) => r.answers },
      { heading: "failed", cell: (r) => r.failures },
      { heading: "first text p50 ms", cell: (r) => r.firstTextMs.p50 },
      { heading: "p95 ms", cell: (r) => r.firstTextMs.p95 },
      { heading: "p99 ms", cell: (r) => r.firstTextMs.p99 },
      { heading: "max ms", cell: (r) => r.firstTextMs.max },
      { heading: "loop delay p99 ms", cell: (r) => r.eventLoopDelayMs.p99 },
      { heading: "loop max ms", cell: (r) => r.eventLoopDelayMs.max },
    ],
    rows,
  );
  const cost = formatTable(
    [
      { heading: "store", cell: (r: PipelineRow) => r.store },
      { heading: "concurrent", cell: (r) => r.concurrency },
      { heading: "CPU ms/answer", cell: (r) => r.cpuMsPerAnswer },
      { heading: "bridge CPU %", cell: (r) => r.bridgeCpuPercent },
      { heading: "backend CPU %", cell: (r) => r.backendCpuPercent },
      { heading: "others CPU %", cell: (r) => othersPercent(r) },
      { heading: "active answers", cell: (r) => r.activeAnswers },
      { heading: "RSS KB/answer", cell: (r) => r.rssKbPerAnswer },
      { heading: "heap KB/answer", cell: (r) => r.heapKbPerAnswer },
      { heading: "live heap KB/answer", cell: (r) => r.liveHeapKbPerAnswer },
      { heading: "surface calls/answer", cell: (r) => r.callsPerAnswer },
      { heading: "store trips/msg", cell: (r) => r.storeRoundTripsPerMessage },
      { heading: "wall s", cell: (r) => r.wallMs / 1000 },
    ],
    rows,
  );
  return `${latency}\n\n${cost}`;
}

/** Store operations and Redis commands per message, one line per store (same at every level). */
export function storeOpsLines(rows: readonly PipelineRow[]): string[] {
  const lines: string[] = [];
  for (const store of ["embedded", "redis"] as const) {
    const row =
      rows.find((r) => r.store === store && r.concurrency === GOALS.at) ??
      rows.find((r) => r.store === store);
    if (!row) continue;
    let line = `${store}: store calls per message ${list(row.storeOpsPerMessage)}`;
    if (row.redisCommandsPerMessage) {
      line += `; redis-server commands per message ${list(row.redisCommandsPerMessage)}, those inside Lua scripts (release: EVALSHA → GET + DEL) included`;
    }
    lines.push(line);
  }
  return lines;
}

export interface Verdict {
  pass: boolean;
  line: string;
}

/** Checks as a verdict: PASS when every one holds; the missed ones first, then the met. */
export function verdictOf(name: string, checks: readonly [boolean, string][]): Verdict {
  const pass = checks.every(([ok]) => ok);
  const missed = checks.filter(([ok]) => !ok).map(([, text]) => text);
  const met = checks.filter(([ok]) => ok).map(([, text]) => text);
  return {
    pass,
    line: [
      `${name} verdict: ${pass ? "PASS" : "FAIL"}`,
      ...(missed.length > 0 ? [`  MISSED: ${missed.join("; ")}`] : []),
      `  ok: ${met.join("; ")}`,
    ].join("\n"),
  };
}

/** Checks the rows at the goal's concurrency against the goals, the worst store deciding. */
export function pipelineVerdict(rows: readonly PipelineRow[]): Verdict {
  const at = rows.filter((r) => r.concurrency === GOALS.at);
  if (at.length === 0)
    return { pass: false, line: `no pipeline figures at ${GOALS.at} concurrent answers` };
  const worst = (pick: (r: PipelineRow) => number) => Math.max(...at.map(pick));
  const firstMax = worst((r) => r.firstTextMs.max);
  const p99 = worst((r) => r.firstTextMs.p99);
  const kb = worst((r) => Math.max(r.rssKbPerAnswer, r.liveHeapKbPerAnswer));
  const failures = at.reduce((sum, r) => sum + r.failures, 0);
  const checks = [
    [
      firstMax <= GOALS.firstTextMs,
      `first text within ${GOALS.firstTextMs} ms (slowest ${firstMax} ms)`,
    ],
    [
      p99 < GOALS.addedLatencyP99Ms,
      `p99 added latency < ${GOALS.addedLatencyP99Ms} ms (${p99} ms)`,
    ],
    [
      kb < GOALS.kbPerAnswer,
      `< ${GOALS.kbPerAnswer} KB per answer (${kb} KB, RSS or live heap per active answer)`,
    ],
    [failures === 0, `no failed answers (${failures})`],
  ] as const;
  const pass = checks.every(([ok]) => ok);
  const parts = checks.map(([ok, text]) => `${ok ? "ok" : "MISSED"}: ${text}`);
  return {
    pass,
    line: `verdict at ${GOALS.at.toLocaleString("en-US")} concurrent answers (worst of ${at.map((r) => r.store).join(", ")}): ${pass ? "PASS" : "FAIL"} — ${parts.join("; ")}`,
  };
}

export function clientVerdict(rows: readonly ClientRow[]): Verdict {
  const paced = rows[0];
  if (!paced) return { pass: false, line: "no client figures" };
  const allOpen = paced.peakConcurrent === paced.streams;
  const pass = allOpen && paced.failures === 0 && paced.heapKbPerActiveStream < GOALS.kbPerAnswer;
  return {
    pass,
    line: `verdict: ${pass ? "PASS" : "FAIL"} — ${paced.peakConcurrent} of ${paced.streams} streams open at once, ${paced.failures} failed, ${paced.heapKbPerActiveStream} KB heap per open stream (goal < ${GOALS.kbPerAnswer} KB per answer), ${paced.cpuMsPerStream} CPU ms per answer`,
  };
}

/** CPU the rest of the machine used during a row (redis-server, the kernel, other work). */
export function othersPercent(row: PipelineRow): number {
  const others = row.machineBusyPercent - row.bridgeCpuPercent - row.backendCpuPercent;
  return Math.max(0, Math.round(others * 10) / 10);
}

/** Above this share of a core used by others, a row's latency says more about them. */
export const CONTENDED_PERCENT = 30;

/** A warning naming the rows during which other processes competed for the CPU. */
export function contentionWarning(rows: readonly PipelineRow[]): string | undefined {
  const contended = rows.filter((r) => othersPercent(r) > CONTENDED_PERCENT);
  if (contended.length === 0) return undefined;
  const names = contended.map((r) => `${r.store} ${r.concurrency} (${othersPercent(r)} %)`);
  return `WARNING: other processes used more than ${CONTENDED_PERCENT} % of a core during ${names.join(", ")}; their latency and CPU figures are not representative: rerun on a quiet machine.`;
}

function bytes(n: number): string {
  if (n >= 1_000_000) return `${n / 1_000_000} MB`;
  if (n >= 1024) return `${n / 1024} KB`;
  return `${n} B`;
}

/** `a 1, b 2.5`: counts by name, as the bench prints them on one line. */
export function list(counts: Record<string, number>): string {
  const entries = Object.entries(counts);
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  return `${Math.round(total * 100) / 100} (${entries.map(([name, n]) => `${name} ${n}`).join(", ")})`;
}
