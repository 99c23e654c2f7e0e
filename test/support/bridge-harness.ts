import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Chatbots } from "../../src/backend/chatbots.ts";
import { createBackendClient } from "../../src/backend/client.ts";
import type { BackendClient } from "../../src/backend/types.ts";
import { Bridge, type BridgeOptions } from "../../src/bridge/bridge.ts";
import type { LeadsCommands } from "../../src/bridge/command-handler.ts";
import type { ChatbotSpec } from "../../src/config.ts";
import { ProcessPresence } from "../../src/coordination/process-presence.ts";
import { createLogger } from "../../src/log.ts";
import type { Channel, IncomingMessage } from "../../src/ports.ts";
import {
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from "../../src/simulator/index.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { Store } from "../../src/store/types.ts";

/** Bridge options as a test gives them: a presence of its own for the store when none is given. */
export type TestBridgeOptions = Omit<BridgeOptions, "presence"> & { presence?: ProcessPresence };

/**
 * A bridge as src/bot.ts makes one, started (with `channels` to rebuild the surfaces of queued
 * questions). Its presence is the test's own unless one is given.
 */
export async function startBridge(
  options: TestBridgeOptions,
  channels: readonly Channel[] = [],
): Promise<Bridge> {
  const presence =
    options.presence ?? new ProcessPresence({ store: options.store, log: options.log });
  await presence.join().catch(() => undefined);
  const bridge = new Bridge({ ...options, presence });
  await bridge.start(channels);
  return bridge;
}

export interface Harness {
  bridge: Bridge;
  simulator: Simulator;
  /** The default chatbot's client. */
  backend: BackendClient;
  /** Every chatbot of the harness (one, "default", unless `chatbots` named several). */
  chatbots: Chatbots;
  store: Store;
  close(): Promise<void>;
}

export interface HarnessOptions {
  simulator?: SimulatorOptions;
  /** A store to share (two bridges on one Redis); default: an embedded store in a temp dir. */
  store?: Store;
  bridge?: Partial<Omit<TestBridgeOptions, "backend" | "store" | "log" | "leads">> & {
    /** Builds the /leads commands on the harness's own chatbots and store. */
    leads?: (backend: Chatbots, store: Store) => LeadsCommands;
  };
  /**
   * Several chatbots of one account (CHATBOTS), on the simulator; it serves each bot_uid
   * unless `simulator.bots` says which (a bot_uid it does not serve is refused with 404).
   */
  chatbots?: readonly ChatbotSpec[];
  /** Reuse a running simulator (two bridges, one backend). */
  simulatorInstance?: Simulator;
}

/** Bridge settings with nothing in the way: no allowlists, no rate limit, roomy caps. */
export const OPEN_BRIDGE: Pick<
  BridgeOptions,
  "defaultLanguage" | "guards" | "maxAnswerChars" | "typingDelayMs"
> = {
  defaultLanguage: "auto",
  guards: {
    allowedChannels: [],
    allowedUsers: [],
    maxQuestionChars: 4_000,
    rateLimitQuestions: 0,
    rateLimitWindowSeconds: 60,
  },
  maxAnswerChars: 100_000,
  // The typing sign at once: tests of it need not wait out the half second a person gets.
  typingDelayMs: 0,
};

/** The real pipeline over real HTTP: simulated backend, undici client, a real store. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const bots = options.chatbots?.map((chatbot) => chatbot.botUid);
  const simulator =
    options.simulatorInstance ??
    (await startSimulator({ chunkDelayMs: 0, ...(bots && { bots }), ...options.simulator }));
  const account = { baseUrl: simulator.url, apiKey: simulator.apiKey };
  const log = createLogger({ level: "silent", secrets: [] });
  const chatbots = options.chatbots
    ? Chatbots.open(account, options.chatbots, "CHATBOTS", log)
    : Chatbots.single(createBackendClient({ ...account, botUid: simulator.botUid }));
  const backend = chatbots.default.client;
  const dataDir = options.store ? undefined : await mkdtemp(join(tmpdir(), "bridge-test-"));
  const store = options.store ?? (await openStore({ dataDir: dataDir ?? "" }));
  const bridge = await startBridge({
    backend: chatbots,
    store,
    log,
    ...OPEN_BRIDGE,
    ...options.bridge,
    leads: options.bridge?.leads?.(chatbots, store),
  });
  return {
    bridge,
    simulator,
    backend,
    chatbots,
    store,
    async close() {
      await bridge.drain(0);
      await chatbots.close();
      if (!options.simulatorInstance) await simulator.close();
      if (!options.store) await store.close();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A message as an adapter would hand it over; a fresh delivery id unless one is given. */
export function incoming(text: string, overrides: Partial<IncomingMessage> = {}): IncomingMessage {
  return {
    channel: "test",
    deliveryId: randomUUID(),
    channelKey: "test:channel-1",
    channelId: "channel-1",
    threadKey: "test:channel-1:thread-1",
    authorId: "user-1",
    text,
    isAdmin: async () => true,
    isBotAdmin: async () => true,
    ...overrides,
  };
}
