import { Session } from "node:inspector/promises";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { REPO_ROOT } from "./spawn.ts";

/** The product's own code: what a question's path is counted in (not node_modules, not test/). */
const PRODUCT = /^(src|adapters)\//;
/**
 * Helpers esbuild adds to each file tsx transpiles (`__name` keeps a closure's name as it is
 * created): not functions of ours.
 */
const TRANSPILER_HELPER = /^__[A-Za-z]+$/;

/** A function that ran: its name, and where it starts in its file's transpiled code. */
export interface RanFunction {
  name: string;
  at: number;
}

/** Product functions that ran since the last take, by file (repository path). */
export type RanFunctions = Map<string, RanFunction[]>;

/**
 * Counts calls of every function in this process with V8's precise coverage
 * (https://chromedevtools.github.io/devtools-protocol/tot/Profiler/#method-startPreciseCoverage),
 * from the inspector of the process itself. Each take returns what ran since the one before:
 * V8 resets its counters as it reports them.
 */
export class FunctionCoverage {
  readonly #session = new Session();

  /** Starts counting; start before the code measured has run, so that every call is counted. */
  static async start(): Promise<FunctionCoverage> {
    const coverage = new FunctionCoverage();
    coverage.#session.connect();
    await coverage.#session.post("Profiler.enable");
    await coverage.#session.post("Profiler.startPreciseCoverage", {
      callCount: true,
      detailed: false,
    });
    return coverage;
  }

  /** The product functions called at least once since the start or the last take. */
  async take(): Promise<RanFunctions> {
    const { result } = await this.#session.post("Profiler.takePreciseCoverage");
    const ran: RanFunctions = new Map();
    for (const script of result) {
      const file = productFile(script.url);
      if (!file) continue;
      const functions = script.functions
        .filter((f) => (f.ranges[0]?.count ?? 0) > 0 && !TRANSPILER_HELPER.test(f.functionName))
        .map((f) => ({ name: nameOf(f, script.functions), at: f.ranges[0]?.startOffset ?? 0 }));
      if (functions.length > 0) ran.set(file, functions);
    }
    return ran;
  }

  async stop(): Promise<void> {
    await this.#session.post("Profiler.stopPreciseCoverage");
    this.#session.disconnect();
  }
}

/** The repository path of a script of the product (tsx runs the .ts files by file URL), if it is one. */
function productFile(url: string): string | undefined {
  if (!url.startsWith("file://")) return undefined;
  const path = relative(REPO_ROOT, fileURLToPath(url.split("?")[0] ?? url));
  return PRODUCT.test(path) ? path : undefined;
}

type CoveredFunction = {
  functionName: string;
  ranges: { startOffset: number; endOffset: number }[];
};

/** A function's name; an anonymous one is named by the innermost named function around it. */
function nameOf(fn: CoveredFunction, all: readonly CoveredFunction[]): string {
  if (fn.functionName !== "") return fn.functionName;
  const [own] = fn.ranges;
  if (!own) return "(anonymous)";
  let around: { name: string; size: number } | undefined;
  for (const other of all) {
    const range = other.ranges[0];
    if (!range || other === fn || other.functionName === "") continue;
    const inside = range.startOffset <= own.startOffset && range.endOffset >= own.endOffset;
    const size = range.endOffset - range.startOffset;
    if (inside && (!around || size < around.size)) around = { name: other.functionName, size };
  }
  return around ? `${around.name} › (anonymous)` : "(anonymous)";
}
