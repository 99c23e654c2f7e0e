import { request } from "undici";

const PREFIX = "chatbot_bridge_";

/** One scrape of the bot's GET /metrics: every sample by its name, labels dropped, summed. */
export type MetricTotals = ReadonlyMap<string, number>;

/**
 * Reads the bot's Prometheus text. Samples of one name with different labels are added up
 * (questions of both channels, store operations of every kind), a histogram's buckets by
 * their bound (`delivery_seconds_bucket{le="0.005"}`); `chatbot_bridge_` is taken off the
 * names. Reading it also resets the event-loop delay histogram of the default
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
    // A ping serves /readyz and /metrics, not a message: left out of the store's round trips.
    if (labels.includes('operation="ping"')) continue;
    const short = fullName.startsWith(PREFIX) ? fullName.slice(PREFIX.length) : fullName;
    // A histogram's buckets keep their bound: summed over its other labels only.
    const le = short.endsWith("_bucket") ? /le="([^"]*)"/.exec(labels)?.[1] : undefined;
    const name = le === undefined ? short : bucketName(short.slice(0, -"_bucket".length), le);
    totals.set(name, (totals.get(name) ?? 0) + Number(value));
    // The store's calls are also kept by operation: what each message's round trips are.
    const operation = short === "store_seconds_count" && /operation="(\w+)"/.exec(labels)?.[1];
    if (operation) totals.set(storeOperation(operation), Number(value));
  }
  return totals;
}

const STORE_OPERATION = "store_seconds_count:";

/** The name under which a scrape keeps the store's calls of one operation. */
function storeOperation(operation: string): string {
  return `${STORE_OPERATION}${operation}`;
}

/** The store's calls between two scrapes, by operation (those that grew only). */
export function storeCallsByOperation(
  before: MetricTotals,
  after: MetricTotals,
): Record<string, number> {
  const calls: Record<string, number> = {};
  for (const name of after.keys()) {
    if (!name.startsWith(STORE_OPERATION)) continue;
    const grown = grew(before, after, name);
    if (grown > 0) calls[name.slice(STORE_OPERATION.length)] = grown;
  }
  return calls;
}

/** How much a counter grew between two scrapes (0 when it is not there). */
export function grew(before: MetricTotals, after: MetricTotals, name: string): number {
  return (after.get(name) ?? 0) - (before.get(name) ?? 0);
}

/**
 * The smallest bucket bound, in ms, under which `quantile` of a histogram's observations
 * between two scrapes fell (NaN with none): Prometheus keeps no finer figure.
 */
export function quantileBoundMs(
  before: MetricTotals,
  after: MetricTotals,
  histogram: string,
  quantile: number,
): number {
  const count = grew(before, after, `${histogram}_count`);
  if (count <= 0) return Number.NaN;
  // The bounds as the scrape wrote them ("0.005", "+Inf"), in their numeric order.
  const prefix = `${histogram}_bucket{le="`;
  const bounds = [...after.keys()]
    .filter((name) => name.startsWith(prefix))
    .map((name) => name.slice(prefix.length, -'"}'.length))
    .sort((a, b) => boundOf(a) - boundOf(b));
  const bound = bounds.find(
    (le) => grew(before, after, bucketName(histogram, le)) >= quantile * count,
  );
  return bound === undefined ? Number.NaN : boundOf(bound) * 1000;
}

/** How scrapeMetrics names a histogram's bucket: `delivery_seconds_bucket{le="0.005"}`. */
function bucketName(histogram: string, le: string): string {
  return `${histogram}_bucket{le="${le}"}`;
}

function boundOf(le: string): number {
  return le === "+Inf" ? Number.POSITIVE_INFINITY : Number(le);
}
