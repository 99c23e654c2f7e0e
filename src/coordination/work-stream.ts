/**
 * A work queue kept in the store: entries are added at the back, and each is taken by one
 * consumer (a process), whichever added it. A taken entry stays the taker's until it is
 * done; when the taker stops renewing its hold (it died), another consumer takes it over.
 * On Redis this is a stream with one consumer group (XADD, XREADGROUP, XAUTOCLAIM, XACK),
 * so every process sharing the Redis draws from the same queue; the embedded store keeps the
 * same steps in memory (MemoryStreams), for the one process that owns it.
 *
 * The shared answer queue (src/coordination/shared-queue.ts) builds on it.
 */

/** An entry as a consumer got it: its id in the queue, and the value added. */
export interface StreamEntry {
  id: string;
  value: unknown;
}

/** What an add says: the entry's id and its place (1: next to be taken); undefined when full. */
export interface StreamAdd {
  id: string;
  place: number;
}

interface MemoryEntry {
  value: string;
  /** The consumer (process) that added it. */
  addedBy: string;
  /** Who holds it, and since when its hold was last renewed; none while it waits. */
  consumer?: string;
  heldAt?: number;
}

interface MemoryStream {
  /** Every entry not yet done, by id, in the order they were added. */
  entries: Map<string, MemoryEntry>;
}

/**
 * Queues by key in this process's memory: the embedded store's. A question waits there only
 * seconds, and a restart tells no one (the queue belongs to the process that stopped), as the
 * local answer queue did.
 */
export class MemoryStreams {
  readonly #streams = new Map<string, MemoryStream>();
  #seq = 0;
  /** Announces each add on streamAddedChannel(key), as the Redis add script does. */
  readonly #announce: (topic: string, id: string) => void;

  constructor(announce: (topic: string, id: string) => void) {
    this.#announce = announce;
  }

  add(key: string, value: unknown, maxWaiting: number, adder: string): StreamAdd | undefined {
    let stream = this.#streams.get(key);
    if (!stream) {
      stream = { entries: new Map() };
      this.#streams.set(key, stream);
    }
    const waiting = this.waiting(key);
    if (waiting >= maxWaiting) return undefined;
    // Never an id used before, as Redis's are: a stream emptied and begun again counts on.
    this.#seq += 1;
    const id = `${this.#seq}-0`;
    stream.entries.set(id, { value: JSON.stringify(value), addedBy: adder });
    this.#announce(streamAddedChannel(key), id);
    return { id, place: waiting + 1 };
  }

  take(key: string, consumer: string, count: number): StreamEntry[] {
    const taken: StreamEntry[] = [];
    for (const [id, entry] of this.#streams.get(key)?.entries ?? []) {
      if (taken.length >= count) break;
      if (entry.consumer !== undefined) continue;
      entry.consumer = consumer;
      entry.heldAt = performance.now();
      taken.push({ id, value: JSON.parse(entry.value) });
    }
    return taken;
  }

  takeOver(
    key: string,
    consumer: string,
    minIdleMs: number,
    count: number,
  ): { entries: StreamEntry[]; quiet: boolean } {
    // An emptied stream is deleted (finish, abandon): none here, none waiting or held.
    if (!this.#streams.has(key)) return { entries: [], quiet: true };
    const now = performance.now();
    const taken: StreamEntry[] = [];
    for (const [id, entry] of this.#streams.get(key)?.entries ?? []) {
      if (taken.length >= count) break;
      if (entry.heldAt === undefined || now - entry.heldAt < minIdleMs) continue;
      entry.consumer = consumer;
      entry.heldAt = now;
      taken.push({ id, value: JSON.parse(entry.value) });
    }
    return { entries: [...taken, ...this.take(key, consumer, count - taken.length)], quiet: false };
  }

  hold(key: string, consumer: string, ids: readonly string[]): string[] {
    const entries = this.#streams.get(key)?.entries;
    const held: string[] = [];
    for (const id of ids) {
      const entry = entries?.get(id);
      if (entry?.consumer !== consumer) continue;
      entry.heldAt = performance.now();
      held.push(id);
    }
    return held;
  }

  finish(key: string, consumer: string, id: string): boolean {
    const stream = this.#streams.get(key);
    if (stream?.entries.get(id)?.consumer !== consumer) return false;
    stream.entries.delete(id);
    if (stream.entries.size === 0) this.#streams.delete(key);
    return true;
  }

  /**
   * The entries `consumer` added that nobody has taken: in memory, nobody can take them once
   * this process is gone, so they go now (Coordination.streamAbandon).
   */
  abandon(key: string, consumer: string): StreamEntry[] {
    const stream = this.#streams.get(key);
    const abandoned: StreamEntry[] = [];
    for (const [id, entry] of stream?.entries ?? []) {
      if (entry.consumer !== undefined || entry.addedBy !== consumer) continue;
      stream?.entries.delete(id);
      abandoned.push({ id, value: JSON.parse(entry.value) });
    }
    if (stream?.entries.size === 0) this.#streams.delete(key);
    return abandoned;
  }

  waiting(key: string): number {
    return this.places(key).length;
  }

  places(key: string): string[] {
    const ids: string[] = [];
    for (const [id, entry] of this.#streams.get(key)?.entries ?? []) {
      if (entry.consumer === undefined) ids.push(id);
    }
    return ids;
  }
}

// The same steps on Redis, each one atomic script. KEYS[1] is the stream; its consumer group
// is STREAM_GROUP. Entries carry their value in field "v". A done entry is acknowledged and
// deleted, so the stream holds only entries not yet done: its length minus the group's pending
// count is the number waiting to be taken (the group's lag, which an autoscaler reads:
// deploy/kubernetes/components/keda).
//
// The stream and its group come back by themselves: a store that lost its data (docs/deploy.md, "What
// to back up"), or a group deleted by hand, answers a group command with NOGROUP, and the
// script then makes the group (and the stream, MKSTREAM) from the start of the stream, so
// entries still in it are taken, and goes on. That costs a command only then: the way it
// always goes is one command fewer than an EXISTS first. Every process's rounds take over from
// the queue every third of TAKEOVER_MS, so the stream and group are back within one, and an
// autoscaler reading the lag finds them, before any question is added.
export const STREAM_GROUP = "answers";
const PRELUDE = `
local stream = KEYS[1]
local function group(...)
  local reply = redis.pcall(...)
  if type(reply) == "table" and reply.err then
    if string.sub(reply.err, 1, 7) ~= "NOGROUP" then error(reply) end
    redis.call("XGROUP", "CREATE", stream, "${STREAM_GROUP}", "0", "MKSTREAM")
    reply = redis.call(...)
  end
  return reply
end
local function waiting()
  return redis.call("XLEN", stream) - group("XPENDING", stream, "${STREAM_GROUP}")[1]
end
local function flatten(entries)
  local out = {}
  for _, entry in ipairs(entries) do
    if entry[2] then
      table.insert(out, entry[1])
      table.insert(out, entry[2][2])
    end
  end
  return out
end
`;

/**
 * ARGV value (JSON), max waiting. Returns {id, place}, or false when full. Publishes on
 * streamAddedChannel(KEYS[1]), so the processes with room take it at once.
 */
export const REDIS_STREAM_ADD_SCRIPT = `${PRELUDE}
local ahead = waiting()
if ahead >= tonumber(ARGV[2]) then return false end
local id = redis.call("XADD", stream, "*", "v", ARGV[1])
redis.call("PUBLISH", stream .. ":added", id)
return {id, ahead + 1}
`;

/** Where the add script announces a new entry of the stream at `streamKey` (its full key). */
export function streamAddedChannel(streamKey: string): string {
  return `${streamKey}:added`;
}

/** ARGV consumer, count. Returns id, value, id, value… of the entries taken. */
export const REDIS_STREAM_TAKE_SCRIPT = `${PRELUDE}
local reply = group("XREADGROUP", "GROUP", "${STREAM_GROUP}", ARGV[1], "COUNT", ARGV[2], "STREAMS", stream, ">")
if not reply then return {} end
return flatten(reply[1][2])
`;

/**
 * ARGV consumer, min idle ms, count. Returns id, value… of the entries taken over, then of
 * entries never taken, up to count in all.
 */
export const REDIS_STREAM_TAKE_OVER_SCRIPT = `${PRELUDE}
local reply = group("XAUTOCLAIM", stream, "${STREAM_GROUP}", ARGV[1], ARGV[2], "0-0", "COUNT", ARGV[3])
local taken = flatten(reply[2])
local left = tonumber(ARGV[3]) - #taken / 2
if left > 0 then
  local fresh = redis.call("XREADGROUP", "GROUP", "${STREAM_GROUP}", ARGV[1], "COUNT", left, "STREAMS", stream, ">")
  if fresh then
    for _, value in ipairs(flatten(fresh[1][2])) do table.insert(taken, value) end
  end
end
return taken
`;

/** ARGV consumer, ids…: renews the hold of those the consumer still holds; returns them. */
export const REDIS_STREAM_HOLD_SCRIPT = `${PRELUDE}
local held = {}
for i = 2, #ARGV do
  local pending = group("XPENDING", stream, "${STREAM_GROUP}", ARGV[i], ARGV[i], 1)
  if pending[1] and pending[1][2] == ARGV[1] then
    redis.call("XCLAIM", stream, "${STREAM_GROUP}", ARGV[1], 0, ARGV[i], "JUSTID")
    table.insert(held, ARGV[i])
  end
end
return held
`;

/** ARGV consumer, id: done, if the consumer still holds it. Returns 1 done, 0 not its own. */
export const REDIS_STREAM_FINISH_SCRIPT = `${PRELUDE}
local pending = group("XPENDING", stream, "${STREAM_GROUP}", ARGV[2], ARGV[2], 1)
if not (pending[1] and pending[1][2] == ARGV[1]) then return 0 end
redis.call("XACK", stream, "${STREAM_GROUP}", ARGV[2])
redis.call("XDEL", stream, ARGV[2])
return 1
`;

/** Returns the number of entries waiting to be taken. */
export const REDIS_STREAM_WAITING_SCRIPT = `${PRELUDE}
return waiting()
`;

/**
 * Returns the ids of the entries waiting to be taken, oldest first: every entry in the stream
 * is waiting or held (pending), done ones being deleted, and the held ones are few (each
 * process holds at most its room).
 */
export const REDIS_STREAM_PLACES_SCRIPT = `${PRELUDE}
local held = {}
for _, entry in ipairs(group("XPENDING", stream, "${STREAM_GROUP}", "-", "+", redis.call("XLEN", stream))) do
  held[entry[1]] = true
end
local ids = {}
for _, entry in ipairs(redis.call("XRANGE", stream, "-", "+")) do
  if not held[entry[1]] then table.insert(ids, entry[1]) end
end
return ids
`;

/** A script's flat id, value… reply as entries. */
export function streamEntriesOf(reply: unknown): StreamEntry[] {
  const flat = Array.isArray(reply) ? reply : [];
  const entries: StreamEntry[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    entries.push({ id: String(flat[i]), value: JSON.parse(String(flat[i + 1])) });
  }
  return entries;
}

/** The add script's reply. */
export function streamAddOf(reply: unknown): StreamAdd | undefined {
  if (!Array.isArray(reply)) return undefined;
  return { id: String(reply[0]), place: Number(reply[1]) };
}
