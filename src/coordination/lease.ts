import type { Coordination } from "./port.ts";

/**
 * Runs `round` every `intervalMs`, one round at a time (a round still running when the next
 * is due skips it), until stopped. The one loop that keeps leases alive (the process's
 * presence, a queued question's place in its thread's line) and runs the rounds a process
 * repeats (the journal's sweep, the shared queue's, the leader election's). Unref'd: a
 * renewal alone never keeps a stopping process alive.
 *
 * `shared`: the rounds go with every other shared renewal of the same length, on one timer
 * (the first round comes within `intervalMs`, not after it). The rounds a process runs for
 * its whole life (leases, the journal's sweep, the shared queue's rounds) take it: an idle
 * process then wakes once a period for all of them, and their store calls go out together.
 */
export class Renewal {
  readonly #leave: () => void;
  #running: Promise<void> | undefined;

  constructor(round: () => Promise<void>, intervalMs: number, options: { shared?: boolean } = {}) {
    const tick = () => {
      this.#running ??= round().finally(() => {
        this.#running = undefined;
      });
    };
    this.#leave = options.shared ? joinBeat(intervalMs, tick) : ownBeat(intervalMs, tick);
  }

  /** No more rounds; resolves once the round in flight, if any, is over. */
  stop(): Promise<void> {
    this.#leave();
    return this.#running ?? Promise.resolve();
  }
}

/** The timers shared renewals run on, by length. */
const beats = new Map<number, { ticks: Set<() => void>; timer: NodeJS.Timeout }>();

function ownBeat(intervalMs: number, tick: () => void): () => void {
  const timer = setInterval(tick, intervalMs).unref();
  return () => clearInterval(timer);
}

function joinBeat(intervalMs: number, tick: () => void): () => void {
  let beat = beats.get(intervalMs);
  if (!beat) {
    const ticks = new Set<() => void>();
    const timer = setInterval(() => {
      for (const each of ticks) each();
    }, intervalMs).unref();
    beat = { ticks, timer };
    beats.set(intervalMs, beat);
  }
  const joined = beat;
  joined.ticks.add(tick);
  return () => {
    if (!joined.ticks.delete(tick) || joined.ticks.size > 0) return;
    clearInterval(joined.timer);
    beats.delete(intervalMs);
  };
}

export interface LeaseEvents {
  /** A renewal went through: the lease holds its length from when it was sent. */
  renewed?(): void;
  /** A renewal found the lease no longer held: it lapsed, or another owner has it now. */
  lost?(): void | Promise<void>;
  /** A renewal (or `lost`) failed: the store was away; the lease may still hold a while. */
  failed?(error: unknown): void;
}

export interface LeaseOptions {
  store: Coordination;
  /** The lease's key: every process that may hold it uses the same one. */
  key: string;
  /** Who holds it: unique per holder (a process, a run). */
  owner: string;
  /** How long it holds without renewal: a dead holder's lease frees after this. */
  leaseMs: number;
  /**
   * Only this owner ever takes `key` (its name is the owner's own, as a process's presence):
   * a renewal extends the key without comparing its owner (Coordination.extend).
   */
  ownKey?: boolean | undefined;
}

/**
 * A lease in the store: held by one owner at a time across every process sharing the store,
 * renewed every third of its length while kept, and freed at once when released (or by its
 * lapse when the holder died).
 */
export class Lease {
  readonly key: string;
  readonly owner: string;
  readonly leaseMs: number;
  readonly #store: Coordination;
  readonly #ownKey: boolean;
  #asked = false;
  #renewal: Renewal | undefined;
  /** When the last call that found this owner holding it was sent (performance.now()). */
  #confirmedAt = Number.NEGATIVE_INFINITY;

  constructor(options: LeaseOptions) {
    this.key = options.key;
    this.owner = options.owner;
    this.leaseMs = options.leaseMs;
    this.#store = options.store;
    this.#ownKey = options.ownKey ?? false;
  }

  /** Takes the lease, or extends it while this owner holds it. True when it holds now. */
  async acquire(): Promise<boolean> {
    this.#asked = true;
    if (await this.renew()) return true;
    return this.#confirm(() => this.#store.claim(this.key, this.owner, this.leaseMs));
  }

  /** Extends the lease by its length from now; false when this owner does not hold it. */
  async renew(): Promise<boolean> {
    return this.#confirm(() =>
      this.#ownKey
        ? this.#store.extend(this.key, this.leaseMs)
        : this.#store.renew(this.key, this.owner, this.leaseMs),
    );
  }

  /**
   * How long the lease holds at least, as the last renewal or claim left it (counted from
   * when it was sent: the store started the lease's time no earlier); 0 or less once it may
   * have lapsed.
   */
  remainingMs(): number {
    return this.#confirmedAt + this.leaseMs - performance.now();
  }

  async #confirm(call: () => Promise<boolean>): Promise<boolean> {
    const sentAt = performance.now();
    const held = await call();
    this.#confirmedAt = held ? sentAt : Number.NEGATIVE_INFINITY;
    return held;
  }

  /** Renews the lease every third of its length until stopRenewing or release. */
  keepRenewed(events: LeaseEvents = {}): void {
    this.#renewal ??= new Renewal(
      async () => {
        try {
          if (await this.renew()) events.renewed?.();
          else await events.lost?.();
        } catch (error) {
          events.failed?.(error);
        }
      },
      this.leaseMs / 3,
      { shared: true },
    );
  }

  /** Stops renewing (the lease lapses in its time); resolves once a renewal in flight is over. */
  async stopRenewing(): Promise<void> {
    const renewal = this.#renewal;
    this.#renewal = undefined;
    await renewal?.stop();
  }

  /** Stops renewing and frees the lease, so another process may take it at once. */
  async release(): Promise<void> {
    await this.stopRenewing();
    if (!this.#asked) return;
    this.#asked = false;
    this.#confirmedAt = Number.NEGATIVE_INFINITY;
    await this.#store.release(this.key, this.owner);
  }
}
