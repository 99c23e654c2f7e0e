import type { ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { request } from "undici";
import { freePort } from "../support/redis.ts";
import { spawnTs, stopChild } from "./spawn.ts";

/** The real bot (src/main.ts) in a process of its own, as `npm start` runs it. */
export interface BotProcess {
  /** Its HTTP server: /slack/events, /telegram/webhook, /healthz, /metrics. */
  url: string;
  pid: number;
  /** Resident memory now, in bytes (Linux /proc; NaN elsewhere). */
  rssBytes(): number;
  /** CPU time its threads have used so far, in ms, to the µs (Linux /proc; NaN elsewhere). */
  cpuMs(): number;
  /** Log lines it wrote (level warn and up): how many, and the first few distinct ones. */
  logSummary(): { lines: number; first: string[] };
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 30_000;
const DISTINCT_LOG_LINES = 5;

/**
 * Starts the bot with `env` and nothing of this process's environment (so no STORE_URL or
 * token of the machine leaks in), in a fresh working directory (so no .env is read) that
 * also holds its embedded store; resolves once /healthz answers 200. `nodeFlags` and
 * BENCH_BOT_NODE_FLAGS (space-separated) go to its node: `--cpu-prof --cpu-prof-dir=/tmp/prof`
 * shows where its CPU goes.
 */
export async function startBotProcess(
  env: Record<string, string>,
  nodeFlags: readonly string[] = [],
): Promise<BotProcess> {
  const dir = await mkdtemp(join(tmpdir(), "bot-bench-"));
  const port = await freePort();
  const child = spawnTs("src/main.ts", {
    env: {
      PORT: String(port),
      DATA_DIR: join(dir, "data"),
      LOG_LEVEL: "warn",
      ...env,
    },
    nodeFlags: [...nodeFlags, ...(process.env.BENCH_BOT_NODE_FLAGS?.split(" ") ?? [])].filter(
      Boolean,
    ),
    inheritEnv: false,
    cwd: dir,
    stdio: "pipe",
  });
  const logs = collectLogs(child);
  const url = `http://127.0.0.1:${port}`;
  const close = async () => {
    await stopChild(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await untilHealthy(url, child);
  } catch (error) {
    await close();
    const { first } = logs.summary();
    throw new Error(`${(error as Error).message}; it wrote: ${first.join(" | ")}`);
  }
  return {
    url,
    pid: child.pid ?? 0,
    rssBytes: () => rssOf(child.pid ?? 0),
    cpuMs: () => cpuMsOf(child.pid ?? 0),
    logSummary: logs.summary,
    close,
  };
}

async function untilHealthy(url: string, child: ChildProcess): Promise<void> {
  const deadline = performance.now() + START_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the bot exited with ${child.exitCode}`);
    const status = await request(`${url}/healthz`)
      .then(async (response) => {
        await response.body.dump();
        return response.statusCode;
      })
      .catch(() => 0);
    if (status === 200) return;
    await sleep(100);
  }
  throw new Error(`the bot was not healthy within ${START_TIMEOUT_MS} ms`);
}

/** Reads the child's output as it comes (a full pipe would block it), keeping a summary. */
function collectLogs(child: ChildProcess): { summary(): { lines: number; first: string[] } } {
  let lines = 0;
  const first = new Set<string>();
  const read = (text: string) => {
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      lines++;
      if (first.size < DISTINCT_LOG_LINES) first.add(describe(line));
    }
  };
  child.stdout?.setEncoding("utf8").on("data", read);
  child.stderr?.setEncoding("utf8").on("data", read);
  return { summary: () => ({ lines, first: [...first] }) };
}

/** A JSON log line as its message and error; anything else cut short. */
function describe(line: string): string {
  try {
    const entry = JSON.parse(line) as { msg?: string; err?: { message?: string } };
    return [entry.msg, entry.err?.message].filter(Boolean).join(": ");
  } catch {
    return line.slice(0, 200);
  }
}

function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb === undefined ? Number.NaN : Number(kb) * 1024;
  } catch {
    return Number.NaN;
  }
}

/**
 * The CPU time of every thread of `pid` (its schedstat, in ns): /proc/<pid>/stat counts in
 * clock ticks (10 ms), too coarse for a bot that should use a millisecond a second.
 */
function cpuMsOf(pid: number): number {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8");
      ns += Number(stat.split(" ")[0]);
    }
    return ns / 1e6;
  } catch {
    return Number.NaN;
  }
}
