import { inspect } from "node:util";
import { LogLevel, type Logger as SlackLogger } from "@slack/bolt";
import type { Logger } from "../../src/log.ts";

/**
 * Bolt's and the Web API client's log lines through the process logger, so they are masked
 * like ours. Bolt's chatter (info: "Now connected to Slack") stays at debug unless it is a
 * warning or an error.
 */
export function boltLogger(log: Logger): SlackLogger {
  let level = LogLevel.INFO;
  const line = (parts: unknown[]) =>
    parts.map((part) => (typeof part === "string" ? part : inspect(part, { depth: 2 }))).join(" ");
  const error = (parts: unknown[]) => parts.find((part) => part instanceof Error);
  return {
    debug: (...parts) => log.debug(line(parts)),
    info: (...parts) => log.debug(line(parts)),
    warn: (...parts) =>
      log.warn({ err: error(parts) }, line(parts.filter((p) => !(p instanceof Error)))),
    error: (...parts) =>
      log.error({ err: error(parts) }, line(parts.filter((p) => !(p instanceof Error)))),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
