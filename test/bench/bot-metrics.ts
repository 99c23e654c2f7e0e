import { request } from "undici";

const PREFIX = "chatbot_bridge_";

/** One scrape of the bot's GET /metrics: every sample by its name, labels dropped, summed. */
export type MetricTotals = ReadonlyMap<string, number>;

/**
 * Reads the bot's Prometheus text. Samples of one name with different labels are added up
 * (questions of both channels, store operations of every kind); `chatbot_bridge_` is taken
 * off the names. Reading it also resets the event-loop delay histogram of the default
 * metrics (prom-client starts it anew at each scrape), so the delay figures of a scrape are
 * those since the one before.
 */
export async function scrapeMetrics(botUrl: string): Promise<MetricTotals> {
  const response = await request(`${botUrl}/metrics`);
  const text = await response.body.text();
  const totals = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^(\w+)(?:\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const [, fullName = "", labels = "", value = ""] = match;
    // A ping serves /healthz, not a message: left out of the store's round trips.
    if (labels.includes('operation="ping"')) continue;
    const name = fullName.startsWith(PREFIX) ? fullName.slice(PREFIX.length) : fullName;
    totals.set(name, (totals.get(name) ?? 0) + Number(value));
  }
  return totals;
}

/** How much a counter grew between two scrapes (0 when it is not there). */
export function grew(before: MetricTotals, after: MetricTotals, name: string): number {
  return (after.get(name) ?? 0) - (before.get(name) ?? 0);
}
