import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBackendClient } from "../../src/backend/client.ts";
import type { BackendClient, LeadsQuery } from "../../src/backend/types.ts";
import { LeadChannels } from "../../src/leads/lead-channels.ts";
import { LeadPoller } from "../../src/leads/lead-poller.ts";
import { createLogger } from "../../src/log.ts";
import type { LeadAnnouncer } from "../../src/ports.ts";
import { startSimulator } from "../../src/simulator/index.ts";
import { openEmbeddedStore } from "../../src/store/embedded-store.ts";

export interface LeadsBenchOptions {
  totals?: number[];
  /** New leads a day, whatever the total: what a poll window holds depends on this alone. */
  perDay?: number;
}

export interface LeadsBenchRow {
  totalLeads: number;
  firstPollRequests: number;
  steadyPollRequests: number;
  announced: number;
  steadyPollMs: number;
}

/**
 * Requests per lead poll at growing totals (the simulator makes them up by index, so a
 * million cost no memory). The poll reads a window of days around today, so its cost
 * follows the leads of those days, never the chatbot's total.
 */
export async function benchLeads(options: LeadsBenchOptions = {}): Promise<LeadsBenchRow[]> {
  const perDay = options.perDay ?? 20;
  const rows: LeadsBenchRow[] = [];
  for (const total of options.totals ?? [10, 10_000, 1_000_000]) {
    const simulator = await startSimulator({
      chunkDelayMs: 0,
      leads: total,
      leadsSpanDays: Math.max(1, Math.ceil(total / perDay)),
    });
    const backend = createBackendClient({
      baseUrl: simulator.url,
      apiKey: simulator.apiKey,
      botUid: simulator.botUid,
    });
    const dir = await mkdtemp(join(tmpdir(), "leads-bench-"));
    const store = await openEmbeddedStore({ dataDir: dir });
    let requests = 0;
    const counting: BackendClient = {
      chat: backend.chat,
      streamChat: backend.streamChat,
      close: backend.close,
      leads: (query?: LeadsQuery) => {
        requests++;
        return backend.leads(query);
      },
    };
    let announced = 0;
    const announcer: LeadAnnouncer = {
      platform: "bench",
      channelKey: (id) => `bench:${id}`,
      announce: async () => {
        announced++;
      },
    };
    const poller = new LeadPoller({
      backend: counting,
      store,
      channels: new LeadChannels(store, [{ platform: "bench", id: "sales" }]),
      announcers: [announcer],
      log: createLogger({ level: "silent", secrets: [] }),
      intervalMs: 300_000,
    });
    await poller.pollOnce();
    const firstPollRequests = requests;
    simulator.addLeads(3);
    requests = 0;
    const started = performance.now();
    await poller.pollOnce();
    rows.push({
      totalLeads: total,
      firstPollRequests,
      steadyPollRequests: requests,
      announced,
      steadyPollMs: Math.round(performance.now() - started),
    });
    await store.close();
    await rm(dir, { recursive: true, force: true });
    await backend.close();
    await simulator.close();
  }
  return rows;
}
