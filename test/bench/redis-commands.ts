import { createClient } from "@keyv/redis";

// Commands of our own connection to ask, not of the bridge's work.
const OWN = /^(info|client|hello|auth|select)\b/;

/**
 * Commands the Redis server has processed so far, by name (INFO commandstats), minus the
 * ones this query itself sends; the difference of two calls is what happened in between.
 * The clients' keep-alive PINGs are left out unless `pings` is set.
 */
export async function redisCommandCount(
  url: string,
  options: { pings?: boolean } = {},
): Promise<Map<string, number>> {
  const client = createClient({ url });
  await client.connect();
  try {
    const info = await client.info("commandstats");
    const counts = new Map<string, number>();
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      const name = match[1] ?? "";
      if (!OWN.test(name) && (options.pings || name !== "ping")) counts.set(name, Number(match[2]));
    }
    return counts;
  } finally {
    client.destroy();
  }
}

/** `after - before`, per command, leaving out commands that did not run in between. */
export function commandsBetween(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
): Map<string, number> {
  const diff = new Map<string, number>();
  for (const [name, calls] of after) {
    const delta = calls - (before.get(name) ?? 0);
    if (delta > 0) diff.set(name, delta);
  }
  return diff;
}
