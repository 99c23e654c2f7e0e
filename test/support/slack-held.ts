import { expect } from "vitest";
import { type HeldBackend, heldBackendPerTest } from "./held-backend.ts";
import { until } from "./run-bot.ts";
import {
  mention,
  type SlackHarness,
  type SlackHarnessOptions,
  startSlackHarness,
} from "./slack-harness.ts";

/**
 * startSlackHarness per test on a held backend: each answer stays on screen, still being
 * written, until the test releases it. A test's options go over `defaults` (fake and slack key
 * by key); `backend` is the held backend of the test running now.
 */
export function slackOnHeldBackend(defaults: SlackHarnessOptions): {
  start(options?: SlackHarnessOptions): Promise<SlackHarness>;
  readonly backend: HeldBackend;
} {
  const onHeldBackend = heldBackendPerTest();
  let current: HeldBackend | undefined;
  return {
    async start(options = {}) {
      const started = await onHeldBackend((held) =>
        startSlackHarness({
          backend: held,
          ...defaults,
          ...options,
          fake: { ...defaults.fake, ...options.fake },
          slack: { ...defaults.slack, ...options.slack },
        }),
      );
      current = started.backend;
      return started.bot;
    },
    get backend() {
      if (!current) throw new Error("no test has started a harness");
      return current;
    },
  };
}

/** U1 asks "weather" in C1: resolves, with the thread's ts, once the answer shows, unfinished. */
export async function answerBeingWritten(harness: SlackHarness): Promise<string> {
  const ts = harness.nextTs();
  void harness.sendEvent(mention("weather", { ts, user: "U1" }));
  await until(
    "the answer being written",
    () => harness.fake.thread("C1", ts)[0]?.text.startsWith("Answer to weather") || undefined,
  );
  return ts;
}

/**
 * The answer of answerBeingWritten, stopped: its request closed, its text kept and ended with
 * `note`, nobody told anything privately.
 */
export function expectStopped(
  harness: SlackHarness,
  held: HeldBackend,
  ts: string,
  note: string,
): void {
  expect(held.dropped).toEqual(["weather"]);
  expect(held.open).toBe(0);
  expect(harness.fake.thread("C1", ts).map((m) => m.text)).toEqual([
    `Answer to weather\n\n${note}`,
  ]);
  expect(harness.fake.ephemerals).toEqual([]);
}
