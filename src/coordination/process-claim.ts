import type { PresenceStore, ProcessPresence } from "./process-presence.ts";

/**
 * A key naming the one process that holds it, for work one process at a time does (the
 * Telegram poller, the lead poll). It holds while that process's presence does, so it needs
 * no lease of its own to renew: it is free to take when it names nobody, or a process whose
 * presence is gone (docs/architecture.md, "One process, one presence").
 */
export class ProcessClaim {
  readonly key: string;
  readonly #store: PresenceStore;
  readonly #presence: ProcessPresence;
  /** The presence's generation when this process last found the key its own. */
  #heldIn: number | undefined;

  constructor(options: { store: PresenceStore; presence: ProcessPresence; key: string }) {
    this.key = options.key;
    this.#store = options.store;
    this.#presence = options.presence;
  }

  /**
   * Takes the key, or finds this process holding it: true when it holds now. No store call
   * while it was found held and the presence has not lapsed since: nobody else can have taken
   * it meanwhile.
   */
  async acquire(): Promise<boolean> {
    const presence = this.#presence;
    await presence.join();
    if (this.held) return true;
    const generation = presence.generation;
    this.#heldIn = undefined;
    const held = await this.#take();
    if (held) this.#heldIn = generation;
    return held;
  }

  /** This process found the key its own, and its presence has not lapsed since. */
  get held(): boolean {
    return this.#heldIn === this.#presence.generation && this.#presence.remainingMs() > 0;
  }

  /** Frees the key, if it names this process: another may take it at once. */
  async release(): Promise<void> {
    this.#heldIn = undefined;
    await this.#store.release(this.key, this.#presence.id);
  }

  async #take(): Promise<boolean> {
    const { id } = this.#presence;
    const [holder] = await this.#store.getMany<string>([this.key]);
    if (holder === id) return true;
    if (holder !== undefined) {
      const [alive] = await this.#presence.alive([holder]);
      if (alive) return false;
      // Its process is dead: the key goes, only while it still names that process (another
      // process may have taken it over a moment ago).
      await this.#store.release(this.key, holder);
    }
    return this.#store.claim(this.key, id);
  }
}
