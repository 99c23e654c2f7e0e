import { spawnTs, stopChild } from "./spawn.ts";
import type { TaskName, TaskOptions, TaskResult, WorkerMessage } from "./worker.ts";

/**
 * Runs one bench task in a fresh node process (worker.ts, with --expose-gc) and returns
 * its result. The worker is stopped and the task fails when it takes longer than `timeoutMs`.
 */
export function runWorker<T extends TaskName>(
  task: T,
  options: TaskOptions<T>,
  timeoutMs: number,
): Promise<TaskResult<T>> {
  const child = spawnTs("test/bench/worker.ts", {
    args: [task, JSON.stringify(options)],
    nodeFlags: ["--expose-gc"],
    stdio: "ipc",
  });
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const timer = setTimeout(() => {
      settle(() => reject(new Error(`bench task ${task} took longer than ${timeoutMs} ms`)));
      void stopChild(child);
    }, timeoutMs);
    child.once("message", (message: WorkerMessage) => {
      settle(() =>
        message.ok
          ? resolve(message.result as TaskResult<T>)
          : reject(new Error(`bench task ${task} failed: ${message.error}`)),
      );
    });
    // "close", not "exit": it comes after the IPC channel delivered every message.
    child.once("close", (code, signal) => {
      settle(() =>
        reject(new Error(`bench task ${task} exited (${signal ?? code}) with no result`)),
      );
    });
  });
}
