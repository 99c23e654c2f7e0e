import type { ChildProcess } from "node:child_process";
import { spawnTs, stopChild } from "./spawn.ts";

/** A server running in a process of its own, found by what it printed. */
export interface ChildServer<Info> {
  info: Info;
  pid: number | undefined;
  close(): Promise<void>;
}

/**
 * Starts `script` in a new process and waits until its stdout, read as it comes, gives
 * `parse` what it needs (e.g. the URL the server listens on). Fails when the process exits
 * first or nothing usable is printed within `timeoutMs`.
 */
export function startChildServer<Info>(
  script: string,
  env: Record<string, string>,
  parse: (stdout: string) => Info | undefined,
  timeoutMs = 15_000,
): Promise<ChildServer<Info>> {
  const child = spawnTs(script, { env });
  return new Promise((resolve, reject) => {
    let output = "";
    const fail = (why: string) => {
      clearTimeout(timer);
      void stopChild(child);
      reject(new Error(`${script}: ${why}; it printed: ${output.slice(0, 500)}`));
    };
    const timer = setTimeout(() => fail(`no address within ${timeoutMs} ms`), timeoutMs);
    const onExit = (code: number | null) => fail(`exited with ${code} before it listened`);
    child.once("exit", onExit);
    child.stdout?.setEncoding("utf8");
    const onData = (text: string) => {
      output += text;
      const info = parse(output);
      if (info === undefined) return;
      clearTimeout(timer);
      child.off("exit", onExit);
      child.stdout?.off("data", onData);
      // Keep draining stdout so the child never blocks on a full pipe.
      child.stdout?.resume();
      resolve({ info, pid: child.pid, close: () => stopChild(child) });
    };
    child.stdout?.on("data", onData);
  });
}

/** For servers that print `{"url": …}` on a line of its own once they listen. */
export function printedUrl(stdout: string): { url: string } | undefined {
  const line = stdout.split("\n").find((l) => l.startsWith("{"));
  return line ? (JSON.parse(line) as { url: string }) : undefined;
}

export type { ChildProcess };
