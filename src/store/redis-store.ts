import { createHash } from "node:crypto";
import KeyvRedis from "@keyv/redis";
import { Keyv } from "keyv";
import type { StoreSentinel } from "../config.ts";
import { type CallWindow, REDIS_WINDOW_SCRIPT } from "../coordination/call-window.ts";
import { REDIS_LINE_REPLACE_SCRIPT } from "../coordination/line.ts";
import type { Ttl } from "../coordination/port.ts";
import { presenceKey } from "../coordination/process-presence.ts";
import {
  type Drawn,
  type DrawOptions,
  REDIS_DRAW_SCRIPT,
  type TokenBucket,
} from "../coordination/token-bucket.ts";
import {
  REDIS_STREAM_ADD_SCRIPT,
  REDIS_STREAM_FINISH_SCRIPT,
  REDIS_STREAM_HOLD_SCRIPT,
  REDIS_STREAM_PLACES_SCRIPT,
  REDIS_STREAM_TAKE_OVER_SCRIPT,
  REDIS_STREAM_TAKE_SCRIPT,
  REDIS_STREAM_WAITING_SCRIPT,
  STREAM_GROUP,
  type StreamAdd,
  type StreamEntry,
  streamAddOf,
  streamEntriesOf,
} from "../coordination/work-stream.ts";
import { messageOf } from "../errors.ts";
import type { Logger } from "../log.ts";
import { checkTtl, DeadlineError, isKept, OperationGuard } from "./operation-guard.ts";
import type { OutageLog } from "./outage-log.ts";
import { type ConnectionState, connectRedis, type RedisClient } from "./redis-connection.ts";
import { connectSentinel, type SentinelClient } from "./redis-sentinel.ts";
import type { Store, StoreEntry } from "./types.ts";

export interface RedisStoreOptions {
  /**
   * STORE_URL: `redis://[user][:password]@host[:port][/db]` or `rediss://…`; with `sentinel`,
   * only its credentials and database count (and it may be unset).
   */
  url: string | undefined;
  /** STORE_SENTINELS and STORE_SENTINEL_NAME: the primary is where the Sentinels say. */
  sentinel?: StoreSentinel | undefined;
  /** Prefix of every key (`<namespace>:<key>`), so several apps or test runs share one Redis. */
  namespace?: string;
  /** Longest wait for one command before it fails (default 1 s). */
  timeoutMs?: number;
  /** Longest wait for the first connection in openRedisStore (default 1 s). */
  connectTimeoutMs?: number;
  /** Where an outage is logged, once when it starts and once when it ends. */
  log?: Logger | undefined;
  /** How often kept records whose time is up are deleted (default one minute). */
  sweepIntervalMs?: number;
  /**
   * The id of the process that opens it (ProcessPresence.id): its connections carry it as
   * their name, so the others can tell it is still there (connectedProcesses).
   */
  processId?: string | undefined;
}

/** A connection's name (CLIENT SETNAME) for process `id`; connectedProcesses reads it back. */
const CONNECTION_PREFIX = "chatbot-bridge:";

export const DEFAULT_NAMESPACE = "chatbot-bridge";

/**
 * The kept records (see Ttl) by the time each is up (a sorted set: score, the epoch ms; member,
 * the record's full key). Without a TTL itself, so no eviction takes it.
 */
export const KEPT_INDEX_KEY = "store:kept";
/** Kept records deleted by one sweep call at most: a long backlog goes in several. */
const SWEEP_BATCH = 500;

// Compare-and-act in one server-side step, so a lease that expired and was taken by
// another process is never extended or deleted by its previous owner.
const RENEW_SCRIPT = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end return 0`;
const RELEASE_SCRIPT = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`;

/** HSET that answers with the field's previous value (false when it was new), atomically. */
const PUT_IN_MAP_SCRIPT = `local before = redis.call("HGET", KEYS[1], ARGV[1])
redis.call("HSET", KEYS[1], ARGV[1], ARGV[2])
if tonumber(ARGV[3]) > 0 then redis.call("PEXPIRE", KEYS[1], ARGV[3]) end
return before`;

/** SET NX of a kept claim: recorded in the kept index (KEYS[2]) only when it was taken. */
const CLAIM_KEPT_SCRIPT = `if redis.call("SET", KEYS[1], ARGV[1], "NX") then
  redis.call("ZADD", KEYS[2], ARGV[2], KEYS[1])
  return 1
end
return 0`;

/** Deletes the kept records whose time (ARGV[1], epoch ms) is up, at most ARGV[2]; returns how many. */
const SWEEP_KEPT_SCRIPT = `local due = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", ARGV[1], "LIMIT", 0, ARGV[2])
if #due == 0 then return 0 end
redis.call("DEL", unpack(due))
redis.call("ZREM", KEYS[1], unpack(due))
return #due`;

/** Lua reads numbers as doubles: an unbounded limit goes as the largest exact one. */
function limitOf(limit: number): number {
  return Number.isFinite(limit) ? Math.floor(limit) : Number.MAX_SAFE_INTEGER;
}

const digests = new Map<string, string>();

function scriptDigest(script: string): string {
  let digest = digests.get(script);
  if (!digest) {
    digest = createHash("sha1").update(script).digest("hex");
    digests.set(script, digest);
  }
  return digest;
}

/**
 * Opens the Redis store. Waits up to `connectTimeoutMs` for the first connection. Rejects
 * with StoreUnavailableError when the URL is malformed or Redis refuses the credentials or
 * the database number. An unreachable Redis does not stop the opening: the client keeps
 * reconnecting in the background and every operation fails fast until it is back, so the
 * process stays up, reports the outage on /healthz and recovers without a restart.
 */
export async function openRedisStore(options: RedisStoreOptions): Promise<RedisStore> {
  const timeoutMs = options.timeoutMs ?? 1_000;
  const connection = {
    timeoutMs,
    connectTimeoutMs: options.connectTimeoutMs ?? 1_000,
    log: options.log,
    name: options.processId && `${CONNECTION_PREFIX}${options.processId}`,
  };
  const { client, state, target, outage } = options.sentinel
    ? await connectSentinel({ ...connection, sentinel: options.sentinel, url: options.url })
    : await connectRedis({ ...connection, url: options.url ?? "" });
  return new RedisStore(client, state, {
    target,
    namespace: options.namespace ?? DEFAULT_NAMESPACE,
    timeoutMs,
    outage,
    sweepIntervalMs: options.sweepIntervalMs,
    log: options.log,
  });
}

/** The shared store for one or many processes, over keyv + @keyv/redis. */
export class RedisStore implements Store {
  readonly #client: RedisClient | SentinelClient;
  readonly #state: ConnectionState;
  readonly #adapter: KeyvRedis<unknown>;
  readonly #keyv: Keyv;
  readonly #guard: OperationGuard;
  readonly #outage: OutageLog | undefined;
  /** The connection for subscribe (a subscribed connection can send nothing else). */
  #subscriber: Promise<RedisClient | SentinelClient> | undefined;
  readonly #sweepTimer: NodeJS.Timeout;
  readonly #log: Logger | undefined;
  /** CLIENT LIST was refused once (an ACL without it): said once, not asked again. */
  #listRefused = false;

  constructor(
    client: RedisClient | SentinelClient,
    state: ConnectionState,
    options: {
      target: string;
      namespace: string;
      timeoutMs: number;
      outage?: OutageLog | undefined;
      sweepIntervalMs?: number | undefined;
      log?: Logger | undefined;
    },
  ) {
    this.#log = options.log;
    this.#client = client;
    this.#state = state;
    this.#outage = options.outage;
    // Both layers swallow errors by default (a failed get reads as "missing"): KeyvRedis
    // returns undefined unless its throwOnErrors is set, and Keyv likewise.
    this.#adapter = new KeyvRedis(client, {
      namespace: options.namespace,
      keyPrefixSeparator: ":",
      throwOnErrors: true,
      throwOnConnectError: true,
    });
    // useKeyPrefix false: the adapter already prefixes; Keyv would add a second prefix.
    this.#keyv = new Keyv(this.#adapter, {
      namespace: options.namespace,
      useKeyPrefix: false,
      throwOnErrors: true,
    });
    this.#guard = new OperationGuard(options.timeoutMs, {
      describe: (error) => this.#describe(options.target, options.timeoutMs, error),
      duringOutage: () => this.#outage?.active ?? false,
    });
    // Housekeeping, as the embedded store's sweep: a failed one is made up by the next.
    this.#sweepTimer = setInterval(
      () => void this.sweep().catch(() => undefined),
      options.sweepIntervalMs ?? 60_000,
    ).unref();
  }

  get<T>(key: string): Promise<T | undefined> {
    return this.#run("get", () => this.#keyv.get<T>(key));
  }

  getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]> {
    if (keys.length === 0) return this.#run("getMany", async () => []);
    // Keyv hands the whole list to KeyvRedis.getMany, which sends one MGET.
    return this.#run("getMany", () => this.#keyv.getMany<T>([...keys]));
  }

  async set<T>(key: string, value: T, ttlMs?: Ttl): Promise<void> {
    if (isKept(ttlMs)) return this.setMany([{ key, value, ttlMs }]);
    const ttl = checkTtl(ttlMs);
    await this.#run("set", () => this.#keyv.set(key, value, ttl));
  }

  async setMany(entries: readonly StoreEntry[]): Promise<void> {
    const checked = entries.map(({ key, value, ttlMs }) => ({
      key,
      value,
      ttl: checkTtl(ttlMs),
      kept: isKept(ttlMs),
    }));
    if (checked.length === 0) return;
    await this.#run("setMany", async () => {
      // A pipeline, not KeyvRedis.setMany's MULTI: the same SETs in one round trip, without
      // the two commands a transaction adds (nothing reads these records mid-write).
      const pipeline = this.#client.multi();
      const now = Date.now();
      const keptUntil: { score: number; value: string }[] = [];
      // Records without a TTL in Redis (none, or kept: see Ttl) in one MSET.
      const untimed: [string, string][] = [];
      for (const { key, value, ttl, kept } of checked) {
        const encoded = await this.#encode(value);
        if (ttl === undefined || kept) untimed.push([this.#key(key), encoded]);
        else pipeline.set(this.#key(key), encoded, { expiration: { type: "PX", value: ttl } });
        if (ttl !== undefined && kept) keptUntil.push({ score: now + ttl, value: this.#key(key) });
      }
      if (untimed.length > 0) pipeline.mSet(untimed);
      // Every kept record of the call in one ZADD.
      if (keptUntil.length > 0) pipeline.zAdd(this.#key(KEPT_INDEX_KEY), keptUntil);
      await pipeline.exec(true);
    });
  }

  delete(key: string): Promise<boolean> {
    return this.#run("delete", () => this.#keyv.delete(key));
  }

  async claim(key: string, owner: string, ttlMs?: Ttl): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    if (ttl !== undefined && isKept(ttlMs)) {
      return this.#run("claim", async () => {
        const keys = [this.#key(key), this.#key(KEPT_INDEX_KEY)];
        const args = [await this.#encode(owner), String(Date.now() + ttl)];
        return (await this.#script(CLAIM_KEPT_SCRIPT, keys, args)) === 1;
      });
    }
    return this.#run("claim", async () => {
      const reply = await this.#client.set(this.#key(key), await this.#encode(owner), {
        condition: "NX",
        ...(ttl === undefined ? {} : { expiration: { type: "PX" as const, value: ttl } }),
      });
      return reply === "OK";
    });
  }

  async renew(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs) ?? 0;
    return this.#run("renew", async () => {
      const reply = await this.#script(
        RENEW_SCRIPT,
        [this.#key(key)],
        [await this.#encode(owner), String(ttl)],
      );
      return reply === 1;
    });
  }

  async extend(key: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs) ?? 0;
    return this.#run("extend", async () => (await this.#client.pExpire(this.#key(key), ttl)) === 1);
  }

  release(key: string, owner: string): Promise<boolean> {
    return this.#run("release", async () => {
      const reply = await this.#script(
        RELEASE_SCRIPT,
        [this.#key(key)],
        [await this.#encode(owner)],
      );
      return reply === 1;
    });
  }

  async addToSet(key: string, member: string, ttlMs?: Ttl): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    return this.#run("addToSet", async () => {
      if (ttl === undefined) return (await this.#client.sAdd(this.#key(key), member)) === 1;
      if (isKept(ttlMs)) {
        const [added] = await this.#client
          .multi()
          .sAdd(this.#key(key), member)
          .zAdd(this.#key(KEPT_INDEX_KEY), { score: Date.now() + ttl, value: this.#key(key) })
          .exec(true);
        return Number(added) === 1;
      }
      const [added] = await this.#client
        .multi()
        .sAdd(this.#key(key), member)
        .pExpire(this.#key(key), ttl)
        .exec();
      return Number(added) === 1;
    });
  }

  removeFromSet(key: string, member: string): Promise<boolean> {
    return this.#run(
      "removeFromSet",
      async () => (await this.#client.sRem(this.#key(key), member)) === 1,
    );
  }

  setMembers(key: string): Promise<string[]> {
    return this.#run("setMembers", () => this.#client.sMembers(this.#key(key)));
  }

  async putInMap<T>(key: string, field: string, value: T, ttlMs?: number): Promise<T | undefined> {
    const ttl = checkTtl(ttlMs) ?? 0;
    return this.#run("putInMap", async () => {
      const before = await this.#script(
        PUT_IN_MAP_SCRIPT,
        [this.#key(key)],
        [field, JSON.stringify(value), String(ttl)],
      );
      return typeof before === "string" ? (JSON.parse(before) as T) : undefined;
    });
  }

  updateMap(
    key: string,
    put: Readonly<Record<string, unknown>>,
    remove: readonly string[],
  ): Promise<void> {
    const fields = Object.entries(put).map(([field, value]) => [field, JSON.stringify(value)]);
    if (fields.length === 0 && remove.length === 0) return this.#run("updateMap", async () => {});
    return this.#run("updateMap", async () => {
      const pipeline = this.#client.multi();
      if (fields.length > 0) pipeline.hSet(this.#key(key), Object.fromEntries(fields));
      if (remove.length > 0) pipeline.hDel(this.#key(key), [...remove]);
      await pipeline.execAsPipeline();
    });
  }

  mapEntries<T>(key: string): Promise<Record<string, T>> {
    return this.#run("mapEntries", async () => {
      const raw = await this.#client.hGetAll(this.#key(key));
      return Object.fromEntries(
        Object.entries(raw).map(([field, value]) => [field, JSON.parse(value) as T]),
      );
    });
  }

  lineJoin(key: string, ticket: string): Promise<number> {
    return this.#run("lineJoin", () => this.#client.rPush(this.#key(key), ticket));
  }

  lineLeave(key: string, ticket: string, next: boolean): Promise<string | undefined> {
    return this.#run("lineLeave", async () => {
      if (!next) {
        await this.#client.lRem(this.#key(key), 1, ticket);
        return undefined;
      }
      // One round trip; no transaction: a head read a moment late only wakes a waiter that
      // then finds its own turn.
      const [, head] = await this.#client
        .multi()
        .lRem(this.#key(key), 1, ticket)
        .lIndex(this.#key(key), 0)
        .execAsPipeline();
      return typeof head === "string" ? head : undefined;
    });
  }

  lineHeads(keys: readonly string[]): Promise<(string | undefined)[]> {
    return this.#run("lineHeads", async () => {
      if (keys.length === 0) return [];
      const pipeline = this.#client.multi();
      for (const key of keys) pipeline.lIndex(this.#key(key), 0);
      const heads = await pipeline.execAsPipeline();
      return heads.map((head) => (typeof head === "string" ? head : undefined));
    });
  }

  lineReplace(key: string, ticket: string, by: string): Promise<boolean> {
    return this.#run(
      "lineReplace",
      async () =>
        (await this.#script(REDIS_LINE_REPLACE_SCRIPT, [this.#key(key)], [ticket, by])) === 1,
    );
  }

  drawToken(key: string, bucket: TokenBucket, options: DrawOptions = {}): Promise<Drawn> {
    return this.#run("drawToken", async () => {
      const reply = await this.#script(
        REDIS_DRAW_SCRIPT,
        [this.#key(key)],
        [
          String(bucket.intervalMs),
          String(bucket.burst),
          String(Math.ceil(options.holdMs ?? 0)),
          String(options.reserve ?? 0),
          String(options.ahead ?? 0),
        ],
      );
      const [waitMs, ahead] = Array.isArray(reply) ? reply : [reply, 0];
      return { waitMs: Number(waitMs), ahead: Number(ahead) };
    });
  }

  drawWindow(key: string, window: CallWindow, options: DrawOptions = {}): Promise<number> {
    return this.#run("drawWindow", async () => {
      const reply = await this.#script(
        REDIS_WINDOW_SCRIPT,
        [this.#key(key)],
        [
          String(window.limit),
          String(window.windowMs),
          String(window.burst),
          String(window.spacingMs),
          String(Math.ceil(options.holdMs ?? 0)),
          String(options.reserve ?? 0),
        ],
      );
      return Number(reply);
    });
  }

  streamAdd(
    key: string,
    value: unknown,
    maxWaiting: number,
    // Every process takes from the one stream: who added an entry does not matter here.
    _consumer: string,
  ): Promise<StreamAdd | undefined> {
    return this.#run("streamAdd", async () =>
      streamAddOf(
        await this.#script(
          REDIS_STREAM_ADD_SCRIPT,
          [this.#key(key)],
          [JSON.stringify(value), String(limitOf(maxWaiting))],
        ),
      ),
    );
  }

  streamTake(key: string, consumer: string, count: number): Promise<StreamEntry[]> {
    return this.#run("streamTake", async () =>
      streamEntriesOf(
        await this.#script(REDIS_STREAM_TAKE_SCRIPT, [this.#key(key)], [consumer, String(count)]),
      ),
    );
  }

  streamTakeOver(
    key: string,
    consumer: string,
    minIdleMs: number,
    count: number,
  ): Promise<{ entries: StreamEntry[]; quiet: boolean }> {
    return this.#run("streamTakeOver", async () => {
      // Nothing held and nothing waiting: one XINFO instead of the script's three commands,
      // on the rounds of a deployment whose queue is idle. A stream or group gone, or a lag
      // Redis cannot tell, goes to the script, which makes them again.
      const groups = await this.#client.xInfoGroups(this.#key(key)).catch(() => []);
      const ours = groups.find((group) => group.name === STREAM_GROUP);
      if (ours && ours.pending === 0 && ours.lag === 0) return { entries: [], quiet: true };
      const entries = streamEntriesOf(
        await this.#script(
          REDIS_STREAM_TAKE_OVER_SCRIPT,
          [this.#key(key)],
          [consumer, String(Math.ceil(minIdleMs)), String(count)],
        ),
      );
      return { entries, quiet: false };
    });
  }

  streamHold(key: string, consumer: string, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return this.#run("streamHold", async () => []);
    return this.#run("streamHold", async () => {
      const reply = await this.#script(
        REDIS_STREAM_HOLD_SCRIPT,
        [this.#key(key)],
        [consumer, ...ids],
      );
      return Array.isArray(reply) ? reply.map(String) : [];
    });
  }

  streamFinish(key: string, consumer: string, id: string): Promise<boolean> {
    return this.#run(
      "streamFinish",
      async () =>
        (await this.#script(REDIS_STREAM_FINISH_SCRIPT, [this.#key(key)], [consumer, id])) === 1,
    );
  }

  /** Entries wait in Redis for whichever process takes them next: none is abandoned. */
  async streamAbandon(): Promise<StreamEntry[]> {
    return [];
  }

  publish(topic: string, message: string): Promise<number> {
    return this.#run("publish", () => this.#client.publish(this.#key(topic), message));
  }

  async subscribe(topic: string, onMessage: (message: string) => void): Promise<() => void> {
    const channel = this.#key(topic);
    const subscriber = await this.#subscriberConnection();
    // Without the buffers flag both clients hand the message over as a string.
    const listener = (message: string | Buffer) => onMessage(String(message));
    await subscriber.subscribe(channel, listener);
    return () => void subscriber.unsubscribe(channel, listener).catch(() => undefined);
  }

  /**
   * The connection that listens (a subscribed connection can send nothing else), opened with
   * the first subscription. The client subscribes again by itself after a reconnect; through
   * Sentinel, the client keeps one of its own on whichever node is the primary.
   */
  #subscriberConnection(): Promise<RedisClient | SentinelClient> {
    if (!("duplicate" in this.#client)) return Promise.resolve(this.#client);
    const client = this.#client;
    this.#subscriber ??= (async () => {
      const subscriber = client.duplicate();
      // Its failures show as the main connection's: only kept from crashing the process.
      subscriber.on("error", () => undefined);
      await subscriber.connect();
      return subscriber;
    })().catch((error: unknown) => {
      this.#subscriber = undefined;
      throw error;
    });
    return this.#subscriber;
  }

  processesAlive(ids: readonly string[]): Promise<boolean[]> {
    return this.#run("processesAlive", async () => {
      if (ids.length === 0) return [];
      const presences = await this.#client.mGet(ids.map((id) => this.#key(presenceKey(id))));
      const alive = presences.map((presence) => presence !== null);
      if (alive.every(Boolean)) return alive;
      const connected = await this.#connectedProcesses();
      return alive.map((held, i) => held || (connected?.has(ids[i] ?? "") ?? false));
    });
  }

  /** The processes with a connection open now, by their names; undefined if Redis will not say. */
  async #connectedProcesses(): Promise<ReadonlySet<string> | undefined> {
    if (this.#listRefused) return undefined;
    try {
      const ids = new Set<string>();
      for (const { name } of await this.#client.clientList()) {
        if (name?.startsWith(CONNECTION_PREFIX)) ids.add(name.slice(CONNECTION_PREFIX.length));
      }
      return ids;
    } catch (error) {
      if (!/NOPERM|unknown command/i.test(messageOf(error))) throw error;
      this.#listRefused = true;
      this.#log?.warn(
        { reason: messageOf(error) },
        "Redis refuses CLIENT LIST: a process whose presence lapsed counts as dead, even one only cut off from Redis",
      );
      return undefined;
    }
  }

  streamWaiting(key: string): Promise<number> {
    return this.#run("streamWaiting", async () =>
      Number(await this.#script(REDIS_STREAM_WAITING_SCRIPT, [this.#key(key)], [])),
    );
  }

  streamPlaces(key: string): Promise<string[]> {
    return this.#run("streamPlaces", async () => {
      const reply = await this.#script(REDIS_STREAM_PLACES_SCRIPT, [this.#key(key)], []);
      return Array.isArray(reply) ? reply.map(String) : [];
    });
  }

  ping(): Promise<void> {
    return this.#run("ping", async () => {
      await this.#client.ping();
    });
  }

  /**
   * Deletes the kept records whose time is up now (the timer does it every `sweepIntervalMs`);
   * returns how many.
   */
  async sweep(): Promise<number> {
    const keys = [this.#key(KEPT_INDEX_KEY)];
    let deleted = 0;
    for (;;) {
      const args = [String(Date.now()), String(SWEEP_BATCH)];
      const swept = Number(
        await this.#run("sweep", () => this.#script(SWEEP_KEPT_SCRIPT, keys, args)),
      );
      deleted += swept;
      if (swept < SWEEP_BATCH) return deleted;
    }
  }

  close(): Promise<void> {
    clearInterval(this.#sweepTimer);
    return this.#guard.close(async () => {
      this.#state.closed = true;
      // Nothing of ours is in flight any more; destroy also stops the reconnect loop.
      if (this.#client.isOpen) this.#client.destroy();
      const subscriber = await this.#subscriber?.catch(() => undefined);
      if (subscriber?.isOpen) subscriber.destroy();
    });
  }

  #run<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    return this.#guard.run(operation, async () => {
      // The client would say "The client is offline"; failing here gives the reason instead.
      if (!this.#client.isReady) throw new Error("not connected");
      const result = await fn();
      // An answer ends an outage that no reconnect marked (a server that froze, then woke).
      this.#outage?.ended();
      return result;
    });
  }

  /**
   * Runs a script by its digest (EVALSHA), so the hot ones (a budget draw per platform call)
   * do not send their text each time; the text goes once, when Redis does not know it yet.
   */
  async #script(script: string, keys: string[], args: string[]): Promise<unknown> {
    const options = { keys, arguments: args };
    try {
      return await this.#client.evalSha(scriptDigest(script), options);
    } catch (error) {
      if (!messageOf(error).startsWith("NOSCRIPT")) throw error;
      return this.#client.eval(script, options);
    }
  }

  #key(key: string): string {
    return this.#adapter.createKeyPrefix(key, this.#adapter.namespace);
  }

  /** The owner as Keyv stores a value, so `get(key)` of a claim returns its owner. */
  /** A value as keyv writes it, for commands sent past keyv (claims, setMany). */
  async #encode(value: unknown): Promise<string> {
    const serialize = this.#keyv.serialize;
    return serialize ? await serialize({ value }) : JSON.stringify({ value });
  }

  #describe(target: string, timeoutMs: number, error: unknown): Error {
    if (!this.#client.isReady) {
      const last = this.#state.lastError;
      const reason = last ? `: ${messageOf(last)}` : "";
      this.#outage?.began(last ? messageOf(last) : "not connected");
      return new Error(`${target} is not connected (reconnecting)${reason}`, { cause: error });
    }
    // @redis/client's TimeoutError keeps the default name "Error"; its class name tells.
    if (error instanceof DeadlineError || error?.constructor?.name === "TimeoutError") {
      this.#outage?.began(`no answer within ${timeoutMs} ms`);
      return new Error(`${target} did not answer within ${timeoutMs} ms`, { cause: error });
    }
    return new Error(`${target}: ${messageOf(error)}`, { cause: error });
  }
}
