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
 * PASS when each process up to the machine's cores adds answers a second (the shared queue
 * spreads the work); processes past the cores are reported, not judged: they share the
 * same cores, so they cannot add in proportion. The line gives each count's gain.
 */
export function scaleVerdict(
  rows: readonly ScaleRow[],
  cores: number,
): { pass: boolean; line: string } {
  const rates = rows.map((r) => r.best?.answersPerSecond ?? 0);
  const one = rates[0] ?? 0;
  const gains = rows.map(
    (r, i) => `${r.processes}: × ${one > 0 ? round((rates[i] ?? 0) / one, 2) : "n/a"}`,
  );
  const judged = rows.filter((r) => r.processes <= cores).map((r) => rates[rows.indexOf(r)] ?? 0);
  const pass = judged.every((rate, i) => rate > 0 && (i === 0 || rate > (judged[i - 1] ?? 0)));
  const verdict = pass
    ? `PASS — each process up to the ${cores} cores added answers a second`
    : `FAIL — a process up to the ${cores} cores added no answers a second`;
  return { pass, line: `verdict: ${verdict} (against 1 process: ${gains.join(", ")})` };
}
