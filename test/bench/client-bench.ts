// Cost of the real backend client (createBackendClient on undici) per streamed answer, with
// many answers streaming at once from the simulator running in another process, so this
// process's CPU and heap hold the client's share only.
import { createBackendClient } from "../../src/backend/client.ts";
import type { BackendClient } from "../../src/backend/types.ts";
import { type SimulatorAddress, startSimulatorProcess } from "./simulator-process.ts";
import { collectGarbage, cpuMsSince, round } from "./stats.ts";

export interface ClientRow {
  mode: string;
  streams: number;
  /** Most streams between their header and their end at one moment. */
  peakConcurrent: number;
  failures: number;
  textEventsPerStream: number;
  wallMs: number;
  cpuMsPerStream: number;
  cpuUsPerTextEvent: number;
  /** Live heap (after a full GC) while every stream is open, per stream; NaN when they never all were. */
  heapKbPerActiveStream: number;
  /** Heap left after every stream ended and the client closed, per stream (a leak shows here). */
  heapKbAfterClosePerStream: number;
}

export interface ClientBenchOptions {
  streams?: number;
}

const MODES = [
  { mode: "paced (simulator default)", question: "How does streaming work?" },
  // The whole answer arrives in one or two reads: the fixed cost of one answer.
  { mode: "#fast (answer in one burst)", question: "How does streaming work? #fast" },
] as const;

export async function benchClient(options: ClientBenchOptions = {}): Promise<ClientRow[]> {
  const streams = options.streams ?? 500;
  const simulator = await startSimulatorProcess();
  try {
    await warmUp(simulator.info);
    const rows: ClientRow[] = [];
    for (const { mode, question } of MODES) {
      rows.push({ mode, ...(await measure(simulator.info, streams, question)) });
    }
    return rows;
  } finally {
    await simulator.close();
  }
}

function clientFor(address: SimulatorAddress): BackendClient {
  // undici's Agent (src/backend/transport.ts) sets no `connections` limit, so every
  // stream gets its own socket and all of them run at once (peakConcurrent shows it).
  return createBackendClient({
    baseUrl: address.url,
    apiKey: address.apiKey,
    botUid: address.botUid,
  });
}

async function warmUp(address: SimulatorAddress): Promise<void> {
  const client = clientFor(address);
  try {
    const drain = { header() {}, text: () => true };
    const answers = Array.from({ length: 50 }, () =>
      client.streamChat({ question: "warm up #fast" }, drain),
    );
    await Promise.all(answers);
  } finally {
    await client.close();
  }
}

async function measure(
  address: SimulatorAddress,
  streams: number,
  question: string,
): Promise<Omit<ClientRow, "mode">> {
  collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  const client = clientFor(address);
  let open = 0;
  let peak = 0;
  let headers = 0;
  let ended = 0;
  let failures = 0;
  let textEvents = 0;
  let activeHeap = Number.NaN;
  let sampleCpuMs = 0;
  // Samples the live heap once, the moment every stream is open and none has ended; the
  // CPU the forced GC takes is kept out of the client's figure.
  const sampleWhenAllOpen = () => {
    if (headers !== streams || ended !== 0) return;
    const cpu = process.cpuUsage();
    collectGarbage();
    activeHeap = process.memoryUsage().heapUsed;
    sampleCpuMs = cpuMsSince(cpu);
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  const one = async () => {
    let counted = false;
    try {
      await client.streamChat(
        { question },
        {
          header: () => {
            counted = true;
            headers++;
            peak = Math.max(peak, ++open);
            sampleWhenAllOpen();
          },
          text: () => {
            textEvents++;
            return true;
          },
        },
      );
    } catch {
      failures++;
    } finally {
      if (counted) open--;
      ended++;
    }
  };
  await Promise.all(Array.from({ length: streams }, one));
  const wallMs = performance.now() - started;
  const cpuMs = cpuMsSince(cpu) - sampleCpuMs;
  await client.close();
  collectGarbage();
  const heapAfter = process.memoryUsage().heapUsed;
  return {
    streams,
    peakConcurrent: peak,
    failures,
    textEventsPerStream: round(textEvents / streams, 1),
    wallMs: Math.round(wallMs),
    cpuMsPerStream: round(cpuMs / streams, 3),
    cpuUsPerTextEvent: round((cpuMs * 1000) / Math.max(1, textEvents), 1),
    heapKbPerActiveStream: round((activeHeap - heapBefore) / 1024 / streams, 1),
    heapKbAfterClosePerStream: round((heapAfter - heapBefore) / 1024 / streams, 2),
  };
}
