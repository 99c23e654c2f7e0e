import { cpus } from "node:os";

/** Small numeric helpers shared by the bench sections. */

/** The p-th percentile (0–100) of `values` by nearest rank; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] as number;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Rounds to `digits` decimals (keeps JSON and tables free of float noise). */
export function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** CPU time (user + system) used since `since`, in ms. */
export function cpuMsSince(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

/** Wall-clock epoch ms with sub-ms precision; comparable across processes on one machine. */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Runs `times` full GCs when the process was started with --expose-gc; false otherwise. */
export function collectGarbage(times = 2): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return false;
  for (let i = 0; i < times; i++) gc();
  return true;
}

/** Busy and total CPU time of the whole machine so far, in ms, summed over its cores. */
export function machineCpuMs(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const { times } of cpus()) {
    const all = times.user + times.nice + times.sys + times.irq + times.idle;
    total += all;
    busy += all - times.idle;
  }
  return { busy, total };
}

/**
 * The machine's busy CPU between `before` and now, in % of one core (up to 100 × cores):
 * beside what this bench's own processes used, it tells what else competed for the cores.
 */
export function machineBusyPercentSince(before: { busy: number; total: number }): number {
  const now = machineCpuMs();
  const cores = cpus().length;
  return round((100 * cores * (now.busy - before.busy)) / Math.max(1, now.total - before.total), 1);
}
