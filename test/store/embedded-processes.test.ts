import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/errors.ts";
import { openEmbeddedStore } from "../../src/store/embedded-store.ts";
import { openStore } from "../../src/store/open-store.ts";
import { tempDirs } from "../support/temp-dirs.ts";

// The embedded store and another process: one killed while it writes, one holding the
// DATA_DIR. The store's own behaviour is tested in-process (embedded-store.test.ts).

const freshDir = tempDirs("bridge-store-");

const child = fileURLToPath(new URL("./embedded-child.ts", import.meta.url));
const running = new Set<ChildProcess>();

function startChild(mode: "write" | "hold", dataDir: string): ChildProcess {
  const proc = spawn(process.execPath, ["--import", "tsx", child, mode, dataDir], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(proc);
  proc.once("exit", () => running.delete(proc));
  return proc;
}

/** Resolves with the stdout lines once `until` says enough, or rejects if the child dies first. */
function readLines(proc: ChildProcess, until: (lines: string[]) => boolean): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const lines: string[] = [];
    let partial = "";
    let stderr = "";
    proc.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    proc.stdout?.on("data", (chunk: Buffer) => {
      const parts = (partial + chunk.toString()).split("\n");
      partial = parts.pop() ?? "";
      lines.push(...parts);
      if (until(lines)) resolve(lines);
    });
    proc.once("exit", (code) => reject(new Error(`child exited (${code}): ${stderr}`)));
  });
}

describe("the embedded store and another process", () => {
  afterEach(() => {
    for (const proc of running) proc.kill("SIGKILL");
  });

  it("keeps every acknowledged write through kill -9", async () => {
    const dataDir = await freshDir();
    const proc = startChild("write", dataDir);
    const lines = await readLines(proc, (l) => l.length >= 300);
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill("SIGKILL");
    await exited;
    // The child may have printed more acks after the 300th before the kill landed.
    const acked = lines.filter((line) => line.startsWith("key-"));
    expect(acked.length).toBeGreaterThanOrEqual(300);

    const store = await openEmbeddedStore({ dataDir });
    const values = await store.getMany<{ i: number }>(acked);
    const missing = acked.filter((_, index) => values[index] === undefined);
    expect(missing).toEqual([]);
    expect(values.at(-1)).toEqual({ i: acked.length - 1, text: `value ${acked.length - 1}` });
    await store.close();
  });

  it("refuses a DATA_DIR another process has open, saying so", async () => {
    const dataDir = await freshDir();
    const proc = startChild("hold", dataDir);
    await readLines(proc, (l) => l.includes("open"));

    const error = await openStore({ dataDir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toContain(`DATA_DIR ${dataDir} is in use by another process`);
    expect((error as Error).message).toMatch(
      /stop it, set another DATA_DIR, or share a Redis with STORE_URL$/,
    );
  });
});
