import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { accessSync, constants } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createConnection, createServer, type Socket } from "node:net";
import { delimiter, join } from "node:path";
import { createClient } from "@keyv/redis";
import { PRESENCE_KEY_PREFIX } from "../../src/coordination/process-presence.ts";
import { DEFAULT_NAMESPACE } from "../../src/store/redis-store.ts";

/** A Redis for one test file: its own redis-server when the binary exists, else 127.0.0.1:6379. */
export interface TestRedis {
  url: string;
  /**
   * A key prefix unique to this run: the shared Redis may hold other people's keys. Use it,
   * or namespaces that start with it: close() deletes every key starting with it.
   */
  namespace: string;
  /** The spawned server (stop it, restart it); undefined when using the shared 127.0.0.1:6379. */
  server: RedisServer | undefined;
  /** Stops the spawned server, or deletes this run's keys from the shared one. */
  close(): Promise<void>;
}

export interface RedisServer {
  port: number;
  /** `redis://[:password@]127.0.0.1:<port>` */
  url: string;
  /** Kills the server (SIGKILL): clients see their connection drop, as in a crash. */
  stop(): Promise<void>;
  /** Starts it again on the same port and waits until it answers. Data is gone (no persistence). */
  start(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and nothing answers. */
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

const SHARED_URL = "redis://127.0.0.1:6379";
const children = new Set<ChildProcess>();
// A crashed test run must not leave redis-servers behind.
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/** Whether `redis-server` is on PATH. */
export function hasRedisServerBinary(): boolean {
  return (process.env.PATH ?? "").split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, "redis-server"), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * A Redis for tests, or undefined (after printing one line saying why) when none can be had,
 * so the calling suite can `describe.skipIf(!redis)`.
 */
export async function startTestRedis(suite: string): Promise<TestRedis | undefined> {
  const namespace = `test-${process.pid}-${randomUUID().slice(0, 8)}`;
  if (hasRedisServerBinary()) {
    const server = await spawnRedisServer();
    return { url: server.url, namespace, server, close: () => server.close() };
  }
  if (await answersPing(6379)) {
    return {
      url: SHARED_URL,
      namespace,
      server: undefined,
      close: () => deleteKeys(SHARED_URL, `${namespace}*`),
    };
  }
  const why = "no redis-server on PATH and no Redis answering at 127.0.0.1:6379";
  // .ci/run makes sure Redis is there; in CI a missing Redis is a failure, not a skip.
  if (process.env.REQUIRE_REDIS === "1") throw new Error(`[${suite}] REQUIRE_REDIS=1 but ${why}`);
  console.warn(`[${suite}] skipped: ${why}`);
  return undefined;
}

/**
 * Starts `redis-server` on a free port (or `port`), without persistence, and waits for PING.
 * `args`: more options for it (`--maxmemory 4mb`).
 */
export async function spawnRedisServer(
  options: { port?: number; password?: string; args?: readonly string[] } = {},
): Promise<RedisServer> {
  let port = options.port ?? (await freePort());
  let child: ChildProcess | undefined;
  const credentials = options.password ? `:${encodeURIComponent(options.password)}@` : "";
  const launch = async () => {
    for (let attempt = 0; ; attempt++) {
      try {
        child = await launchRedisServer(port, options.password, options.args);
        return;
      } catch (error) {
        // Another process took the free port between our probe and redis' bind: pick again.
        if (options.port !== undefined || attempt >= 3) throw error;
        port = await freePort();
      }
    }
  };
  await launch();
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };
  return {
    get port() {
      return port;
    },
    get url() {
      return `redis://${credentials}127.0.0.1:${port}`;
    },
    stop: kill,
    start: async () => {
      if (child) throw new Error("redis-server is already running");
      // The same port, which the bot's STORE_URL names: freePort keeps it out of the range
      // the system gives connections meanwhile.
      child = await launchRedisServer(port, options.password, options.args);
    },
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
    close: kill,
  };
}

async function launchRedisServer(
  port: number,
  password: string | undefined,
  extra: readonly string[] = [],
  /** A configuration file to start from (a Sentinel's: it must have one to write to). */
  configFile?: string,
): Promise<ChildProcess> {
  const args = [
    ...(configFile ? [configFile, "--sentinel"] : ["--save", "", "--appendonly", "no"]),
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
  ];
  if (password) args.push("--requirepass", password);
  args.push(...extra);
  const child = spawn("redis-server", args, { stdio: ["ignore", "ignore", "pipe"] });
  children.add(child);
  child.once("exit", () => children.delete(child));
  child.stderr?.resume();
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    if (await answersPing(port)) return child;
    await sleep(20);
  }
  child.kill("SIGKILL");
  throw new Error(`redis-server on port ${port} did not answer within 5 s`);
}

/** A primary, its replica and one Sentinel watching them, on loopback (spawnSentinelSet). */
export interface SentinelSet {
  /** The name the Sentinel monitors the primary by. */
  name: string;
  primary: RedisServer;
  replica: RedisServer;
  sentinelPort: number;
  /** STORE_SENTINELS and STORE_SENTINEL_NAME for a bot. */
  env: Record<string, string>;
  /** Where the Sentinel says the primary is now. */
  primaryPort(): Promise<number | undefined>;
  close(): Promise<void>;
}

/**
 * Starts a primary, a replica of it and a Sentinel (quorum 1) that takes a primary for down
 * after `downAfterMs` and then promotes the replica; resolves once the replica is in sync and
 * the Sentinel knows it, so that killing the primary fails over.
 */
export async function spawnSentinelSet(dir: string, downAfterMs = 500): Promise<SentinelSet> {
  const name = "bridge-primary";
  const primary = await spawnRedisServer();
  const replica = await spawnRedisServer({
    args: ["--replicaof", "127.0.0.1", String(primary.port)],
  });
  const sentinelPort = await freePort();
  const configFile = join(dir, "sentinel.conf");
  await writeFile(
    configFile,
    [
      `sentinel monitor ${name} 127.0.0.1 ${primary.port} 1`,
      `sentinel down-after-milliseconds ${name} ${downAfterMs}`,
      `sentinel failover-timeout ${name} 2000`,
      "",
    ].join("\n"),
  );
  const sentinel = await launchRedisServer(sentinelPort, undefined, [], configFile);
  const ask = async (port: number, command: string[]) => {
    const client = createClient({ socket: { port, host: "127.0.0.1", reconnectStrategy: false } });
    client.on("error", () => undefined);
    try {
      await client.connect();
      return await client.sendCommand(command);
    } catch {
      return undefined;
    } finally {
      if (client.isOpen) client.destroy();
    }
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    const replication = String(await ask(replica.port, ["INFO", "replication"]));
    const known = await ask(sentinelPort, ["SENTINEL", "REPLICAS", name]);
    if (replication.includes("master_link_status:up") && Array.isArray(known) && known.length > 0) {
      break;
    }
    if (Date.now() > deadline)
      throw new Error("the replica or the Sentinel did not come up in 15 s");
    await sleep(50);
  }
  const exited = new Promise((resolve) => sentinel.once("exit", resolve));
  return {
    name,
    primary,
    replica,
    sentinelPort,
    env: { STORE_SENTINELS: `127.0.0.1:${sentinelPort}`, STORE_SENTINEL_NAME: name },
    primaryPort: async () => {
      const reply = await ask(sentinelPort, ["SENTINEL", "GET-MASTER-ADDR-BY-NAME", name]);
      return Array.isArray(reply) ? Number(reply[1]) : undefined;
    },
    close: async () => {
      if (sentinel.exitCode === null && sentinel.signalCode === null) {
        sentinel.kill("SIGKILL");
        await exited;
      }
      await Promise.all([primary.close(), replica.close()]);
    },
  };
}

/** A TCP server on 127.0.0.1 that accepts connections and never sends a byte. */
export async function startBlackHole(): Promise<{
  port: number;
  url: string;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A network between bots and Redis that a test cuts or partitions (startRedisLink). */
export interface RedisLink {
  url: string;
  cut(): void;
  partition(): void;
  mend(): void;
  close(): Promise<void>;
}

/**
 * A TCP link to the Redis on `port`, as a network between the bots and Redis.
 *
 * - `cut()` drops every connection and refuses new ones until `mend()`: both ends see the
 *   connection go, as when a proxy or the bot's own host resets it.
 * - `partition()` is a network that stops carrying anything until `mend()`: no byte and no
 *   close gets through, so each end keeps its connection open (Redis learns of a dead peer only
 *   from TCP keepalive, minutes later). What was sent waits, as TCP's retransmission keeps it,
 *   and arrives at `mend()`; so does a close. A connection opened meanwhile reaches Redis then.
 *
 * Either way Redis's own clock runs on (leases lapse), unlike a frozen server.
 */
export async function startRedisLink(port: number): Promise<RedisLink> {
  const sockets = new Set<Socket>();
  let state: "open" | "cut" | "partitioned" = "open";
  /** Client sockets with their Redis end once connected; both wait during a partition. */
  const pairs = new Map<Socket, Socket | undefined>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  };
  const join = (client: Socket) => {
    const upstream = createConnection({ host: "127.0.0.1", port });
    track(upstream);
    pairs.set(client, upstream);
    client.pipe(upstream).pipe(client);
    // A close crosses the link only while it carries: during a partition it waits for mend().
    client.on("close", () => {
      if (state === "partitioned") return;
      upstream.destroy();
      pairs.delete(client);
    });
    upstream.on("close", () => {
      if (state !== "partitioned") client.destroy();
    });
  };
  const server = createServer((client) => {
    track(client);
    if (state === "cut") return void client.destroy();
    if (state === "partitioned") {
      client.pause();
      pairs.set(client, undefined);
      return;
    }
    join(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const linkPort = typeof address === "object" && address ? address.port : 0;
  return {
    url: `redis://127.0.0.1:${linkPort}`,
    cut: () => {
      state = "cut";
      for (const socket of sockets) socket.destroy();
      pairs.clear();
    },
    partition: () => {
      state = "partitioned";
      for (const [client, upstream] of pairs) {
        if (!upstream) continue;
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    mend: () => {
      const was = state;
      state = "open";
      if (was !== "partitioned") return;
      for (const [client, upstream] of [...pairs]) {
        if (client.destroyed || upstream?.destroyed) {
          client.destroy();
          upstream?.destroy();
          pairs.delete(client);
        } else if (!upstream) {
          join(client);
          client.resume();
        } else {
          client.pipe(upstream).pipe(client);
        }
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A port nothing listens on now, for a server a test starts (or restarts) there later, or
 * for a connection that must be refused. Below the system's range of ports for outgoing
 * connections (32768 and up on Linux): a port from that range may be given meanwhile to a
 * connection as its own end, even to one that connects to the port itself while nothing
 * listens there (TCP's self-connect), and the server could then not listen on it.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
  throw new Error("no free port below 32000 after 50 tries");
}

function canListen(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** True when something on 127.0.0.1:`port` answers a RESP PING (or asks for a password). */
export function answersPing(port: number, timeoutMs = 300): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once("error", () => finish(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => finish(/^(\+PONG|-NOAUTH)/.test(data.toString())));
  });
}

/** Deletes the keys matching `pattern` (SCAN + UNLINK), never the whole database. */
export function deleteKeys(url: string, pattern: string): Promise<void> {
  return eachKeys(url, pattern, async (keys, client) => {
    await client.unlink(keys);
  });
}

/** How many keys match `pattern` (SCAN) in the database of `url`. */
export async function countKeys(url: string, pattern: string): Promise<number> {
  let count = 0;
  await eachKeys(url, pattern, async (keys) => {
    count += keys.length;
  });
  return count;
}

/**
 * The processes whose presence (src/coordination/process-presence.ts) holds in the database of
 * `url`, as bots with the default key prefix keep it: their lease lapses TAKEOVER_MS after its
 * last renewal, on Redis's clock.
 */
export function presencesHeld(url: string): Promise<number> {
  return countKeys(url, `${DEFAULT_NAMESPACE}:${PRESENCE_KEY_PREFIX}*`);
}

async function eachKeys(
  url: string,
  pattern: string,
  each: (keys: string[], client: { unlink(keys: string[]): Promise<unknown> }) => Promise<void>,
): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: pattern, COUNT: 500 })) {
      if (keys.length > 0) await each(keys, client);
    }
  } finally {
    client.destroy();
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
