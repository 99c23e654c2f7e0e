import { inspect } from "node:util";
import { LogLevel, type Logger as SlackLogger } from "@slack/bolt";
import type { Logger } from "../../src/log.ts";

/** How @slack/web-api's WebClient words a request that failed below the API (network). */
const CALL_FAILED = "http request failed";

/**
 * Bolt's and the Web API client's log lines through the process logger, so they are masked
 * like ours. Bolt's chatter (info: "Now connected to Slack") stays at debug unless it is a
 * warning or an error. Bolt logs a few debug lines for every delivery (each ack): they are
 * put together only when debug lines are written at all. The Web API client's line for a
 * call that did not reach Slack goes to debug too: the failure reaches the caller, and one
 * that lasts ends in the caller's own line (the start's retry line, with its reason; an
 * answer that fails after the engine's tries); one the next try gets past is counted in
 * chatbot_bridge_platform_calls_total. Its other warnings (deprecations, Slack's own
 * `warnings`) stay warnings.
 */
export function boltLogger(log: Logger): SlackLogger {
  let level = LogLevel.INFO;
  const line = (parts: unknown[]) =>
    parts.map((part) => (typeof part === "string" ? part : inspect(part, { depth: 2 }))).join(" ");
  const error = (parts: unknown[]) => parts.find((part) => part instanceof Error);
  const chatter = (...parts: unknown[]) => {
    if (log.isLevelEnabled("debug")) log.debug(line(parts));
  };
  return {
    debug: chatter,
    info: chatter,
    warn: (...parts) => {
      if (parts[0] === CALL_FAILED) chatter(...parts);
      else log.warn({ err: error(parts) }, line(parts.filter((p) => !(p instanceof Error))));
    },
    error: (...parts) =>
      log.error({ err: error(parts) }, line(parts.filter((p) => !(p instanceof Error)))),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
