export { EmbeddedStore, type EmbeddedStoreOptions, openEmbeddedStore } from "./embedded-store.ts";
export { type OpenStoreOptions, openStore } from "./open-store.ts";
export {
  DEFAULT_NAMESPACE,
  openRedisStore,
  RedisStore,
  type RedisStoreOptions,
} from "./redis-store.ts";
export type { KeyValueStore, Store } from "./types.ts";
