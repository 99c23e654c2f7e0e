import { createClient, createSentinel } from "@keyv/redis";
import type { SentinelNode, StoreSentinel } from "../config.ts";
import { messageOf, StoreUnavailableError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { OutageLog } from "./outage-log.ts";
import {
  type ConnectionState,
  dataSocket,
  isServerRefusal,
  PING_INTERVAL_MS,
} from "./redis-connection.ts";

/** What a Sentinel connection is opened with (as RedisConnectOptions, with the Sentinels). */
export interface SentinelConnectOptions {
  sentinel: StoreSentinel;
  /** STORE_URL, for its credentials and database only (its host is not used), or none. */
  url: string | undefined;
  timeoutMs: number;
  connectTimeoutMs: number;
  log?: Logger | undefined;
  name?: string | undefined;
}

export type SentinelClient = ReturnType<typeof createStoreSentinel>;

/**
 * Opens Redis through Sentinel (docs/deploy.md, "Redis that fails over"): the client asks the
 * Sentinels where the primary is, moves to the new one on a failover (told by their
 * `+switch-master`, or by a command that finds the old one gone or read-only), and subscribes
 * there again by itself. Before it starts, one Sentinel must answer and know the name, and
 * the primary must take the credentials: these are settings to fix, said at once in one line,
 * where the client would only retry them in the background. A primary that is down at start
 * (a failover under way) is an outage, retried like an unreachable STORE_URL.
 */
export async function connectSentinel(options: SentinelConnectOptions): Promise<{
  client: SentinelClient;
  state: ConnectionState;
  target: string;
  outage: OutageLog | undefined;
}> {
  const credentials = credentialsOf(options.url);
  const target = describeSentinels(options.sentinel, credentials.database);
  const primary = await askSentinels(options.sentinel, options.connectTimeoutMs);
  await checkPrimary(primary, credentials, options.connectTimeoutMs);
  const state: ConnectionState = { closed: false, lastError: undefined };
  const outage = options.log ? new OutageLog(options.log, target) : undefined;
  const client = createStoreSentinel(options, credentials, state);
  client.on("error", (error: unknown) => {
    state.lastError = error instanceof Error ? error : new Error(String(error));
    if (!state.closed) outage?.began(messageOf(state.lastError));
  });
  client.on("topology-change", (event: { type: string; node?: SentinelNode }) => {
    if (event.type !== "MASTER_CHANGE" || !event.node) return;
    state.lastError = undefined;
    options.log?.info(
      { store: target, primary: `${event.node.host}:${event.node.port}` },
      "the store's primary is at this address (Sentinel)",
    );
  });
  // Settles once a primary answers; meanwhile (a failover under way) commands fail as in an
  // outage. It never gives up: maxCommandRediscovers is unbounded.
  const connected = client.connect().then(
    () => true,
    () => false,
  );
  const timer = new Promise<false>((resolve) =>
    setTimeout(() => resolve(false), options.connectTimeoutMs).unref(),
  );
  // The Sentinels answered: a primary that does not is an outage, not a setting to check.
  if (!(await Promise.race([connected, timer]))) {
    outage?.began(messageOf(state.lastError ?? "no primary answers yet"));
  }
  return { client, state, target, outage };
}

function createStoreSentinel(
  options: SentinelConnectOptions,
  credentials: Credentials,
  state: ConnectionState,
) {
  return createSentinel({
    name: options.sentinel.name,
    sentinelRootNodes: options.sentinel.nodes,
    // Commands wait out a failover in the client's own loop, each bounded by the store's
    // deadline (OperationGuard): no count of rediscoveries makes it give up for good.
    maxCommandRediscovers: Number.MAX_SAFE_INTEGER,
    nodeClientOptions: {
      ...(options.name && { name: options.name }),
      ...(credentials.username && { username: credentials.username }),
      ...(credentials.password && { password: credentials.password }),
      database: credentials.database,
      disableOfflineQueue: true,
      commandOptions: { timeout: options.timeoutMs },
      pingInterval: PING_INTERVAL_MS,
      socket: dataSocket(options.connectTimeoutMs, state),
    },
    sentinelClientOptions: { socket: { connectTimeout: options.connectTimeoutMs } },
  });
}

interface Credentials {
  username: string | undefined;
  password: string | undefined;
  database: number;
}

function credentialsOf(url: string | undefined): Credentials {
  if (!url) return { username: undefined, password: undefined, database: 0 };
  const parsed = new URL(url);
  return {
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    database: parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0,
  };
}

/** "redis sentinel mymaster (10.0.0.5:26379, 10.0.0.6:26379)/3": never the credentials. */
function describeSentinels(sentinel: StoreSentinel, database: number): string {
  const nodes = sentinel.nodes.map((node) => `${node.host}:${node.port}`).join(", ");
  return `redis sentinel ${sentinel.name} (${nodes})${database > 0 ? `/${database}` : ""}`;
}

/**
 * The primary's address, from the first Sentinel that answers. Rejects when none answers
 * within `timeoutMs` each, or when they know no primary by the name.
 */
async function askSentinels(sentinel: StoreSentinel, timeoutMs: number): Promise<SentinelNode> {
  const reasons: string[] = [];
  for (const node of sentinel.nodes) {
    const client = createClient({
      socket: {
        host: node.host,
        port: node.port,
        connectTimeout: timeoutMs,
        reconnectStrategy: false,
      },
    });
    client.on("error", () => undefined);
    try {
      await withDeadline(client.connect(), timeoutMs);
      const reply = await withDeadline(
        client.sendCommand(["SENTINEL", "GET-MASTER-ADDR-BY-NAME", sentinel.name]),
        timeoutMs,
      );
      if (!Array.isArray(reply)) {
        throw new StoreUnavailableError(
          "open",
          new Error(
            `STORE_SENTINEL_NAME: the Sentinel at ${node.host}:${node.port} watches no primary named "${sentinel.name}"`,
          ),
        );
      }
      return { host: String(reply[0]), port: Number(reply[1]) };
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
      reasons.push(`${node.host}:${node.port}: ${messageOf(error)}`);
    } finally {
      if (client.isOpen) client.destroy();
    }
  }
  throw new StoreUnavailableError(
    "open",
    new Error(`STORE_SENTINELS: no Sentinel answers (${reasons.join("; ")})`),
  );
}

/** Rejects when the primary refuses the credentials or the database; a primary away is fine. */
async function checkPrimary(
  primary: SentinelNode,
  credentials: Credentials,
  timeoutMs: number,
): Promise<void> {
  const client = createClient({
    ...(credentials.username && { username: credentials.username }),
    ...(credentials.password && { password: credentials.password }),
    database: credentials.database,
    socket: { ...primary, connectTimeout: timeoutMs, reconnectStrategy: false },
  });
  let refusal: Error | undefined;
  client.on("error", (error: unknown) => {
    if (isServerRefusal(error)) refusal = error as Error;
  });
  try {
    await withDeadline(client.connect(), timeoutMs);
    await withDeadline(client.ping(), timeoutMs);
  } catch (error) {
    const reason = refusal ?? error;
    if (isServerRefusal(reason)) {
      throw new StoreUnavailableError(
        "open",
        new Error(
          `the primary at ${primary.host}:${primary.port} refused the connection: ${messageOf(reason)}`,
        ),
      );
    }
  } finally {
    if (client.isOpen) client.destroy();
  }
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
