import { randomInt } from "node:crypto";
import type { Button } from "../../src/ports.ts";
import { DRAFT_LIFETIME_MS } from "./limits.ts";

/** The chat's draft: whose it is, when it was last shown, and what its stop button presses. */
interface HeldDraft {
  owner: object;
  touched: number;
  draftId?: number;
  stop?: Button | undefined;
}

/**
 * Native draft streaming in private chats (sendMessageDraft), when TELEGRAM_DRAFTS is on. A
 * chat shows one draft at a time (a draft with another id replaces it), so one answer per
 * chat streams as a draft and any other (a queued question's notice) uses send + edit. Once
 * the Bot API says the method is not there, every answer falls back to send + edit.
 */
export class DraftSlots {
  /** How long a draft stays unchanged before it is shown again, so it never lapses. */
  readonly refreshMs: number;
  #available = true;
  readonly #held = new Map<number, HeldDraft>();
  #nextId = randomInt(1, 2 ** 30);

  constructor(options: { enabled: boolean; refreshMs?: number | undefined }) {
    this.refreshMs = options.refreshMs ?? DRAFT_LIFETIME_MS - 10_000;
    this.#available = options.enabled;
  }

  get available(): boolean {
    return this.#available;
  }

  /** The Bot API does not offer drafts (an older or self-hosted server): stop trying. */
  disable(): void {
    this.#available = false;
  }

  /** Takes the chat's draft for `owner`; false when another answer streams a draft there. */
  take(chatId: number, owner: object): boolean {
    if (!this.#available) return false;
    const held = this.#held.get(chatId);
    const now = performance.now();
    if (held && held.owner !== owner && now - held.touched < DRAFT_LIFETIME_MS) return false;
    this.#held.set(chatId, { owner, touched: now });
    return true;
  }

  touch(chatId: number, owner: object): void {
    const held = this.#held.get(chatId);
    if (held?.owner === owner) held.touched = performance.now();
  }

  /** Draft `draftId` of the chat shows Telegram's stop button, which presses `stop`. */
  stopsWith(chatId: number, draftId: number, stop: Button | undefined): void {
    const held = this.#held.get(chatId);
    if (!held) return;
    held.draftId = draftId;
    held.stop = stop;
  }

  /** The button a press of the stop button on draft `draftId` stands for, while it streams. */
  stopFor(chatId: number, draftId: number): Button | undefined {
    const held = this.#held.get(chatId);
    return held?.draftId === draftId ? held.stop : undefined;
  }

  release(chatId: number, owner: object): void {
    if (this.#held.get(chatId)?.owner === owner) this.#held.delete(chatId);
  }

  /** A fresh non-zero draft id. */
  nextId(): number {
    this.#nextId = (this.#nextId % (2 ** 31 - 1)) + 1;
    return this.#nextId;
  }
}
