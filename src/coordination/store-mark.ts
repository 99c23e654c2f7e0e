import { randomUUID } from "node:crypto";
import type { Logger } from "../log.ts";
import type { PresenceStore, ProcessPresence } from "./process-presence.ts";

/**
 * The mark's key. It has no TTL and nothing deletes it, so only a loss of the store's data (a
 * Redis restarted empty, a failover to an empty replica, a FLUSHALL) takes it away.
 */
export const STORE_MARK_KEY = "store:mark";

/** What a part of this process holds of the store's data, to write back once the store lost it. */
export interface HeldRecords {
  /** What it is, as the log line names it: "lead channels", "conversations". */
  readonly what: string;
  /** Writes back what this process holds now; resolves with the number of records written. */
  writeBack(): Promise<number>;
}

/** Where the parts that hold records say so (StoreMark). */
export interface WriteBacks {
  /** `records` are written back whenever the store is found to have lost its data; returns the way to stop. */
  hold(records: HeldRecords): () => void;
  /**
   * Whether the store lost its data since this process last found its mark: for a part that
   * found its own records gone and must not take that for a first start. One store read.
   */
  check(): Promise<boolean>;
  /** Losses noticed so far: a part that saw the count change knows its records went meanwhile. */
  readonly losses: number;
  /** When the last loss was noticed (epoch ms), if any was. */
  readonly lostAt: number | undefined;
}

export interface StoreMarkOptions {
  store: PresenceStore;
  /** This process's presence: its renewal finding the presence gone is when the mark is looked at. */
  presence: ProcessPresence;
  log: Logger;
  /** Counts each loss noticed (chatbot_bridge_store_data_lost_total). */
  lost?: { inc(): void } | undefined;
}

/**
 * Notices that the store lost its data (docs/deploy.md, "What to back up"): a key without TTL that the
 * first process writes and every process reads at its start. Found gone (or written anew by
 * another process) after this process saw it, the store was emptied under the running
 * processes: each writes back what it still holds (the parts register their records with
 * `hold`), says so in one error line and counts it, so that the lead poll goes on where it was
 * and no lead is missed.
 *
 * The mark costs nothing while the store keeps its data: it is looked at when this process's
 * presence renewal (every third of TAKEOVER_MS) finds the presence gone, which a loss of the
 * data always does (a whole outage longer than the lease does too: then the mark is there,
 * and that is one read), and when a part finds its own records gone (`check`).
 *
 * A store found without a mark at this process's start is a new one to it: a deployment's first
 * start, an upgrade from a version without the mark, or data lost while no process ran, which
 * nothing can tell apart. On the embedded store, which one process owns, the data can only go
 * with DATA_DIR emptied under the running process: LevelDB keeps reading and writing the files
 * it holds open, so the mark still reads, and nothing written back would outlive the process
 * either; the next start finds a new store.
 */
export class StoreMark implements WriteBacks {
  readonly #options: StoreMarkOptions;
  readonly #held = new Set<HeldRecords>();
  /** The mark as this process last found it (undefined until it was read once). */
  #seen: string | undefined;
  #checking: Promise<boolean> | undefined;
  #losses = 0;
  #lostAt: number | undefined;

  constructor(options: StoreMarkOptions) {
    this.#options = options;
    options.presence.onLost(async () => {
      await this.check();
    });
  }

  get losses(): number {
    return this.#losses;
  }

  get lostAt(): number | undefined {
    return this.#lostAt;
  }

  hold(records: HeldRecords): () => void {
    this.#held.add(records);
    return () => this.#held.delete(records);
  }

  /**
   * Reads the mark, or writes it where there is none; from then on a loss is noticed. Never
   * rejects: with the store away, the next check reads it.
   */
  async start(): Promise<void> {
    await this.check().catch(() => undefined);
  }

  /**
   * Whether the store lost its data since this process last found the mark: one read while it
   * is there. Once a loss is noticed, every holder has written back before this resolves.
   * Checks at the same moment share one.
   */
  check(): Promise<boolean> {
    this.#checking ??= this.#check().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  async #check(): Promise<boolean> {
    const { store } = this.#options;
    let [found] = await store.getMany<string>([STORE_MARK_KEY]);
    if (found === undefined) {
      const fresh = randomUUID();
      // Another process may write it at the same moment: then its mark is the one.
      [found] = (await store.claim(STORE_MARK_KEY, fresh))
        ? [fresh]
        : await store.getMany<string>([STORE_MARK_KEY]);
    }
    const before = this.#seen;
    this.#seen = found;
    if (before === undefined || found === before) return false;
    await this.#lost();
    return true;
  }

  async #lost(): Promise<void> {
    this.#losses += 1;
    this.#lostAt = Date.now();
    this.#options.lost?.inc();
    const writtenBack: Record<string, number> = {};
    const failed: string[] = [];
    for (const records of this.#held) {
      try {
        writtenBack[records.what] = await records.writeBack();
      } catch {
        failed.push(records.what);
      }
    }
    this.#options.log.error(
      { writtenBack, ...(failed.length > 0 && { notWrittenBack: failed }) },
      "the store lost its data (Redis restarted empty, or a failover to an empty replica): languages, chatbot choices, lead claims and what no running process held are gone; this process wrote back the lead channels, lead polls, conversations and threads it held",
    );
  }
}
