import type { webApi } from "@slack/bolt";
import { RateLimitedError } from "../../src/errors.ts";
import { SlackApiError, slackErrorOf, toBridgeError } from "./api.ts";

interface Entry {
  admin: Promise<boolean>;
  at: number;
}

/**
 * Who may administer the bot in a workspace: its admins and owners, as `users.info` says
 * (needs `users:read`), plus the ids in SLACK_ADMIN_USERS. Answers are cached, so a busy
 * channel costs one lookup per person per `cacheMs`.
 * https://docs.slack.dev/reference/methods/users.info
 */
export class SlackAdmins {
  readonly #client: webApi.WebClient;
  readonly #extra: ReadonlySet<string>;
  readonly #cacheMs: number;
  readonly #cache = new Map<string, Entry>();
  readonly #ownTeam: () => string | undefined;

  constructor(
    client: webApi.WebClient,
    adminUsers: readonly string[],
    cacheMs: number,
    ownTeam: () => string | undefined,
  ) {
    this.#client = client;
    this.#ownTeam = ownTeam;
    this.#extra = new Set(adminUsers);
    this.#cacheMs = cacheMs;
  }

  isAdmin(userId: string): Promise<boolean> {
    if (this.#extra.has(userId)) return Promise.resolve(true);
    const now = performance.now();
    const cached = this.#cache.get(userId);
    if (cached && now - cached.at < this.#cacheMs) return cached.admin;
    const admin = this.#lookUp(userId);
    this.#cache.set(userId, { admin, at: now });
    // A failed lookup is not remembered: the next command asks again.
    admin.catch(() => this.#cache.delete(userId));
    return admin;
  }

  async #lookUp(userId: string): Promise<boolean> {
    try {
      const { user } = await this.#client.users.info({ user: userId });
      // A Slack Connect guest's admin flags describe their own organisation, not this one:
      // they must not, say, subscribe a shared channel to this company's leads.
      const team = this.#ownTeam();
      if (team !== undefined && user?.team_id !== undefined && user.team_id !== team) return false;
      return Boolean(user?.is_admin || user?.is_owner || user?.is_primary_owner);
    } catch (error) {
      const mapped = toBridgeError("users.info", "", error);
      if (mapped instanceof RateLimitedError) throw mapped;
      const slackError = slackErrorOf(error);
      throw new SlackApiError("users.info", slackError, error, {
        key: "errorSlackAdminCheck",
        values: { error: slackError },
      });
    }
  }
}
