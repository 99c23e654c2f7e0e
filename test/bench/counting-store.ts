import type { CallWindow } from "../../src/coordination/call-window.ts";
import type { TakenTicket, TicketHold, TicketStatus } from "../../src/coordination/ticket-line.ts";
import type { DrawOptions, TokenBucket } from "../../src/coordination/token-bucket.ts";
import type { StreamAdd, StreamEntry } from "../../src/coordination/work-stream.ts";
import type { Store, StoreEntry } from "../../src/store/types.ts";

type Operation = Exclude<keyof Store, "sharedAcrossProcesses">;

/**
 * A store (both ports) that counts calls, each one store round trip (every method of both
 * stores is one command on Redis: getMany is MGET, setMany a pipeline of SETs, claim SET NX PX, renew and release
 * one script each, drawToken, drawWindow and each ticket and work-stream operation one script, the set operations
 * SADD, SREM and SMEMBERS).
 */
export class CountingStore implements Store {
  readonly #inner: Store;
  readonly counts = new Map<Operation, number>();

  constructor(inner: Store) {
    this.#inner = inner;
  }

  get sharedAcrossProcesses(): boolean {
    return this.#inner.sharedAcrossProcesses;
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

  setMany(entries: readonly StoreEntry[]): Promise<void> {
    this.#count("setMany");
    return this.#inner.setMany(entries);
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

  addToSet(key: string, member: string, ttlMs?: number): Promise<boolean> {
    this.#count("addToSet");
    return this.#inner.addToSet(key, member, ttlMs);
  }

  removeFromSet(key: string, member: string): Promise<boolean> {
    this.#count("removeFromSet");
    return this.#inner.removeFromSet(key, member);
  }

  setMembers(key: string): Promise<string[]> {
    this.#count("setMembers");
    return this.#inner.setMembers(key);
  }

  putInMap<T>(key: string, field: string, value: T, ttlMs?: number): Promise<T | undefined> {
    this.#count("putInMap");
    return this.#inner.putInMap(key, field, value, ttlMs);
  }

  mapEntries<T>(key: string): Promise<Record<string, T>> {
    this.#count("mapEntries");
    return this.#inner.mapEntries(key);
  }

  takeTicket(key: string, owner: string, hold: TicketHold): Promise<TakenTicket> {
    this.#count("takeTicket");
    return this.#inner.takeTicket(key, owner, hold);
  }

  checkTicket(
    key: string,
    ticket: number,
    owner: string,
    hold?: TicketHold,
  ): Promise<TicketStatus> {
    this.#count("checkTicket");
    return this.#inner.checkTicket(key, ticket, owner, hold);
  }

  giveBackTicket(key: string, ticket: number, owner: string): Promise<void> {
    this.#count("giveBackTicket");
    return this.#inner.giveBackTicket(key, ticket, owner);
  }

  drawToken(key: string, bucket: TokenBucket, options?: DrawOptions): Promise<number> {
    this.#count("drawToken");
    return this.#inner.drawToken(key, bucket, options);
  }

  drawWindow(key: string, window: CallWindow, options?: DrawOptions): Promise<number> {
    this.#count("drawWindow");
    return this.#inner.drawWindow(key, window, options);
  }

  streamAdd(key: string, value: unknown, maxWaiting: number): Promise<StreamAdd | undefined> {
    this.#count("streamAdd");
    return this.#inner.streamAdd(key, value, maxWaiting);
  }

  streamTake(key: string, consumer: string, count: number): Promise<StreamEntry[]> {
    this.#count("streamTake");
    return this.#inner.streamTake(key, consumer, count);
  }

  streamTakeOver(
    key: string,
    consumer: string,
    minIdleMs: number,
    count: number,
  ): Promise<StreamEntry[]> {
    this.#count("streamTakeOver");
    return this.#inner.streamTakeOver(key, consumer, minIdleMs, count);
  }

  streamHold(key: string, consumer: string, ids: readonly string[]): Promise<string[]> {
    this.#count("streamHold");
    return this.#inner.streamHold(key, consumer, ids);
  }

  streamFinish(key: string, consumer: string, id: string): Promise<boolean> {
    this.#count("streamFinish");
    return this.#inner.streamFinish(key, consumer, id);
  }

  /** Not a round trip: a subscription. */
  streamWatch(key: string, onAdd: () => void): () => void {
    return this.#inner.streamWatch(key, onAdd);
  }

  streamWaiting(key: string): Promise<number> {
    this.#count("streamWaiting");
    return this.#inner.streamWaiting(key);
  }

  streamPlaces(key: string): Promise<string[]> {
    this.#count("streamPlaces");
    return this.#inner.streamPlaces(key);
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
