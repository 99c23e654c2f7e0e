import { setTimeout as sleep } from "node:timers/promises";
import {
  createConcurrentSink,
  createRunner,
  createSource,
  type RunnerHandle,
} from "@grammyjs/runner";
import type { Bot } from "grammy";
import type { Update } from "grammy/types";
import type { Logger } from "../../src/log.ts";
import { isConflict, retryAfterMs, TelegramApiError } from "./errors.ts";
import type { UpdateKind } from "./to-incoming.ts";

export interface PollerOptions {
  bot: Bot;
  log: Logger;
  /** Handles one update; resolves when its answer is complete. */
  handle: (update: Update) => Promise<void>;
  /** getUpdates long-poll timeout. */
  timeoutSeconds: number;
  /** Wait after a failed getUpdates, doubled on each failure in a row up to `maxMs`. */
  backoff: { initialMs: number; maxMs: number };
  /**
   * A getUpdates unanswered this long past its timeout counts as stalled. Keep it well below
   * the HTTP client's own margin past the timeout: a client that gives up first ends the call
   * before the stall can be seen.
   */
  stallAfterMs: number;
  /** Updates handled at once across all chats (each chat's thread queue keeps its order). */
  concurrency: number;
  /** The kinds of update asked for (allowedUpdates). */
  allowedUpdates: readonly UpdateKind[];
}

/** The runner's AbortSignal type (from the abort-controller package grammY also uses). */
type RunnerSignal = Parameters<Bot["api"]["getUpdates"]>[1] & { aborted: boolean };

type Problem = "conflict" | "unauthorized" | "stalled" | "failing";

// Failures in a row before polling counts as down for /healthz.
const FAILURES_BEFORE_UNHEALTHY = 3;
const CONFIRM_TIMEOUT_MS = 5_000;

/**
 * Long polling with @grammyjs/runner: updates of different chats are handled concurrently,
 * so one slow answer never holds another chat. getUpdates is called here rather than by the
 * runner's fetcher so that a 409 Conflict (another process polling with the same token)
 * gives one clear log line and a growing backoff instead of a stopped runner, and so that a
 * stalled getUpdates shows in `unhealthyReason`.
 */
export class Poller {
  readonly #options: PollerOptions;
  #runner: RunnerHandle | undefined;
  #offset = 0;
  #inFlightSince: number | undefined;
  #lastSettled = performance.now();
  #problem: Problem | undefined;
  #failures = 0;

  constructor(options: PollerOptions) {
    this.#options = options;
  }

  start(): void {
    const { log, handle, concurrency } = this.#options;
    const source = createSource<Update>({
      supply: (batchSize, signal) => this.#supply(batchSize, signal),
    });
    const sink = createConcurrentSink<Update>(
      { consume: handle },
      async (error) => log.error({ err: error }, "Telegram update failed"),
      { concurrency },
    );
    // A poller that stood down and polls again starts afresh. Its offset may be behind one that
    // another process confirmed since: harmless, Telegram has forgotten those updates.
    this.#problem = undefined;
    this.#failures = 0;
    this.#lastSettled = performance.now();
    this.#runner = createRunner(source, sink);
    this.#runner.start();
    this.#runner
      .task()
      ?.catch((error: unknown) => log.error({ err: error }, "Telegram polling stopped"));
  }

  /**
   * Stops polling. With `confirmOffset`, one last getUpdates tells Telegram which updates were
   * taken, so the next poller (this process restarted, or another) does not get them again.
   * Without it (another process polls already), that call would cut the other's long poll.
   */
  async stop({ confirmOffset }: { confirmOffset: boolean }): Promise<void> {
    const running = this.#runner;
    this.#runner = undefined;
    await running?.stop();
    if (!running || !confirmOffset || this.#offset === 0) return;
    await this.#options.bot.api
      .getUpdates(
        { offset: this.#offset, limit: 1, timeout: 0 },
        // Bounded: the next poller waits for this call (the lease is released after it).
        AbortSignal.timeout(CONFIRM_TIMEOUT_MS) as unknown as RunnerSignal,
      )
      .catch((error: unknown) =>
        this.#options.log.warn({ err: error }, "Telegram: could not confirm the last updates"),
      );
  }

  unhealthyReason(): string | undefined {
    if (!this.#runner) return "Telegram polling is not running";
    if (this.#problem === "conflict") {
      return "Telegram: 409 Conflict, another process polls with this bot token (or a webhook is set)";
    }
    if (this.#problem === "unauthorized") return "Telegram rejected the bot token (401)";
    if (this.#problem === "failing" && this.#failures >= FAILURES_BEFORE_UNHEALTHY) {
      return `Telegram polling failing (${this.#failures} getUpdates errors in a row)`;
    }
    const now = performance.now();
    const { stallAfterMs, backoff } = this.#options;
    if (this.#inFlightSince !== undefined) {
      const waited = now - this.#inFlightSince;
      if (waited > this.#stallMs()) {
        return `Telegram polling stalled: getUpdates unanswered for ${Math.round(waited / 1000)} s`;
      }
    } else if (now - this.#lastSettled > backoff.maxMs + stallAfterMs) {
      return "Telegram polling stalled: no getUpdates running";
    }
    // Until a getUpdates answers: the next call, not yet overdue, proves nothing.
    if (this.#problem === "stalled") {
      return "Telegram polling stalled: getUpdates went unanswered past its timeout";
    }
    return undefined;
  }

  /** How long a getUpdates may take before it counts as stalled. */
  #stallMs(): number {
    return this.#options.timeoutSeconds * 1000 + this.#options.stallAfterMs;
  }

  async #supply(batchSize: number, signal: RunnerSignal): Promise<Update[]> {
    const { bot, timeoutSeconds, backoff, allowedUpdates } = this.#options;
    let delay = backoff.initialMs;
    for (;;) {
      const started = performance.now();
      this.#inFlightSince = started;
      try {
        const updates = await bot.api.getUpdates(
          {
            offset: this.#offset,
            limit: Math.max(1, Math.min(batchSize, 100)),
            timeout: timeoutSeconds,
            allowed_updates: allowedUpdates,
          },
          signal,
        );
        this.#recovered();
        const last = updates.at(-1);
        if (last) this.#offset = last.update_id + 1;
        return updates;
      } catch (error) {
        if (signal.aborted) throw error;
        const wait = this.#failed(error, delay, performance.now() - started > this.#stallMs());
        delay = Math.min(backoff.maxMs, delay * 2);
        // The wait ahead is the poller doing as told (a 429's retry_after, a backoff), not a
        // getUpdates going unanswered: it counts as settled until the wait ends.
        this.#inFlightSince = undefined;
        this.#lastSettled = performance.now() + wait;
        await sleep(wait, undefined, { signal: signal as unknown as AbortSignal }).catch(
          () => undefined,
        );
        if (signal.aborted) throw error;
      } finally {
        this.#inFlightSince = undefined;
        this.#lastSettled = performance.now();
      }
    }
  }

  /**
   * Logs a failure once per kind in a row and says how long to wait before polling again.
   * `overdue`: the call failed only after it had stalled (the client gave up, or the
   * connection was cut).
   */
  #failed(error: unknown, delay: number, overdue: boolean): number {
    const { log } = this.#options;
    this.#failures++;
    const retryAfter = retryAfterMs(error);
    if (retryAfter !== undefined) return retryAfter;
    const problem: Problem = isConflict(error)
      ? "conflict"
      : error instanceof TelegramApiError && error.errorCode === 401
        ? "unauthorized"
        : overdue
          ? "stalled"
          : "failing";
    if (problem !== this.#problem) {
      if (problem === "conflict") {
        log.error(
          { reason: (error as TelegramApiError).description },
          "Telegram answered 409 Conflict: another process is polling with this bot token (or a webhook is set); retrying with backoff",
        );
      } else if (problem === "unauthorized") {
        log.error(
          "Telegram rejected the bot token (401): check TELEGRAM_BOT_TOKEN; retrying with backoff",
        );
      } else if (problem === "stalled") {
        log.warn(
          { err: error },
          "Telegram getUpdates went unanswered past its timeout; retrying with backoff",
        );
      } else {
        log.warn({ err: error }, "Telegram getUpdates failed; retrying with backoff");
      }
    }
    this.#problem = problem;
    return delay;
  }

  #recovered(): void {
    if (this.#problem) this.#options.log.info("Telegram polling resumed");
    this.#problem = undefined;
    this.#failures = 0;
  }
}
