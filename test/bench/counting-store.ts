import type { CallWindow, WindowDraw } from "../../src/store/call-window.ts";
import type { TokenBucket } from "../../src/store/token-bucket.ts";
import type { KeyValueStore } from "../../src/store/types.ts";

type Operation = Exclude<keyof KeyValueStore, "kind">;

/**
 * A KeyValueStore that counts calls, each one store round trip (every method of both
 * stores is one command on Redis: getMany is MGET, claim SET NX PX, renew and release
 * one script each, drawToken and drawWindow one script each).
 */
export class CountingStore implements KeyValueStore {
  readonly #inner: KeyValueStore;
  readonly counts = new Map<Operation, number>();

  constructor(inner: KeyValueStore) {
    this.#inner = inner;
  }

  get kind(): KeyValueStore["kind"] {
    return this.#inner.kind;
  }

  /** Calls so far, ping and close left out (they serve /healthz and shutdown). */
  get roundTrips(): number {
    let total = 0;
    for (const [operation, count] of this.counts) {
      if (operation !== "ping" && operation !== "close") total += count;
    }
    return total;
  }

  reset(): void {
    this.counts.clear();
  }

  get<T>(key: string): Promise<T | undefined> {
    this.#count("get");
    return this.#inner.get<T>(key);
  }

  getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]> {
    this.#count("getMany");
    return this.#inner.getMany<T>(keys);
  }

  set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
    this.#count("set");
    return this.#inner.set(key, value, ttlMs);
  }

  delete(key: string): Promise<boolean> {
    this.#count("delete");
    return this.#inner.delete(key);
  }

  claim(key: string, owner: string, ttlMs?: number): Promise<boolean> {
    this.#count("claim");
    return this.#inner.claim(key, owner, ttlMs);
  }

  renew(key: string, owner: string, ttlMs: number): Promise<boolean> {
    this.#count("renew");
    return this.#inner.renew(key, owner, ttlMs);
  }

  release(key: string, owner: string): Promise<boolean> {
    this.#count("release");
    return this.#inner.release(key, owner);
  }

  drawToken(key: string, bucket: TokenBucket, holdMs?: number): Promise<number> {
    this.#count("drawToken");
    return this.#inner.drawToken(key, bucket, holdMs);
  }

  drawWindow(key: string, window: CallWindow, options?: WindowDraw): Promise<number> {
    this.#count("drawWindow");
    return this.#inner.drawWindow(key, window, options);
  }

  ping(): Promise<void> {
    this.#count("ping");
    return this.#inner.ping();
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  #count(operation: Operation): void {
    this.counts.set(operation, (this.counts.get(operation) ?? 0) + 1);
  }
}
