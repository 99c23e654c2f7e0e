import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTelegramChannel } from "../../adapters/telegram/index.ts";
import { telegramRenderer } from "../../adapters/telegram/render.ts";
import type { AnswerJournal } from "../../src/journal/answer-journal.ts";
import { createLogger } from "../../src/log.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { Store } from "../../src/store/types.ts";
import { type Harness, startHarness } from "../support/bridge-harness.ts";
import {
  journalEntries,
  journalRuns,
  recordingReads,
  settledJournal,
  testJournal,
} from "../support/journal.ts";
import { GROUP_EDIT_INTERVAL_MS, type Rig, type RigOptions, startRig, until } from "./rig.ts";

const CUT = "⚠️ answer cut off: interrupted";
const silent = createLogger({ level: "silent", secrets: [] });

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A bot with a journal, answering over the fake Bot API on a store that outlives it. */
async function startJournaledRig(options: Omit<RigOptions, "harness"> = {}): Promise<{
  rig: Rig;
  harness: Harness;
  store: Store;
  journal: AnswerJournal;
}> {
  const dataDir = await mkdtemp(join(tmpdir(), "journal-telegram-"));
  const store = await openStore({ dataDir });
  const journal = testJournal(store, { updateIntervalMs: 20 });
  const harness = await startHarness({
    store,
    simulator: { chunkDelayMs: 2 },
    bridge: { journal },
  });
  const rig = await startRig({ ...options, harness });
  cleanup.push(async () => {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  cleanup.push(() => harness.close());
  cleanup.push(async () => {
    // The abandoned answers end now, on the old bridge; the test has seen what it needed.
    await harness.simulator.close();
    await harness.bridge.drain(0);
    await rig.close();
  });
  return { rig, harness, store, journal };
}

describe("Telegram answers cut by a kill", () => {
  it("are finished by the next start: the message shows the text it had and the cut note", async () => {
    const { rig, store, journal } = await startJournaledRig();
    const { fake, alice, bob, dm, group } = rig;
    // Both answers stop half-way and never finish: then the process "dies".
    fake.write({ chat: dm.id, from: alice, text: "tell me everything #stall" });
    fake.write({ chat: group.id, from: bob, text: "@ChatBridgeBot and here? #stall" });
    // Quiet for twice the group's edit interval, the slower of the two.
    await settledJournal(store, journal.runId, { count: 2, quietMs: 2 * GROUP_EDIT_INTERVAL_MS });
    await rig.channel.stop();
    // In both chats a sent message was being edited.
    expect(fake.botMessages(dm.id)).toHaveLength(1);
    expect(fake.botMessages(dm.id)[0]?.text).not.toContain("⚠️");
    expect(fake.botMessages(group.id)).toHaveLength(1);
    expect(fake.botMessages(group.id)[0]?.text).not.toContain("⚠️");

    // The next start, on the same store: a new channel and a new journal finish them.
    const channel = nextStart(rig, store);
    const reading = recordingReads(store);
    const next = testJournal(reading.store);
    expect(await next.recover([channel])).toBe(2);
    const entries = reading.read;

    const markdownFor = (chatId: number) => {
      const entry = entries.find(
        (e) => (e.messages[0]?.ref as { chatId?: number } | undefined)?.chatId === chatId,
      );
      return entry?.messages[0]?.markdown ?? "";
    };
    const cutRaw = (markdown: string) =>
      `${telegramRenderer.render(markdown)}\n\n${telegramRenderer.note(CUT)}`;
    expect(markdownFor(dm.id)).not.toBe("");
    expect(markdownFor(group.id)).not.toBe("");
    // The private message is edited in place, once, with the note.
    const [sent] = fake.botMessages(dm.id);
    expect(fake.botMessages(dm.id)).toHaveLength(1);
    expect(sent?.raw).toBe(cutRaw(markdownFor(dm.id)));
    expect(sent?.text.endsWith(`\n\n${CUT}`)).toBe(true);
    // The group's message is edited in place, still quoting the question.
    const edited = fake.botMessages(group.id);
    expect(edited).toHaveLength(1);
    expect(edited[0]?.raw).toBe(cutRaw(markdownFor(group.id)));
    expect(edited[0]?.replyTo).toBeDefined();

    // Done once: the dead run's records and its listing are gone.
    expect(await journalEntries(store, journal.runId)).toEqual([]);
    expect(await journalRuns(store)).not.toContain(journal.runId);
    expect(await next.recover([channel])).toBe(0);
  });

  it("finish a guest answer too: its inline message shows the text it had and the cut note", async () => {
    const { rig, store, journal } = await startJournaledRig({
      fake: { guestQueries: true },
      channel: { guest: true },
    });
    const { fake, alice } = rig;
    const elsewhere = { id: -3001, type: "supergroup", title: "Elsewhere" } as const;
    fake.guest.mention({ chat: elsewhere, from: alice, text: "@ChatBridgeBot all #stall" });
    await settledJournal(store, journal.runId, { count: 1, quietMs: 2 * GROUP_EDIT_INTERVAL_MS });
    await rig.channel.stop();
    const [before] = fake.guest.messages(elsewhere.id);
    expect(before?.text).not.toContain("⚠️");

    expect(await testJournal(store).recover([nextStart(rig, store)])).toBe(1);
    const [after, ...more] = fake.guest.messages(elsewhere.id);
    expect(more).toHaveLength(0);
    expect(after?.text.endsWith(`\n\n${CUT}`)).toBe(true);
    expect(after?.text.startsWith(before?.text.replace(/…$/, "").trim() ?? "-")).toBe(true);
    expect(fake.callsTo("answerGuestQuery")).toHaveLength(1);
  });

  it("keeps no record of an answer that completed", async () => {
    const { rig, store, journal } = await startJournaledRig();
    const { fake, alice, dm } = rig;
    fake.write({ chat: dm.id, from: alice, text: "a short one" });
    await until(() => fake.botMessages(dm.id).length === 1, 5_000, "the answer");
    await rig.channel.settled();
    expect(fake.botMessages(dm.id)[0]?.text).not.toContain("⚠️");
    expect(await journalEntries(store, journal.runId)).toEqual([]);
    // Leaving the journal takes the run off the list: a later start has nothing to look at.
    expect(await journalRuns(store)).toContain(journal.runId);
    await journal.close();
    expect(await journalRuns(store)).toEqual([]);
  });
});

/** The Telegram channel the next process makes, used here only to finish journaled answers. */
function nextStart(rig: Rig, store: Store) {
  return createTelegramChannel({
    botToken: rig.fake.token,
    apiRoot: rig.fake.url,
    bridge: {
      receive: () => ({ accepted: Promise.resolve(false), done: Promise.resolve() }),
      stopInThread: async () => "none",
      keepQuiet: async () => {},
      endQuiet: async () => {},
    },
    store,
    log: silent,
  });
}
