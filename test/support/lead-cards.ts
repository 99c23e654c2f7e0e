import type { BackendClient } from "../../src/backend/types.ts";
import type { ButtonHandlers } from "../../src/bridge/button-handlers.ts";
import { ChannelLanguages } from "../../src/i18n/channel-language.ts";
import { registerClaimButtons } from "../../src/leads/claim-buttons.ts";
import { type LeadChannel, LeadChannels } from "../../src/leads/lead-channels.ts";
import { LeadClaimBook } from "../../src/leads/lead-claims.ts";
import { LeadPoller } from "../../src/leads/lead-poller.ts";
import { createLogger, type Logger } from "../../src/log.ts";
import type { LeadAnnouncer } from "../../src/ports.ts";
import type { SimLeadInput, Simulator } from "../../src/simulator/index.ts";
import type { Store } from "../../src/store/types.ts";

/**
 * Makes `channel` a lead channel with the claim buttons on, as main.ts wires them, and has the
 * lead poll announce `lead` there (one poll before it is added, one after: only new leads
 * are announced).
 */
export async function announceOneLead(options: {
  buttons: ButtonHandlers;
  store: Store;
  backend: BackendClient;
  simulator: Simulator;
  channel: LeadChannel;
  announcer: LeadAnnouncer;
  lead: SimLeadInput;
  /** Default: silent. */
  log?: Logger;
}): Promise<void> {
  const { store, announcer } = options;
  const channels = new LeadChannels(store, [options.channel]);
  const claims = new LeadClaimBook(store);
  const languages = new ChannelLanguages(store, "auto");
  const log = options.log ?? createLogger({ level: "silent", secrets: [] });
  const announcers = [announcer];
  registerClaimButtons(options.buttons, { book: claims, channels, announcers, languages, log });
  const poller = new LeadPoller({
    backend: options.backend,
    store,
    channels,
    announcers,
    languages,
    claims,
    log,
    intervalMs: 60_000,
  });
  await poller.pollOnce();
  options.simulator.addLead(options.lead);
  await poller.pollOnce();
}
