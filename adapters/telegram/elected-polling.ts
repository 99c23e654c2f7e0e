import { DEFAULTS } from "../../src/config.ts";
import { LeaderElection } from "../../src/coordination/leader-election.ts";
import type { Coordination } from "../../src/coordination/port.ts";
import type { Logger } from "../../src/log.ts";
import type { Poller } from "./polling.ts";
import type { BotIdentity } from "./to-incoming.ts";

export interface ElectedPollingOptions {
  poller: Poller;
  store: Coordination;
  log: Logger;
  /** TAKEOVER_MS: the poller's lease; a dead poller is replaced within it. Default 10 s. */
  takeoverMs?: number | undefined;
}

/**
 * Long polling by one process at a time. Telegram serves one getUpdates per bot token (a
 * second poller gets 409 Conflict), so processes sharing Redis elect the poller with a lease
 * on `telegram:poller:<bot id>`; the others stand by, healthy, and take over when it stops
 * or dies. With the embedded store there is one process, and it polls.
 */
export class ElectedPolling {
  readonly #options: ElectedPollingOptions;
  #election: LeaderElection | undefined;

  constructor(options: ElectedPollingOptions) {
    this.#options = options;
  }

  /** Resolves once this process polls or stands by. */
  async start(bot: BotIdentity): Promise<void> {
    const { poller, store, log } = this.#options;
    this.#election = new LeaderElection({
      store,
      key: `telegram:poller:${bot.id}`,
      leaseMs: this.#options.takeoverMs ?? DEFAULTS.takeoverMs,
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

  /** Stops polling, confirms the updates taken, then hands the lease over. */
  async stop(): Promise<void> {
    await this.#election?.stop();
  }

  unhealthyReason(): string | undefined {
    // Standing by is a healthy state: the process serves everything else and is ready to poll.
    return this.#election?.leading ? this.#options.poller.unhealthyReason() : undefined;
  }
}
