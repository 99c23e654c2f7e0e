import type { Bridge } from "../../src/bridge/bridge.ts";
import type { IncomingMessage, SurfaceLimits } from "../../src/ports.ts";
import type { LoopDelayMonitor } from "./loop-delay.ts";
import { rampSlots } from "./ramp.ts";
import { StampSurface } from "./stamp-surface.ts";
import { collectGarbage, cpuMsSince } from "./stats.ts";

export interface LoadOptions {
  bridge: Bridge;
  /** Answers streaming at once: one "slot" (a thread) per concurrent answer. */
  concurrency: number;
  /** Questions each slot asks one after the other, in its own thread (at least 3). */
  rounds: number;
  /** Slots start evenly over this time, so answers do not move in lockstep. */
  rampMs: number;
  limits: SurfaceLimits;
  clockOffsetMs: number;
  /** Paused during the forced GC of the live-heap sample, so it does not count that pause. */
  loopDelay: LoopDelayMonitor;
  /** The whole load must be over by then, or it fails. */
  timeoutMs: number;
}

export interface AnswerRecord {
  round: number;
  firstTextLatencyMs: number;
  finished: boolean;
  calls: number;
}

export interface Sample {
  at: number;
  rss: number;
  heapUsed: number;
  /** Answers under way: handed to the bridge and not yet complete on the surface. */
  active: number;
}

export interface LoadResult {
  answers: AnswerRecord[];
  samples: Sample[];
  /** From the moment every slot had started until the first slot was done: all slots busy. */
  fullFrom: number;
  fullUntil: number;
  /** Heap after a full GC while all slots were busy; undefined without --expose-gc. */
  liveHeap: { heapUsed: number; active: number; gcCpuMs: number } | undefined;
}

const SAMPLE_EVERY_MS = 250;

/**
 * Drives the bridge as `concurrency` threads that each ask `rounds` questions in turn, the
 * threads starting evenly over `rampMs`; samples memory and open streams meanwhile. The
 * middle rounds are the measured ones; once every one of them has shown its first text
 * (and while the last round still keeps every thread busy) the live heap is sampled after a
 * forced GC, whose pause then delays only unmeasured answers.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const answers: AnswerRecord[] = [];
  const samples: Sample[] = [];
  const sampler = setInterval(() => {
    const memory = process.memoryUsage();
    samples.push({
      at: performance.now(),
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      active,
    });
  }, SAMPLE_EVERY_MS);
  let active = 0;
  let lastStart = 0;
  let firstDone = Number.POSITIVE_INFINITY;
  let liveHeap: LoadResult["liveHeap"];
  let measuredShown = 0;
  const measured = options.concurrency * (options.rounds - 2);
  const sampleLiveHeap = () => {
    if (++measuredShown !== measured || firstDone !== Number.POSITIVE_INFINITY) return;
    setImmediate(() => {
      const cpu = process.cpuUsage();
      options.loopDelay.pause();
      const collected = collectGarbage(1);
      const heapUsed = process.memoryUsage().heapUsed;
      options.loopDelay.resume();
      if (collected) liveHeap = { heapUsed, active, gcCpuMs: cpuMsSince(cpu) };
    });
  };

  const slot = async (index: number) => {
    lastStart = Math.max(lastStart, performance.now());
    for (let round = 0; round < options.rounds; round++) {
      const isMeasured = round > 0 && round < options.rounds - 1;
      const surface = new StampSurface(
        options.limits,
        options.clockOffsetMs,
        isMeasured ? sampleLiveHeap : undefined,
      );
      active++;
      await options.bridge.handle(message(index, round), surface);
      active--;
      answers.push({
        round,
        firstTextLatencyMs: surface.firstTextLatencyMs,
        finished: surface.finished,
        calls: surface.calls,
      });
    }
    firstDone = Math.min(firstDone, performance.now());
  };

  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`load did not finish within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
  });
  try {
    await Promise.race([rampSlots(options.concurrency, options.rampMs, slot), deadline]);
  } finally {
    clearTimeout(timer);
    clearInterval(sampler);
  }
  return { answers, samples, fullFrom: lastStart, fullUntil: firstDone, liveHeap };
}

function message(slot: number, round: number): IncomingMessage {
  return {
    channel: "bench",
    deliveryId: `d-${slot}-${round}`,
    channelKey: "bench:channel",
    channelId: "channel",
    threadKey: `bench:channel:thread-${slot}`,
    authorId: `user-${slot}`,
    text: `Question ${round + 1} of thread ${slot}: how does streaming work?`,
    isAdmin: async () => false,
  };
}
