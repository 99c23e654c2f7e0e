import { randomUUID } from "node:crypto";
import { storeFailureLevel } from "../errors.ts";
import type { Logger } from "../log.ts";
import { Lease, Renewal } from "./lease.ts";
import type { Coordination } from "./port.ts";

/** The work that one process at a time may do, as a LeaderElection runs it. */
export interface LeaderRole {
  /** This process holds the lease now: start the work. */
  lead(): void | Promise<void>;
  /**
   * Stop the work; resolves once it has stopped. `leaseHeld` is false when another process
   * has taken the lease, so the work must not touch what the new leader now owns.
   */
  stepDown(leaseHeld: boolean): Promise<void>;
  /** Another process holds the lease: called once each time this process starts to wait. */
  standBy?(): void;
}

export interface LeaderElectionOptions {
  store: Coordination;
  /** The lease's key: every process that may do the work uses the same one. */
  key: string;
  /** How long the lease holds without renewal: a dead leader is replaced within this. */
  leaseMs: number;
  role: LeaderRole;
  log: Logger;
}

/**
 * Runs a role in one process at a time among those sharing a Redis store: a lease (a store
 * claim with a TTL) decides who leads. The leader renews it every third of the lease; the
 * others try to take it as often, so a dead leader is replaced within one lease and one
 * that stops hands over within a third of it.
 *
 * A leader that cannot reach the store keeps the work while the lease presumably holds and
 * steps down a sixth of the lease before it would lapse, so two processes never lead at once
 * (as long as their clocks run at the same speed: the lapse is counted from before the last
 * renewal was sent, never from its answer). The embedded store belongs to one process: there
 * the role simply runs.
 */
export class LeaderElection {
  readonly #options: LeaderElectionOptions;
  readonly #lease: Lease;
  #leading = false;
  #waiting = false;
  #storeFailing = false;
  /** The last failure was part of an outage the store logged itself. */
  #storeOutage = false;
  #leaving = false;
  /** Lead and step-down calls, one after the other. */
  #roleChange: Promise<void> = Promise.resolve();
  #beforeLapse: NodeJS.Timeout | undefined;
  #first: Promise<void> | undefined;
  #rounds: Renewal | undefined;

  constructor(options: LeaderElectionOptions) {
    this.#options = options;
    this.#lease = new Lease({
      store: options.store,
      key: options.key,
      owner: randomUUID(),
      leaseMs: options.leaseMs,
    });
  }

  /** Whether this process leads now. */
  get leading(): boolean {
    return this.#leading;
  }

  /** Resolves once the first try has decided: this process leads, or waits (or the store failed). */
  async start(): Promise<void> {
    if (this.#lease.grantedInProcess) {
      await this.#lead();
      return;
    }
    this.#first = this.#contend();
    await this.#first;
    if (!this.#leaving)
      this.#rounds = new Renewal(() => this.#contend(), this.#options.leaseMs / 3, {
        shared: true,
      });
  }

  /** Stops the role if it runs, then frees the lease so another process takes over at once. */
  async stop(): Promise<void> {
    // The lease is still renewed while the work stops (a poller confirming its last offset
    // can take seconds): nobody may start before this process is done.
    this.#leaving = true;
    await this.#stepDown(true);
    await this.#first;
    await this.#rounds?.stop();
    await this.#lease.release().catch(() => undefined);
  }

  /** One round: the leader renews its lease, the others try to take it. */
  async #contend(): Promise<void> {
    const { key, leaseMs, log } = this.#options;
    const sentAt = performance.now();
    let held: boolean;
    try {
      // Acquiring renews first, which also takes back a lease this process still holds after
      // stepping down while the store was away: nobody else can have led in between.
      held =
        this.#leading || this.#leaving ? await this.#lease.renew() : await this.#lease.acquire();
    } catch (error) {
      const level = storeFailureLevel(error);
      if (!this.#storeFailing) log[level]({ err: error, lease: key }, "lease: the store failed");
      this.#storeFailing = true;
      this.#storeOutage = level === "debug";
      return;
    }
    this.#storeFailing = false;
    this.#storeOutage = false;
    if (this.#leaving) return;
    if (held) {
      // Counted from before the call: Redis started the new TTL no earlier than that.
      const stepDownIn = sentAt + leaseMs - leaseMs / 6 - performance.now();
      if (stepDownIn > 0) {
        this.#stepDownAfter(stepDownIn);
        await this.#lead();
      } else {
        // An answer this late leaves too little of the lease to count on.
        await this.#stepDown(true);
      }
      return;
    }
    if (this.#leading) {
      log.warn({ lease: key }, "lease taken over by another process; stepping down");
      await this.#stepDown(false);
    }
    if (!this.#waiting) this.#options.role.standBy?.();
    this.#waiting = true;
  }

  /** Steps down after `ms` unless a renewal comes first: before the lease would lapse. */
  #stepDownAfter(ms: number): void {
    clearTimeout(this.#beforeLapse);
    this.#beforeLapse = setTimeout(() => {
      // Expected while the store is away, which the store has logged already.
      this.#options.log[this.#storeOutage ? "info" : "warn"](
        { lease: this.#options.key },
        "lease not renewed in time; stepping down before it lapses",
      );
      void this.#stepDown(true);
    }, ms);
    this.#beforeLapse.unref();
  }

  #lead(): Promise<void> {
    if (this.#leading) return this.#roleChange;
    this.#leading = true;
    this.#waiting = false;
    return this.#changeRole(() => this.#options.role.lead());
  }

  #stepDown(leaseHeld: boolean): Promise<void> {
    clearTimeout(this.#beforeLapse);
    if (!this.#leading) return this.#roleChange;
    this.#leading = false;
    return this.#changeRole(() => this.#options.role.stepDown(leaseHeld));
  }

  #changeRole(change: () => void | Promise<void>): Promise<void> {
    this.#roleChange = this.#roleChange.then(change).catch((error: unknown) => {
      this.#options.log.error({ err: error, lease: this.#options.key }, "role change failed");
    });
    return this.#roleChange;
  }
}
