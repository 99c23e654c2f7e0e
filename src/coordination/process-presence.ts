import { randomUUID } from "node:crypto";
import { DEFAULTS } from "../config.ts";
import { storeFailureLevel } from "../errors.ts";
import type { Logger } from "../log.ts";
import { Lease } from "./lease.ts";
import type { Coordination } from "./port.ts";

/**
 * What the presence needs of a store: the coordination port, and one read of many values
 * (a part of the key-value port, src/store/types.ts, declared here because src/store/ imports
 * this folder, never the other way round).
 */
export interface PresenceStore extends Coordination {
  getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]>;
}

export interface ProcessPresenceOptions {
  store: PresenceStore;
  log: Logger;
  /** TAKEOVER_MS: how long the presence of a process that died still holds. */
  leaseMs?: number | undefined;
  /** The process's id (default: a fresh UUID); tests name their processes. */
  id?: string | undefined;
}

/** The key of process `id`'s presence; ticket-line.ts's scripts build it from this prefix. */
export const PRESENCE_KEY_PREFIX = "process:";
export const presenceKey = (id: string): string => `${PRESENCE_KEY_PREFIX}${id}`;

/**
 * A process's one identity and its one sign of life (docs/architecture.md, "One process, one
 * presence"): an id made once per process, and a lease `process:<id>` kept renewed for the
 * process's whole life (on the shared renewal beat) and released when it closes. Everything the
 * process holds in the store names this id: its places in thread lines, its journal run, its
 * leadership. A process is dead once its lease is gone and nothing of it is connected to the
 * store any more (Coordination.processesAlive): one only cut off from the store keeps what it
 * holds. The same on both stores; the embedded store knows that its one process is the only
 * one alive.
 */
export class ProcessPresence {
  readonly id: string;
  readonly leaseMs: number;
  readonly #store: PresenceStore;
  readonly #log: Logger;
  readonly #lease: Lease;
  readonly #lost = new Set<() => void | Promise<void>>();
  #joined: Promise<void> | undefined;
  #generation = 0;
  /** The last renewal failed in a store outage, which the store logged itself. */
  #outage = false;
  #closed = false;

  constructor(options: ProcessPresenceOptions) {
    this.id = options.id ?? randomUUID();
    // A ticket line's fields are "<lease end>|<process>|<owner>": the id must not split them.
    if (this.id.includes("|")) throw new RangeError(`a process id has no "|": ${this.id}`);
    this.leaseMs = options.leaseMs ?? DEFAULTS.takeoverMs;
    this.#store = options.store;
    this.#log = options.log;
    this.#lease = new Lease({
      store: options.store,
      key: presenceKey(this.id),
      owner: this.id,
      leaseMs: this.leaseMs,
      // The key names this process: no other ever takes it.
      ownKey: true,
    });
  }

  /**
   * Takes the lease and keeps it renewed from now on; resolves at once once taken. A failure
   * (the store away) rejects, and the next call tries again: whoever needs the presence joins
   * it first, so a start during an outage does not leave the process without one.
   */
  join(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#joined ??= this.#take().catch((error: unknown) => {
      this.#joined = undefined;
      throw error;
    });
    return this.#joined;
  }

  /**
   * Counts the times the lease was taken: a holder that saw it change knows the presence
   * lapsed meanwhile, so what it held may have been taken over.
   */
  get generation(): number {
    return this.#generation;
  }

  /** How long the presence holds at least, as its last renewal left it. */
  remainingMs(): number {
    return this.#lease.remainingMs();
  }

  /**
   * Its last renewal failed in a store outage, which the store logged itself: what holds by
   * the presence may expect to lose it, and need not say so louder.
   */
  get inOutage(): boolean {
    return this.#outage;
  }

  /**
   * Calls `listener` each time a renewal found the presence lapsed (the store was away for a
   * whole lease) and it was taken again: other processes may have taken this one for dead
   * meanwhile. Returns the way to stop listening.
   */
  onLost(listener: () => void | Promise<void>): () => void {
    this.#lost.add(listener);
    return () => this.#lost.delete(listener);
  }

  /**
   * Whether each of the processes `ids` is alive (Coordination.processesAlive): this one always
   * is; the others in one store step for all of them.
   */
  async alive(ids: readonly string[]): Promise<boolean[]> {
    const others = ids.filter((id) => id !== this.id);
    const answers = others.length > 0 ? await this.#store.processesAlive(others) : [];
    const alive = new Map(others.map((id, i) => [id, answers[i] ?? false]));
    return ids.map((id) => id === this.id || (alive.get(id) ?? false));
  }

  /**
   * Releases the lease: whatever this process still holds is free for the others at once.
   * Never rejects: a release the store did not take lapses in its time.
   */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#joined?.catch(() => undefined);
    await this.#lease.release().catch(() => undefined);
  }

  async #take(): Promise<void> {
    if (!(await this.#lease.acquire())) {
      throw new Error(`another process holds this process's id ${this.id}`);
    }
    this.#generation += 1;
    this.#lease.keepRenewed({
      renewed: () => {
        this.#outage = false;
      },
      lost: async () => {
        this.#outage = false;
        this.#log.warn(
          "this process's presence lapsed (the store was away): taken again; other processes may have taken over what it held",
        );
        if (!(await this.#lease.acquire())) return;
        this.#generation += 1;
        for (const listener of this.#lost) {
          await Promise.resolve()
            .then(listener)
            .catch((error: unknown) =>
              this.#log.warn({ err: error }, "could not take back what a lapsed presence held"),
            );
        }
      },
      failed: (error) => {
        const level = storeFailureLevel(error);
        this.#outage = level === "debug";
        this.#log[level]({ err: error }, "could not renew this process's presence");
      },
    });
  }
}
