import type { StoreSentinel } from "../config.ts";
import { messageOf, StartupError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { openEmbeddedStore } from "./embedded-store.ts";
import type { Store } from "./types.ts";

export interface OpenStoreOptions {
  /** STORE_URL; when set the store is Redis, otherwise the embedded store under `dataDir`. */
  storeUrl?: string | undefined;
  /** STORE_SENTINELS and STORE_SENTINEL_NAME: Redis through Sentinel (STORE_URL optional). */
  storeSentinel?: StoreSentinel | undefined;
  /** DATA_DIR. */
  dataDir: string;
  /** Redis key prefix (default "chatbot-bridge"); the embedded store owns its folder and needs none. */
  namespace?: string | undefined;
  /** Where a Redis outage is logged, once when it starts and once when it ends. */
  log?: Logger | undefined;
  /** An embedded store only if DATA_DIR holds one already (see EmbeddedStoreOptions). */
  existing?: boolean | undefined;
  /**
   * The process's id (ProcessPresence): a Redis connection carries it in its name, so a
   * process only cut off from Redis is told from a dead one (Coordination.processesAlive).
   */
  processId?: string | undefined;
}

/**
 * Opens the store the configuration asks for. Rejects with StoreUnavailableError when it
 * cannot be opened: DATA_DIR in use by another process or not writable, a malformed
 * STORE_URL, or Redis refusing the password or database. An unreachable Redis opens
 * anyway and reconnects in the background (see openRedisStore).
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  if (options.storeUrl || options.storeSentinel) {
    // Redis's client is loaded only for a store on Redis: the embedded default starts without it.
    const { openRedisStore } = await import("./redis-store.ts");
    return openRedisStore({
      url: options.storeUrl,
      sentinel: options.storeSentinel,
      ...(options.namespace ? { namespace: options.namespace } : {}),
      log: options.log,
      processId: options.processId,
    });
  }
  return openEmbeddedStore({
    dataDir: options.dataDir,
    existing: options.existing,
    ...(options.processId ? { processId: options.processId } : {}),
  });
}

/**
 * openStore for the process's start: a store that cannot be opened is a setting to fix, so
 * it rejects with StartupError naming STORE_URL or DATA_DIR, its cause said once.
 */
export function openStoreAtStart(options: OpenStoreOptions): Promise<Store> {
  return openStore(options).catch((error: unknown) => {
    // StoreUnavailableError says "store open failed: <cause>"; the cause alone is the news.
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const reason = messageOf(cause);
    const variable = options.storeSentinel
      ? "STORE_SENTINELS"
      : options.storeUrl
        ? "STORE_URL"
        : "DATA_DIR";
    throw new StartupError(
      variable,
      // A reason that begins with a setting's name (STORE_SENTINEL_NAME: …) names it already.
      reason.includes(variable) || /^[A-Z_]+: /.test(reason) ? reason : `${variable}: ${reason}`,
      error,
    );
  });
}
