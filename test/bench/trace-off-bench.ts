// What tracing costs a question while it is off: the calls src/tracing.ts receives on one
// question's path (QuestionLife's states, the backend call's chunks, each store and platform
// call), timed in a loop. The counts come from a measured answer (the pipeline's rows).
import {
  backendCallTrace,
  platformCallTrace,
  questionTrace,
  storeCallTrace,
} from "../../src/tracing.ts";

export interface TraceOffBenchOptions {
  /** Store calls per answer, platform (surface) calls per answer, backend chunks per answer. */
  storeCalls: number;
  platformCalls: number;
  chunks: number;
}

export interface TraceOffRow extends TraceOffBenchOptions {
  nsPerQuestion: number;
}

/** The states a question passes on its usual path (docs/architecture.md), its end included. */
const STATES = ["waiting for its thread", "answering"] as const;
const QUESTIONS = 200_000;

export function benchTraceOff(options: TraceOffBenchOptions): TraceOffRow {
  const storeCalls = Math.ceil(options.storeCalls);
  const platformCalls = Math.ceil(options.platformCalls);
  const question = () => {
    const life = questionTrace(undefined);
    life.begin({ channel: "bench", question: "q", thread: "t", how: "received" });
    life.within(() => {
      for (const state of STATES) life.state(state);
      for (let i = 0; i < storeCalls; i++) storeCallTrace("get")?.(false);
    });
    life.withinState(() => {
      const call = backendCallTrace("bench");
      call.firstByte();
      for (let i = 0; i < options.chunks; i++) call.received("chunk");
      call.end("complete");
      for (let i = 0; i < platformCalls; i++) platformCallTrace("slack", "chat.update")?.("ok");
    });
    life.end("answered", "complete");
  };
  for (let i = 0; i < QUESTIONS / 10; i++) question();
  const started = process.hrtime.bigint();
  for (let i = 0; i < QUESTIONS; i++) question();
  const ns = Number(process.hrtime.bigint() - started);
  return { ...options, nsPerQuestion: Math.round(ns / QUESTIONS) };
}
