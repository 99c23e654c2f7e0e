import type { webApi } from "@slack/bolt";
import { RateLimitedError } from "../../src/errors.ts";
import { SlackApiError, slackErrorOf, toBridgeError } from "./api.ts";

/** What the bot needs to know of a person, from one users.info call. */
interface Person {
  admin: boolean;
  /** The person's Slack language (`en-US`, `fr-FR`), for the bot's own texts. */
  locale: string | undefined;
  /** Their name as Slack shows it: display name, else full name, else user name. */
  name: string | undefined;
}

interface Entry {
  person: Promise<Person>;
  at: number;
}

/**
 * Who may administer the bot in a workspace: its admins and owners, as `users.info` says
 * (needs `users:read`), plus the ids in SLACK_ADMIN_USERS; and each person's locale and name,
 * from the same call. Answers are cached, so a busy channel costs one lookup per person per
 * `cacheMs`.
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

  /** Listed in SLACK_ADMIN_USERS: an admin of the whole bot. */
  isListed(userId: string): boolean {
    return this.#extra.has(userId);
  }

  async isAdmin(userId: string): Promise<boolean> {
    if (this.#extra.has(userId)) return true;
    return (await this.#person(userId)).admin;
  }

  async locale(userId: string): Promise<string | undefined> {
    return (await this.#person(userId)).locale;
  }

  /** How Slack names the person (a thread's earlier messages, and the mentions in them). */
  async name(userId: string): Promise<string | undefined> {
    return (await this.#person(userId)).name;
  }

  #person(userId: string): Promise<Person> {
    const now = performance.now();
    const cached = this.#cache.get(userId);
    if (cached && now - cached.at < this.#cacheMs) return cached.person;
    const person = this.#lookUp(userId);
    this.#cache.set(userId, { person, at: now });
    // A failed lookup is not remembered: the next command asks again.
    person.catch(() => this.#cache.delete(userId));
    return person;
  }

  async #lookUp(userId: string): Promise<Person> {
    try {
      const { user } = await this.#client.users.info({ user: userId, include_locale: true });
      // A Slack Connect guest's admin flags describe their own organisation, not this one:
      // they must not, say, subscribe a shared channel to this company's leads. Before the
      // bot knows its own team, nobody's flags can be told apart: none count.
      const team = this.#ownTeam();
      const guest = team === undefined || (user?.team_id !== undefined && user.team_id !== team);
      return {
        admin: !guest && Boolean(user?.is_admin || user?.is_owner || user?.is_primary_owner),
        locale: user?.locale,
        name: user?.profile?.display_name || user?.real_name || user?.name || undefined,
      };
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
