import { connect } from "node:net";
import { createClient } from "@keyv/redis";
import { messageOf, StoreUnavailableError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { OutageLog } from "./outage-log.ts";

export interface RedisConnectOptions {
  url: string;
  /** Bounds the wait for a command to be written, and for the first connection. */
  timeoutMs: number;
  connectTimeoutMs: number;
  /** Where an outage is logged, once when it starts and once when it ends; none without it. */
  log?: Logger | undefined;
  /** The connection's name (CLIENT SETNAME), set again on every reconnect. */
  name?: string | undefined;
}

/** What the store and the client's callbacks share about the connection. */
export interface ConnectionState {
  closed: boolean;
  lastError: Error | undefined;
}

export type RedisClient = ReturnType<typeof createRedisClient>;

export const PING_INTERVAL_MS = 5_000;

/**
 * Creates the client and waits up to `connectTimeoutMs` for a first connection that
 * answers. Rejects with StoreUnavailableError for a malformed URL, when Redis refuses the
 * credentials or the database number, or for a rediss:// URL to a Redis without TLS; an
 * unreachable Redis is not an error here, since the client keeps reconnecting in the
 * background.
 */
export async function connectRedis(options: RedisConnectOptions): Promise<{
  client: RedisClient;
  state: ConnectionState;
  target: string;
  outage: OutageLog | undefined;
}> {
  const target = describeTarget(options.url);
  const state: ConnectionState = { closed: false, lastError: undefined };
  const client = createRedisClient(options, state);
  const outage = options.log ? new OutageLog(options.log, target) : undefined;
  // Until the first connection is settled, a refusal is a start-up failure, not an outage.
  let started = false;
  client.on("error", (error: unknown) => {
    state.lastError = error instanceof Error ? error : new Error(String(error));
    // The client reports every failed reconnect too: the outage log keeps to its first.
    if (started && !state.closed) outage?.began(messageOf(state.lastError));
  });
  client.on("ready", () => {
    state.lastError = undefined;
    outage?.ended();
  });

  const giveUp = (reason: Error): never => {
    state.closed = true;
    if (client.isOpen) client.destroy();
    throw new StoreUnavailableError("open", reason);
  };
  const refusal = await firstConnection(client, options.connectTimeoutMs, () => state.lastError);
  if (refusal) {
    giveUp(new Error(`${target} refused the connection: ${refusal.message}`, { cause: refusal }));
  }
  const url = new URL(options.url);
  if (
    !client.isReady &&
    url.protocol === "rediss:" &&
    (await answersPlainRedis(url, options.connectTimeoutMs))
  ) {
    giveUp(new Error(`${target} does not speak TLS: use redis:// in STORE_URL`));
  }
  started = true;
  if (!client.isReady) outage?.began(messageOf(state.lastError ?? "not connected yet"), true);
  return { client, state, target, outage };
}

function createRedisClient(
  { url, timeoutMs, connectTimeoutMs, name }: RedisConnectOptions,
  state: ConnectionState,
) {
  try {
    return createClient({
      url,
      ...(name && { name }),
      // Fail commands at once while disconnected instead of queueing them for later.
      disableOfflineQueue: true,
      // CommandOptions.timeout only bounds the wait *before* a command is written (the queue
      // drops the timer once it is sent: commands-queue.js, #removeTimeoutListener), so the
      // OperationGuard deadline is what bounds the wait for the reply.
      commandOptions: { timeout: timeoutMs },
      // A PING every few seconds keeps a healthy idle socket receiving, so socketTimeout (no
      // byte received for three pings' time) fires only on a dead or frozen peer, and the
      // reconnect strategy then opens a fresh connection. Not every second: each PING wakes an
      // idle bot three times (the timer, the write, the command's own timeout), which was a
      // good part of what it cost doing nothing. A command meanwhile fails within its own
      // timeout (OperationGuard) all the same.
      pingInterval: PING_INTERVAL_MS,
      socket: dataSocket(connectTimeoutMs, state),
    });
  } catch (error) {
    // e.g. "Invalid pathname" for a database that is not a number; the message holds no URL.
    throw new StoreUnavailableError("open", new Error(`STORE_URL rejected: ${messageOf(error)}`));
  }
}

/**
 * The socket settings of a connection that carries the store's commands: socketTimeout (no
 * byte received for three pings' time) fires only on a dead or frozen peer, and the client
 * keeps retrying in the background, whatever the cause, until close().
 */
export function dataSocket(connectTimeoutMs: number, state: ConnectionState) {
  return {
    connectTimeout: connectTimeoutMs,
    socketTimeout: 3 * PING_INTERVAL_MS,
    reconnectStrategy: (retries: number) =>
      state.closed ? false : Math.min(50 * 2 ** retries, 1_000) + Math.random() * 100,
  };
}

/**
 * Resolves undefined once connected and answering, or after `timeoutMs`; resolves with the
 * server's error reply when Redis refused us (wrong password, bad database), which no
 * retry fixes.
 */
async function firstConnection(
  client: RedisClient,
  timeoutMs: number,
  lastError: () => Error | undefined,
): Promise<Error | undefined> {
  const started = Date.now();
  const outcome = await new Promise<"ready" | Error | undefined>((resolve) => {
    const done = (result: "ready" | Error | undefined) => {
      clearTimeout(timer);
      client.off("ready", onReady);
      client.off("error", onError);
      resolve(result);
    };
    const onReady = () => done("ready");
    const onError = (error: unknown) => {
      if (isServerRefusal(error)) done(error as Error);
    };
    const timer = setTimeout(() => {
      const last = lastError();
      done(isServerRefusal(last) ? last : undefined);
    }, timeoutMs);
    client.on("ready", onReady);
    client.on("error", onError);
    // connect() settles only once ready (it retries meanwhile); we wait on the events instead.
    client.connect().catch(() => undefined);
  });
  if (outcome !== "ready") return outcome;
  // A Redis with a password still lets a client without one finish the handshake (the
  // client ignores its failed CLIENT SETINFO by design), so ask once to find out.
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(timeoutMs - (Date.now() - started), 100));
  });
  try {
    await Promise.race([client.ping(), deadline]);
    return undefined;
  } catch (error) {
    return isServerRefusal(error) ? (error as Error) : undefined;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether a Redis without TLS answers at the URL's host and port. A rediss:// URL to one never
 * finishes its handshake (the server takes the TLS hello for an inline command still being
 * typed, and waits for its end), so the first connection only times out, as for a server that
 * is down. One PING in plain text tells them apart: a plain Redis replies `+PONG` (or
 * `-NOAUTH …`), a TLS server with an alert or by closing.
 * https://redis.io/docs/latest/develop/reference/protocol-spec/#inline-commands
 */
function answersPlainRedis(url: URL, timeoutMs: number): Promise<boolean> {
  // An IPv6 host is written in brackets in a URL, without them in a connect.
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const socket = connect({ host, port: Number(url.port || 6379) });
  return new Promise<boolean>((resolve) => {
    const done = (plain: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(plain);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data: Buffer) => done(/^[+-]/.test(data.toString("latin1"))));
    socket.once("error", () => done(false));
    socket.once("close", () => done(false));
  });
}

// Redis error replies start with an upper-case code (WRONGPASS, NOAUTH, ERR …); the
// client's own errors ("Connection timeout", "connect ECONNREFUSED …") do not.
export function isServerRefusal(error: unknown): boolean {
  return error instanceof Error && /^[A-Z]{3,}\b/.test(error.message);
}

/** "redis 10.0.0.5:6379/3": where the store is, never the credentials. */
function describeTarget(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Node's URL error carries the input, password included: drop it.
    throw new StoreUnavailableError("open", new Error("STORE_URL is not a valid URL"));
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new StoreUnavailableError(
      "open",
      new Error("STORE_URL must start with redis:// or rediss://"),
    );
  }
  const database = parsed.pathname.length > 1 ? parsed.pathname : "";
  const tls = parsed.protocol === "rediss:" ? " (TLS)" : "";
  return `redis ${parsed.hostname}:${parsed.port || "6379"}${database}${tls}`;
}
