import { storeFailureLevel } from "../errors.ts";
import type { Logger } from "../log.ts";
import { Renewal } from "./lease.ts";
import { ProcessClaim } from "./process-claim.ts";
import type { PresenceStore, ProcessPresence } from "./process-presence.ts";

/** The work that one process at a time may do, as a LeaderElection runs it. */
export interface LeaderRole {
  /** This process holds the role now: start the work. */
  lead(): void | Promise<void>;
  /**
   * Stop the work; resolves once it has stopped. `leaseHeld` is false when another process
   * has taken the role, so the work must not touch what the new leader now owns.
   */
  stepDown(leaseHeld: boolean): Promise<void>;
  /** Another process holds the role: called once each time this process starts to wait. */
  standBy?(): void;
}

export interface LeaderElectionOptions {
  store: PresenceStore;
  /** This process: it leads while its presence holds, and a dead leader's lapses with it. */
  presence: ProcessPresence;
  /** The role's key: every process that may do the work uses the same one. */
  key: string;
  role: LeaderRole;
  log: Logger;
}

/**
 * Runs a role in one process at a time among those sharing a Redis store: a key naming the
 * leading process decides who leads, held while that process's presence holds (ProcessClaim),
 * so the leader renews nothing of its own. The others look every third of the presence's
 * lease, so a dead leader is replaced within one lease and one that stops hands over within
 * a third of it.
 *
 * A leader whose presence is not renewed (the store is out of reach) keeps the work while the
 * presence presumably holds and steps down a sixth of the lease before it would lapse, so two
 * processes never lead at once (as long as their clocks run at the same speed: the lapse is
 * counted from before the last renewal was sent, never from its answer).
 */
export class LeaderElection {
  readonly #options: LeaderElectionOptions;
  readonly #claim: ProcessClaim;
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
    this.#claim = new ProcessClaim(options);
  }

  /** Whether this process leads now. */
  get leading(): boolean {
    return this.#leading;
  }

  /** Resolves once the first try has decided: this process leads, or waits (or the store failed). */
  async start(): Promise<void> {
    const { presence } = this.#options;
    this.#first = this.#contend();
    await this.#first;
    if (!this.#leaving)
      this.#rounds = new Renewal(() => this.#contend(), presence.leaseMs / 3, { shared: true });
  }

  /** Stops the role if it runs, then frees it so another process takes over at once. */
  async stop(): Promise<void> {
    // The key names this process while the work stops (a poller confirming its last offset
    // can take seconds): nobody may start before this process is done.
    this.#leaving = true;
    await this.#stepDown(true);
    await this.#first;
    await this.#rounds?.stop();
    await this.#claim.release().catch(() => undefined);
  }

  /**
   * One round: the leader makes sure its presence holds long enough (no store call while it
   * does), the others try to take the role.
   */
  async #contend(): Promise<void> {
    const { key, log, presence } = this.#options;
    if (this.#leaving) return;
    let held: boolean;
    try {
      // Finding the key still naming this process takes back a role it stepped down from
      // while the store was away: nobody else can have led in between.
      held = await this.#claim.acquire();
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
      // Counted from before the presence's last renewal: Redis started its TTL no earlier.
      const stepDownIn = presence.remainingMs() - presence.leaseMs / 6;
      if (stepDownIn > 0) {
        this.#stepDownAfter(stepDownIn);
        await this.#lead();
      } else {
        // A presence this close to lapsing leaves too little to count on.
        await this.#stepDown(true);
      }
      return;
    }
    if (this.#leading) {
      log.warn({ lease: key }, "role taken over by another process; stepping down");
      await this.#stepDown(false);
    }
    if (!this.#waiting) this.#options.role.standBy?.();
    this.#waiting = true;
  }

  /** Steps down after `ms` unless a later round comes first: before the presence would lapse. */
  #stepDownAfter(ms: number): void {
    clearTimeout(this.#beforeLapse);
    this.#beforeLapse = setTimeout(() => {
      // Expected while the store is away, which the store has logged already.
      const outage = this.#storeOutage || this.#options.presence.inOutage;
      this.#options.log[outage ? "info" : "warn"](
        { lease: this.#options.key },
        "presence not renewed in time; stepping down before it lapses",
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
