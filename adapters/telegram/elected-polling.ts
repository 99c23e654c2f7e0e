import { DEFAULTS } from "../../src/config.ts";
import { LeaderElection } from "../../src/coordination/leader-election.ts";
import { type PresenceStore, ProcessPresence } from "../../src/coordination/process-presence.ts";
import type { Logger } from "../../src/log.ts";
import type { Poller } from "./polling.ts";
import type { BotIdentity } from "./to-incoming.ts";

export interface ElectedPollingOptions {
  poller: Poller;
  store: PresenceStore;
  log: Logger;
  /** This process: it polls while its presence holds. Default: one of its own, with `takeoverMs`. */
  presence?: ProcessPresence | undefined;
  /** TAKEOVER_MS: a dead poller is replaced within it. Default 10 s. */
  takeoverMs?: number | undefined;
}

/**
 * Long polling by one process at a time. Telegram serves one getUpdates per bot token (a
 * second poller gets 409 Conflict), so processes sharing Redis elect the poller by
 * `telegram:poller:<bot id>`, which names the polling process while it lives; the others stand
 * by, healthy, and take over when it stops or dies. With the embedded store there is one process, and it polls.
 */
export class ElectedPolling {
  readonly #options: ElectedPollingOptions;
  readonly #presence: ProcessPresence;
  #election: LeaderElection | undefined;

  constructor(options: ElectedPollingOptions) {
    this.#options = options;
    const { store, log } = options;
    this.#presence =
      options.presence ??
      new ProcessPresence({ store, log, leaseMs: options.takeoverMs ?? DEFAULTS.takeoverMs });
  }

  /** Resolves once this process polls or stands by. */
  async start(bot: BotIdentity): Promise<void> {
    const { poller, store, log } = this.#options;
    this.#election = new LeaderElection({
      store,
      presence: this.#presence,
      key: `telegram:poller:${bot.id}`,
      log,
      role: {
        lead: () => {
          poller.start();
          log.info({ bot: bot.username }, "Telegram long polling started");
        },
        stepDown: (leaseHeld) => poller.stop({ confirmOffset: leaseHeld }),
        standBy: () =>
          log.info({ bot: bot.username }, "Telegram polling: standing by, another process polls"),
      },
    });
    await this.#election.start();
  }

  /** Stops polling, confirms the updates taken, then hands the role over. */
  async stop(): Promise<void> {
    await this.#election?.stop();
    if (!this.#options.presence) await this.#presence.close();
  }

  unhealthyReason(): string | undefined {
    // Standing by is a healthy state: the process serves everything else and is ready to poll.
    return this.#election?.leading ? this.#options.poller.unhealthyReason() : undefined;
  }
}
