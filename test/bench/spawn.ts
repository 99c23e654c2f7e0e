import { type ChildProcess, type StdioOptions, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The repository root, whatever the working directory. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** tsx's loader, by absolute URL: `node --import <it> file.ts` runs TypeScript directly. */
export const TSX_LOADER = pathToFileURL(join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs")).href;

export interface SpawnTsOptions {
  args?: readonly string[];
  env?: Record<string, string>;
  /** false: the child sees `env` and PATH only, nothing of this process's environment. */
  inheritEnv?: boolean;
  /** Default: the repository root. */
  cwd?: string;
  /** Flags for node itself, e.g. --expose-gc. */
  nodeFlags?: readonly string[];
  /** "pipe": stdout and stderr both piped (to read a child's log lines). */
  stdio?: "pipe-stdout" | "pipe" | "ipc";
}

const STDIO: Record<NonNullable<SpawnTsOptions["stdio"]>, StdioOptions> = {
  "pipe-stdout": ["ignore", "pipe", "inherit"],
  pipe: ["ignore", "pipe", "pipe"],
  ipc: ["ignore", "inherit", "inherit", "ipc"],
};

const children = new Set<ChildProcess>();
// A bench that crashes or is stopped must not leave servers behind. SIGTERM, not SIGKILL:
// a worker handles it by exiting, which stops the servers it started in turn.
process.once("exit", () => {
  for (const child of children) child.kill("SIGTERM");
});
process.once("SIGTERM", () => process.exit(143));
process.once("SIGINT", () => process.exit(130));

/**
 * Runs a TypeScript file of this repository in a new node process. stderr is shared with
 * this process (or piped); stdout is piped (to read a server's URL) or shared beside an IPC
 * channel.
 */
export function spawnTs(script: string, options: SpawnTsOptions = {}): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      ...(options.nodeFlags ?? []),
      "--import",
      TSX_LOADER,
      join(REPO_ROOT, script),
      ...(options.args ?? []),
    ],
    {
      cwd: options.cwd ?? REPO_ROOT,
      env:
        options.inheritEnv === false
          ? { PATH: process.env.PATH ?? "", ...options.env }
          : { ...process.env, ...options.env },
      stdio: STDIO[options.stdio ?? "pipe-stdout"],
    },
  );
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

/** Asks `child` to stop (SIGTERM), and kills it when it has not exited within `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 3_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}
