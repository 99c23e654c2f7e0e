import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { Chatbots } from "../../src/backend/chatbots.ts";
import type { ChatbotSpec } from "../../src/config.ts";
import { LeadChannels } from "../../src/leads/lead-channels.ts";
import { LeadPoller, leadPollers } from "../../src/leads/lead-poller.ts";
import { createLogger, type Logger } from "../../src/log.ts";
import type { LeadAnnouncement, LeadAnnouncer } from "../../src/ports.ts";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { openEmbeddedStore } from "../../src/store/embedded-store.ts";
import type { Store } from "../../src/store/types.ts";

const silent = createLogger({ level: "silent", secrets: [] });

/** What each lead channel shows: the announced names, and the chatbot each card names. */
class RecordingAnnouncer implements LeadAnnouncer {
  readonly platform = "test";
  readonly posted: { channelId: string; name: string; chatbot: string | undefined }[] = [];
  channelKey(channelId: string): string {
    return `test:${channelId}`;
  }
  async announce(channelId: string, { lead, fields }: LeadAnnouncement): Promise<void> {
    const chatbot = fields.find((f) => f.label === "Chatbot")?.value;
    this.posted.push({ channelId, name: lead.name, chatbot });
  }
  in(channelId: string): string[] {
    return this.posted.filter((p) => p.channelId === channelId).map((p) => p.name);
  }
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function simulatorOf(bots: string[]): Promise<Simulator> {
  const simulator = await startSimulator({ chunkDelayMs: 0, leads: 0, bots });
  cleanup.push(() => simulator.close());
  return simulator;
}

async function embeddedStore(): Promise<Store> {
  const dir = await mkdtemp(join(tmpdir(), "chatbot-leads-"));
  const store = await openEmbeddedStore({ dataDir: dir });
  cleanup.push(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  return store;
}

function chatbotsOn(simulator: Simulator, specs: ChatbotSpec[], log = silent): Chatbots {
  const account = { baseUrl: simulator.url, apiKey: simulator.apiKey };
  const chatbots = Chatbots.open(account, specs, "CHATBOTS", log);
  cleanup.push(() => chatbots.close());
  return chatbots;
}

/** The deployment's lead poll as main.ts runs it, on `store`. */
function pollersOf(chatbots: Chatbots, store: Store, announcer: LeadAnnouncer, log = silent) {
  const channels = new LeadChannels(store, [], { log, chatbots: chatbots.all });
  const pollers = leadPollers(chatbots, {
    store,
    channels,
    announcers: [announcer],
    log,
    intervalMs: 60_000,
  });
  return { channels, pollers };
}

const pollAll = async (pollers: LeadPoller[]) => {
  for (const poller of pollers) await poller.pollOnce();
};

describe("leads of several chatbots", () => {
  it("keeps a one-chatbot deployment's lead data as the default chatbot's after the upgrade", async () => {
    const simulator = await simulatorOf(["sim-bot", "sim-sales"]);
    const store = await embeddedStore();
    const announcer = new RecordingAnnouncer();
    // Before: one chatbot, as main ran with CHATBOT_BOT_UID: its subscription, its poll.
    const single = chatbotsOn(simulator, [{ name: "default", botUid: "sim-bot" }]);
    await store.addToSet("leads:channels", "test:sales-team");
    const before = new LeadPoller({
      backend: single.default.client,
      store,
      channels: new LeadChannels(store, []),
      announcers: [announcer],
      log: silent,
      intervalMs: 60_000,
    });
    await before.pollOnce();
    simulator.addLead({ bot_uid: "sim-bot", name: "Ann Before" });
    await before.pollOnce();
    expect(announcer.in("sales-team")).toEqual(["Ann Before"]);
    expect(await store.get("leads:initialized")).toBeDefined();

    // Down for the upgrade: a lead comes meanwhile. Up again with CHATBOTS, the chatbot it
    // had first.
    simulator.addLead({ bot_uid: "sim-bot", name: "Ben Meanwhile" });
    simulator.addLead({ bot_uid: "sim-sales", name: "Sales History" });
    const chatbots = chatbotsOn(simulator, [
      { name: "support", botUid: "sim-bot" },
      { name: "sales", botUid: "sim-sales" },
    ]);
    const { channels, pollers } = pollersOf(chatbots, store, announcer);
    expect(await channels.of("support")).toEqual([{ platform: "test", id: "sales-team" }]);
    await channels.subscribe({ platform: "test", id: "deals" }, "sales");
    await pollAll(pollers);
    // The default's poll went on where it was: what came meanwhile is announced, nothing twice;
    // sales's first poll records its history without announcing it.
    expect(announcer.in("sales-team")).toEqual(["Ann Before", "Ben Meanwhile"]);
    expect(announcer.in("deals")).toEqual([]);
    expect(await store.get("leads:sim-bot:initialized")).toBeDefined();

    simulator.addLead({ bot_uid: "sim-sales", name: "Sal New" });
    simulator.addLead({ bot_uid: "sim-bot", name: "Sue New" });
    await pollAll(pollers);
    await pollAll(pollers);
    expect(announcer.in("sales-team")).toEqual(["Ann Before", "Ben Meanwhile", "Sue New"]);
    expect(announcer.in("deals")).toEqual(["Sal New"]);
    expect(announcer.posted.slice(-2)).toEqual([
      { channelId: "sales-team", name: "Sue New", chatbot: "support" },
      { channelId: "deals", name: "Sal New", chatbot: "sales" },
    ]);
  });

  it("moves the subscriptions a version that kept them by name stored to each chatbot's bot_uid, where a reorder of CHATBOTS leaves them", async () => {
    const store = await embeddedStore();
    // That version: the default chatbot's set had no name, the others' theirs.
    await store.addToSet("leads:channels", "test:support-team");
    await store.addToSet("leads:channels:sales", "test:sales-team");
    const support = { name: "support", botUid: "sim-support" };
    const sales = { name: "sales", botUid: "sim-sales" };
    const upgraded = new LeadChannels(store, [], { chatbots: [support, sales] });
    expect(await upgraded.of("support")).toEqual([{ platform: "test", id: "support-team" }]);
    expect(await upgraded.of("sales")).toEqual([{ platform: "test", id: "sales-team" }]);
    expect(await store.setMembers("leads:channels")).toEqual([]);
    expect(await store.setMembers("leads:channels:sales")).toEqual([]);
    // Sales first now: each channel keeps its chatbot.
    const reordered = new LeadChannels(store, [], { chatbots: [sales, support] });
    expect(await reordered.following({ platform: "test", id: "support-team" })).toEqual([
      "support",
    ]);
    expect(await reordered.of("sales")).toEqual([{ platform: "test", id: "sales-team" }]);
    await reordered.subscribe({ platform: "test", id: "new-team" });
    expect(await upgraded.following({ platform: "test", id: "new-team" })).toEqual(["sales"]);
  });

  it("tells two chatbots' leads apart even when the listings are alike", async () => {
    const simulator = await simulatorOf(["sim-support", "sim-sales"]);
    const store = await embeddedStore();
    const announcer = new RecordingAnnouncer();
    const chatbots = chatbotsOn(simulator, [
      { name: "support", botUid: "sim-support" },
      { name: "sales", botUid: "sim-sales" },
    ]);
    const { channels, pollers } = pollersOf(chatbots, store, announcer);
    const both = { platform: "test", id: "everything" };
    await channels.subscribe(both);
    await channels.subscribe(both, "sales");
    expect(await channels.following(both)).toEqual(["support", "sales"]);
    await pollAll(pollers);
    const same = {
      name: "Twin",
      conversation_uid: "conv-1",
      created_at: new Date(Date.now() - 60_000),
    };
    simulator.addLead({ ...same, bot_uid: "sim-support" });
    simulator.addLead({ ...same, bot_uid: "sim-sales" });
    await pollAll(pollers);
    await pollAll(pollers);
    expect(announcer.posted).toEqual([
      { channelId: "everything", name: "Twin", chatbot: "support" },
      { channelId: "everything", name: "Twin", chatbot: "sales" },
    ]);
    // Unsubscribing from one leaves the other; alone, it stops them all.
    expect(await channels.unsubscribe(both, "support")).toBe("changed");
    expect(await channels.following(both)).toEqual(["sales"]);
    expect(await channels.unsubscribe(both)).toBe("changed");
    expect(await channels.following(both)).toEqual([]);
  });

  it("names a chatbot the backend refuses in one log line, while the others' leads go on", async () => {
    // The simulator serves support only: sales's bot_uid is refused (HTTP 404).
    const simulator = await simulatorOf(["sim-support"]);
    const store = await embeddedStore();
    const announcer = new RecordingAnnouncer();
    const lines: { level: number; msg: string; chatbot?: string }[] = [];
    const log: Logger = createLogger({
      level: "warn",
      secrets: [],
      pretty: false,
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) {
            lines.push(JSON.parse(line));
          }
          done();
        },
      }),
    });
    const chatbots = chatbotsOn(
      simulator,
      [
        { name: "support", botUid: "sim-support" },
        { name: "sales", botUid: "sim-nope" },
      ],
      log,
    );
    const { channels, pollers } = pollersOf(chatbots, store, announcer, log);
    await channels.subscribe({ platform: "test", id: "team" });
    await channels.subscribe({ platform: "test", id: "team" }, "sales");
    const [support, sales] = pollers;
    await support?.pollOnce();
    simulator.addLead({ name: "Still Announced" });
    for (const poller of pollers) poller.start();
    cleanup.push(async () => {
      for (const poller of pollers) await poller.stop();
    });
    await until(() => announcer.posted.length === 1 && lines.length === 1);
    expect(announcer.in("team")).toEqual(["Still Announced"]);
    const refused = [
      expect.objectContaining({
        level: 50,
        chatbot: "sales",
        call: "leads",
        msg: "the chatbot sales was not found (HTTP 404): check CHATBOT_BASE_URL and the bot_uid of sales in CHATBOTS",
      }),
    ];
    expect(lines).toEqual(refused);
    // Refused again: the operator knows already.
    await expect(sales?.pollOnce()).rejects.toThrow("HTTP 404");
    expect(lines).toEqual(refused);
  });
});

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
