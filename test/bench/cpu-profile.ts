// Where a process's CPU went, from a V8 .cpuprofile (`node --cpu-prof`): self time by
// function and by file, and the share of samples each function is on the stack of
// (inclusive), within the measured window when a window.json lies beside it (the bench's
// `--profile <dir>` writes one per bot process). Usage:
//   tsx test/bench/cpu-profile.ts <file.cpuprofile> [top=15]
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "./spawn.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A span of the profile's clock (µs, CLOCK_MONOTONIC: process.hrtime's). */
export interface ProfileWindow {
  startUs: number;
  endUs: number;
}

export interface ProfileShare {
  name: string;
  percent: number;
  ms: number;
}

export interface ProfileSummary {
  /** Time on the CPU, idle left out; (garbage collector) and (program) count as functions. */
  totalMs: number;
  selfByFunction: ProfileShare[];
  selfByFile: ProfileShare[];
  inclusiveByFunction: ProfileShare[];
  /**
   * Each sample charged to the nearest function of this repository on its stack (src/,
   * adapters/): what the libraries and Node did on our behalf counts with the caller.
   */
  byOwnCaller: ProfileShare[];
}

/** The profile's samples within `window` (all of them without one), summed up. */
export function summarizeProfile(profile: CpuProfile, window?: ProfileWindow): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const self = new Map<string, number>();
  const file = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const ownCaller = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window && (at < window.startUs || at > window.endUs)) continue;
    const id = profile.samples[i] as number;
    const node = byId.get(id);
    if (!node) continue;
    // A sample stands for the time until the next one.
    const us = profile.timeDeltas[i + 1] ?? delta;
    if (node.callFrame.functionName === "(idle)") continue;
    total += us;
    add(self, functionName(node), us);
    add(file, fileName(node.callFrame.url) || node.callFrame.functionName, us);
    const seen = new Set<string>();
    let caller: string | undefined;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at);
      if (!frame || frame.callFrame.functionName === "(root)") continue;
      const name = functionName(frame);
      caller ??= isOwn(frame.callFrame.url) ? name : undefined;
      if (seen.has(name)) continue;
      seen.add(name);
      add(inclusive, name, us);
    }
    add(
      ownCaller,
      caller ?? `(no own frame) ${fileName(node.callFrame.url) || functionName(node)}`,
      us,
    );
  }
  const shares = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => ({
        name,
        ms: Math.round(us / 100) / 10,
        percent: Math.round((1000 * us) / Math.max(1, total)) / 10,
      }));
  return {
    totalMs: Math.round(total / 1000),
    selfByFunction: shares(self),
    selfByFile: shares(file),
    inclusiveByFunction: shares(inclusive),
    byOwnCaller: shares(ownCaller),
  };
}

function add(map: Map<string, number>, key: string, us: number): void {
  map.set(key, (map.get(key) ?? 0) + us);
}

function functionName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = fileName(url);
  return where ? `${functionName || "(anonymous)"} ${where}:${lineNumber + 1}` : functionName;
}

function isOwn(url: string): boolean {
  const file = fileName(url);
  return file.startsWith("src/") || file.startsWith("adapters/");
}

/** A file as a reader finds it: the repository's own relative, a package by its name. */
function fileName(url: string): string {
  if (!url) return "";
  const path = url.replace(/^file:\/\//, "");
  const modules = path.lastIndexOf("node_modules/");
  if (modules !== -1) return path.slice(modules + "node_modules/".length);
  return path.startsWith(REPO_ROOT) ? path.slice(REPO_ROOT.length) : path;
}

function printShares(title: string, shares: ProfileShare[], top: number): void {
  console.log(`\n${title}`);
  for (const share of shares.slice(0, top)) {
    console.log(
      `${share.percent.toFixed(1).padStart(6)} % ${share.ms.toFixed(0).padStart(7)} ms  ${share.name}`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [path, topArg] = process.argv.slice(2);
  if (!path) {
    console.error("usage: tsx test/bench/cpu-profile.ts <file.cpuprofile> [top]");
    process.exit(2);
  }
  const top = Number(topArg ?? 15);
  const windowFile = join(dirname(path), "window.json");
  const window = existsSync(windowFile)
    ? (JSON.parse(readFileSync(windowFile, "utf8")) as ProfileWindow)
    : undefined;
  const summary = summarizeProfile(JSON.parse(readFileSync(path, "utf8")) as CpuProfile, window);
  console.log(
    `${path}: ${summary.totalMs} ms on CPU${window ? " in the measured window" : " (whole run)"}`,
  );
  printShares("self time by function", summary.selfByFunction, top);
  printShares("self time by file", summary.selfByFile, top);
  printShares("charged to the nearest own caller", summary.byOwnCaller, top * 2);
  printShares("on the stack (inclusive) by function", summary.inclusiveByFunction, top * 2);
}
