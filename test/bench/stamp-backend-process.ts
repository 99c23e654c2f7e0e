import { request } from "undici";
import { type ChildServer, printedUrl, startChildServer } from "./child-server.ts";
import type { StampBackendOptions } from "./stamp-backend.ts";
import { epochMs, round } from "./stats.ts";

/** The stamp backend in a process of its own (see stamp-backend.ts). */
export function startStampBackendProcess(
  options: Partial<StampBackendOptions> = {},
): Promise<ChildServer<{ url: string }>> {
  return startChildServer(
    "test/bench/stamp-backend.ts",
    { STAMP_BACKEND_OPTIONS: JSON.stringify(options) },
    printedUrl,
  );
}

export interface ClockOffset {
  /** The backend's clock minus this process's clock, in ms. */
  offsetMs: number;
  /** The offset is known to ± this (half the fastest round trip). */
  uncertaintyMs: number;
}

/**
 * How far the backend's epoch clock is from this one. Both read the same system clock,
 * but each process fixes performance.timeOrigin at its start, so the two can differ by a
 * fraction of a millisecond; the fastest of `samples` round trips bounds the estimate.
 */
export async function measureClockOffset(url: string, samples = 30): Promise<ClockOffset> {
  let best = { offsetMs: 0, uncertaintyMs: Number.POSITIVE_INFINITY };
  for (let i = 0; i < samples; i++) {
    const sent = epochMs();
    const response = await request(`${url}/clock`);
    const remote = Number(await response.body.text());
    const received = epochMs();
    const half = (received - sent) / 2;
    if (half < best.uncertaintyMs) best = { offsetMs: remote - (sent + half), uncertaintyMs: half };
  }
  return { offsetMs: round(best.offsetMs, 3), uncertaintyMs: round(best.uncertaintyMs, 3) };
}

/** CPU the backend process has used so far, in ms. */
export async function backendCpuMs(url: string): Promise<number> {
  const response = await request(`${url}/stats`);
  return ((await response.body.json()) as { cpuMs: number }).cpuMs;
}
