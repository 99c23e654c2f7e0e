import { Writable } from "node:stream";
import { createLogger, type Logger, type LoggerOptions } from "../../src/log.ts";

/** A logger whose JSON lines a test reads back, as the process would write them. */
export function capturingLog(level: LoggerOptions["level"] = "debug"): {
  log: Logger;
  lines: Record<string, unknown>[];
} {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger({ level, secrets: [], pretty: false, destination }), lines };
}
