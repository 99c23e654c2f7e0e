import type { Logger } from "./log.ts";

export interface ProcessGuardOptions {
  /**
   * After an uncaught exception, the longest the orderly stop may take before the process
   * exits anyway: state that is not known to be sound may also hang the stop.
   */
  exitAfterMs: number;
}

/**
 * The last line of defence behind every per-request and per-update error boundary, so no
 * delivery can end the process by accident.
 *
 * A rejected promise nobody awaits (a library's fire-and-forget request handling, say) is
 * logged and the bot keeps serving: the failed work is over and left nothing half done that
 * later work depends on. An uncaught exception is different: it tore through code in the
 * middle of a change, so the process state is unknown. Then the returned promise resolves:
 * the process stops the orderly way (running answers finish or are cut with their note) and
 * exits with code 1 for its supervisor to restart it, at the latest after `exitAfterMs`.
 */
export function guardProcess(log: Logger, options: ProcessGuardOptions): Promise<Error> {
  return new Promise((resolve) => {
    process.on("unhandledRejection", (reason) => {
      log.error({ err: reason }, "unhandled promise rejection: logged, the bot keeps serving");
    });
    let stopping = false;
    process.on("uncaughtException", (error) => {
      log.fatal(
        { err: error },
        stopping
          ? "uncaught exception while stopping"
          : "uncaught exception: the process state is unknown, stopping for a restart",
      );
      if (stopping) return;
      stopping = true;
      setTimeout(() => process.exit(1), options.exitAfterMs).unref();
      resolve(error);
    });
  });
}
