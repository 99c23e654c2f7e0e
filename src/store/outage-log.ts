import type { Logger } from "../log.ts";

/**
 * Tells the operator once that the store went away and once that it is back. Every job that
 * touches the store on a timer (leases, the journal's sweep, the lead poll) fails while it
 * is away, and each used to log it, a warning every few seconds for the whole outage. The
 * failures an outage explains are marked instead (StoreUnavailableError.duringOutage), and
 * those jobs log them at debug (storeFailureLevel in src/errors.ts).
 */
export class OutageLog {
  readonly #log: Logger;
  readonly #store: string;
  #since: number | undefined;

  /** `store` says where the store is, never its credentials ("redis 10.0.0.5:6379/3"). */
  constructor(log: Logger, store: string) {
    this.#log = log;
    this.#store = store;
  }

  /** An outage is under way (and was logged). */
  get active(): boolean {
    return this.#since !== undefined;
  }

  /**
   * The store cannot be reached: logged when it starts, not again while it lasts. `atStart`:
   * it never answered this process, which more often means a wrong STORE_URL than an outage.
   */
  began(reason: string, atStart = false): void {
    if (this.#since !== undefined) return;
    this.#since = Date.now();
    this.#log.error(
      { store: this.#store, reason },
      atStart
        ? "STORE_URL does not answer at start (if this lasts, check it: a wrong address or port is likelier than an outage); retrying in the background"
        : "store unreachable; retrying in the background",
    );
  }

  /** The store answers again: logged once, with how long it was away. */
  ended(): void {
    if (this.#since === undefined) return;
    const downMs = Date.now() - this.#since;
    this.#since = undefined;
    this.#log.info({ store: this.#store, downMs }, "store reachable again");
  }
}
