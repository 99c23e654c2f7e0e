import type { ScaleRow } from "./scale-bench.ts";
import { round } from "./stats.ts";
import { formatTable } from "./table.ts";

/** The scale section's table: per process count, the highest rate kept up and the next. */
export function scaleTable(rows: readonly ScaleRow[]): string {
  const best = (r: ScaleRow) => r.best;
  const cpu = (r: ScaleRow) => r.best?.cpuPercentByProcess ?? [];
  return formatTable(
    [
      { heading: "processes", cell: (r) => String(r.processes) },
      { heading: "answers/s", cell: (r) => best(r)?.answersPerSecond ?? null },
      { heading: "p99 added ms", cell: (r) => best(r)?.addedP99Ms ?? null },
      { heading: "max queue lag", cell: (r) => best(r)?.maxLag ?? null },
      {
        heading: "CPU % per process",
        cell: (r) => (cpu(r).length > 0 ? cpu(r).join(" / ") : null),
      },
      { heading: "machine %", cell: (r) => best(r)?.machineBusyPercent ?? null },
      {
        heading: "next rate tried: offered/s → answers/s, p99 ms, lag, why not",
        cell: (r) =>
          r.nextFailed
            ? `${r.nextFailed.offeredPerSecond} → ${r.nextFailed.answersPerSecond}, ${r.nextFailed.addedP99Ms}, ${r.nextFailed.maxLag}, ${r.nextFailed.why.join(" and ")}`
            : "none failed",
      },
    ],
    rows,
  );
}

/**
 * PASS when each added process adds answers a second (however few: the machine's cores are
 * shared) and every row kept some rate up; the line gives each step's gain.
 */
export function scaleVerdict(rows: readonly ScaleRow[]): { pass: boolean; line: string } {
  const rates = rows.map((r) => r.best?.answersPerSecond ?? 0);
  const one = rates[0] ?? 0;
  const gains = rows.map(
    (r, i) => `${r.processes}: × ${one > 0 ? round((rates[i] ?? 0) / one, 2) : "n/a"}`,
  );
  const pass = rates.every((rate, i) => rate > 0 && (i === 0 || rate > (rates[i - 1] ?? 0)));
  return {
    pass,
    line: `verdict: ${pass ? "PASS — each process added answers a second" : "FAIL — a process added no answers a second"} (against 1 process: ${gains.join(", ")})`,
  };
}
