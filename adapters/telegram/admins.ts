import type { Api } from "grammy";
import { BridgeError } from "../../src/errors.ts";

/** getChatMember failed, so whether the person may administer the chat is not known. */
export class AdminCheckError extends BridgeError {
  readonly code = "TELEGRAM_ADMIN_CHECK";
  constructor(cause: unknown) {
    super("Telegram getChatMember failed", {
      userText: { key: "errorTelegramAdminCheck" },
      cause,
    });
  }
}

export interface AdminCheck {
  chatId: number;
  isPrivate: boolean;
  /** The author's user id, or the chat's own id for an anonymous admin. */
  authorId: string;
}

const MAX_CACHED = 10_000;

/**
 * Who may administer a chat: the chat's administrators and creator (asked with getChatMember
 * and remembered briefly, since rights can change), the person in a private chat, anyone
 * writing as the group itself (only admins can post anonymously), and TELEGRAM_ADMIN_USERS.
 */
export class TelegramAdmins {
  readonly #api: Api;
  readonly #extra: ReadonlySet<string>;
  readonly #ttlMs: number;
  readonly #cache = new Map<string, { admin: Promise<boolean>; until: number }>();

  constructor(api: Api, adminUsers: readonly string[], ttlMs: number) {
    this.#api = api;
    this.#extra = new Set(adminUsers);
    this.#ttlMs = ttlMs;
  }

  /** Listed in TELEGRAM_ADMIN_USERS: an admin of the whole bot. */
  isListed(authorId: string): boolean {
    return this.#extra.has(authorId);
  }

  isAdmin(check: AdminCheck): Promise<boolean> {
    if (this.#extra.has(check.authorId) || check.isPrivate) return Promise.resolve(true);
    if (check.authorId === String(check.chatId)) return Promise.resolve(true);
    const key = `${check.chatId}:${check.authorId}`;
    const now = performance.now();
    const cached = this.#cache.get(key);
    if (cached && cached.until > now) return cached.admin;
    if (this.#cache.size >= MAX_CACHED) this.#prune(now);
    const admin = this.#api.getChatMember(check.chatId, Number(check.authorId)).then(
      (member) => member.status === "creator" || member.status === "administrator",
      (error: unknown) => {
        this.#cache.delete(key);
        throw new AdminCheckError(error);
      },
    );
    this.#cache.set(key, { admin, until: now + this.#ttlMs });
    return admin;
  }

  #prune(now: number): void {
    for (const [key, entry] of this.#cache) if (entry.until <= now) this.#cache.delete(key);
    if (this.#cache.size >= MAX_CACHED) this.#cache.clear();
  }
}
