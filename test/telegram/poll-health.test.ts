import { afterEach, describe, expect, it } from "vitest";
import { CLIENT_MARGIN_SECONDS, POLL_STALL_GRACE_MS } from "../../adapters/telegram/index.ts";
import { Metrics } from "../../src/metrics.ts";
import { runService } from "../../src/service.ts";
import { capturingLog } from "../support/log-lines.ts";
import { until as runBotUntil } from "../support/run-bot.ts";
import { type Rig, startRig, until } from "./rig.ts";

let rig: Rig | undefined;
let stopService: (() => Promise<void>) | undefined;
afterEach(async () => {
  if (rig) rig.fake.holdPolls = false;
  await stopService?.();
  await rig?.close();
  rig = undefined;
  stopService = undefined;
});

/** The channel behind the process's real HTTP server; resolves with its /readyz URL. */
async function serve(r: Rig): Promise<string> {
  const { log, lines } = capturingLog("info");
  let stop!: () => void;
  const running = runService({
    channels: [r.channel],
    bridge: r.harness.bridge,
    store: r.harness.store,
    metrics: new Metrics(),
    log,
    port: 0,
    shutdownGraceMs: 1_000,
    stopRequested: new Promise<void>((resolve) => {
      stop = resolve;
    }),
  });
  stopService = async () => {
    stop();
    await running;
  };
  await until(() => lines.some((l) => l.msg === "channel started"), 5_000, "the channel");
  const listening = lines.find((l) => typeof l.port === "number");
  return `http://127.0.0.1:${listening?.port}/readyz`;
}

async function health(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.text() };
}

/** Asks /readyz every 20 ms until it answers `status`; fails after `timeoutMs`. */
async function healthBecomes(url: string, status: number, timeoutMs: number): Promise<string> {
  const answer = async () => {
    const { status: now, body } = await health(url);
    return now === status ? body : undefined;
  };
  return runBotUntil(`/readyz ${status}`, answer, timeoutMs);
}

/**
 * A 1-second long poll (Telegram's timeout is in whole seconds), and a stall grace past it
 * shorter than the default, so the tests take a second or two; the client's own timeout is
 * the default.
 */
const POLLING = { timeoutSeconds: 1, backoff: { initialMs: 50, maxMs: 400 }, stallAfterMs: 300 };

describe("Telegram long polling and /readyz", () => {
  it("turns 503 soon after a getUpdates overruns its timeout, stays so while polls hang, and recovers when they answer", async () => {
    // The default grace, too, shows a stall while the call still hangs: the client gives up
    // only CLIENT_MARGIN_SECONDS past the timeout (issue 12: the two were equal, so a hung poll
    // was cut and retried before it ever counted as stalled).
    expect(POLL_STALL_GRACE_MS).toBeLessThan((CLIENT_MARGIN_SECONDS * 1000) / 2);
    const r = await startRig({ start: false, channel: { polling: POLLING } });
    rig = r;
    r.fake.holdPolls = true;
    const url = await serve(r);
    await until(() => r.fake.pendingPolls === 1, 2_000, "a held getUpdates");
    expect((await health(url)).status).toBe(200);

    // grammY gives up on the request only 30 s past the long-poll timeout: the stall must
    // show long before that, while the request still hangs.
    const hungSince = performance.now();
    const body = await healthBecomes(url, 503, 10_000);
    expect(JSON.parse(body)).toEqual({
      status: "not ready",
      problems: [expect.stringMatching(/^telegram: Telegram polling stalled/)],
    });
    expect(performance.now() - hungSince).toBeLessThan(10_000);
    expect(r.fake.callsTo("getUpdates")).toHaveLength(1);

    // The hung request breaks off and the next one hangs too: still a stall, not a fresh start.
    r.fake.dropPolls();
    await until(() => r.fake.callsTo("getUpdates").length === 2, 2_000, "the next getUpdates");
    await until(() => r.fake.pendingPolls === 1, 2_000, "the next getUpdates to be held");
    expect((await health(url)).status).toBe(503);

    // Telegram answers again.
    r.fake.holdPolls = false;
    expect(JSON.parse(await healthBecomes(url, 200, 3_000))).toEqual({ status: "ready" });
    r.fake.write({ chat: r.dm.id, from: r.alice, text: "/help" });
    await until(() => r.fake.botMessages(r.dm.id).length === 1, 3_000, "the help");
  });

  it("stays 200 while it waits as long as a 429's retry_after asks, past the stall time", async () => {
    const r = await startRig({ start: false, channel: { polling: POLLING } });
    rig = r;
    // A wait longer than the 1 s poll plus the stall grace.
    r.fake.failNext({
      method: "getUpdates",
      errorCode: 429,
      description: "Too Many Requests: retry after 2",
      retryAfter: 2,
    });
    const url = await serve(r);
    await until(() => r.fake.callsTo("getUpdates").length === 1, 2_000, "the refused getUpdates");
    const refusedAt = performance.now();
    // Asked throughout the wait, until the getUpdates after it comes: 200 every time,
    // past the time a getUpdates would have counted as stalled.
    const stallAt = refusedAt + POLLING.timeoutSeconds * 1000 + POLLING.stallAfterMs;
    let lastAsked = refusedAt;
    while (r.fake.callsTo("getUpdates").length < 2) {
      expect((await health(url)).status).toBe(200);
      lastAsked = performance.now();
      expect(lastAsked - refusedAt, "the getUpdates after it").toBeLessThan(5_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(lastAsked).toBeGreaterThan(stallAt);
  });
});
