import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { openStore } from "../../src/store/open-store.ts";
import { type FakeTelegram, startFakeTelegram } from "../support/fake-telegram.ts";
import { journalRuns } from "../support/journal.ts";
import { type BackendAddress, cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";
import { startTestRedis } from "../support/redis.ts";
import {
  botWorkDir,
  logEntries,
  type RunningBot,
  START_MS,
  startBot,
  until,
} from "../support/run-bot.ts";

const CUT = "\n\n⚠️ answer cut off: interrupted";

const track = cleanupAfterEach();

// Its tests start bot processes: on a loaded two-core machine a start alone takes seconds.
vi.setConfig({ testTimeout: 3 * START_MS, hookTimeout: 2 * START_MS });

/**
 * The way to start, again and again, the bot process whose kill a test is about: on `fake`
 * and `backend`, its DATA_DIR in a working directory of its own, killed after the test.
 */
async function killableBot(
  fake: FakeTelegram,
  backend: BackendAddress,
  env: Record<string, string>,
): Promise<{ start: () => RunningBot; dataDir: string }> {
  const cwd = await botWorkDir();
  const dataDir = join(cwd, "data");
  const settings = {
    ...telegramBotEnv(fake, backend),
    DATA_DIR: dataDir,
    LEADS_POLL_INTERVAL: "0",
    ...env,
  };
  const start = () => track(startBot({ cwd, env: settings }), (bot) => bot.stop("SIGKILL"));
  return { start, dataDir };
}

const redis = await startTestRedis("a bot killed mid-answer, on Redis");
afterAll(() => redis?.close());

describe.each([
  { store: "the embedded store", env: (): Record<string, string> => ({}) },
  ...(redis?.server
    ? [
        {
          store: "Redis",
          // The killed process's presence holds for TAKEOVER_MS (10 s by default) after the
          // kill: the next start's sweeps finish its answer once it lapsed, a second on.
          env: (): Record<string, string> => ({ STORE_URL: `${redis.url}/2`, TAKEOVER_MS: "1000" }),
        },
      ]
    : []),
])("a bot killed while an answer streams, on $store", ({ env }) => {
  it("shows after the restart at least what the message showed one edit before the kill", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    // About 150 chunks 60 ms apart: the answer is still streaming when the kill comes.
    const simulator = track(await startSimulator({ chunkDelayMs: 60 }), (s) => s.close());
    const alice = fake.user(1001, "Alice", "alice_example");
    const group = fake.addChat(
      { id: -1007, type: "supergroup", title: "Team" },
      { [alice.id]: "member" },
    );
    const { start } = await killableBot(fake, simulator, {
      // Edits and the journal's rounds (at the private chats' pace) 400 ms apart: the
      // record keeps up with the edits, the test with a few of them.
      TELEGRAM_GROUP_EDIT_INTERVAL_MS: "400",
      TELEGRAM_EDIT_INTERVAL_MS: "400",
      ...env(),
    });

    const first = start();
    await first.logLine("Telegram long polling started", START_MS);
    fake.write({ chat: group.id, from: alice, text: "@ChatBridgeBot everything #huge=6000" });
    const message = await until("the answer's second edit", () => {
      const [shown] = fake.botMessages(group.id);
      return shown && shown.history.length >= 2 ? shown : undefined;
    });
    // What a person read; then one edit interval and more passes, edits still coming.
    const read = message.text;
    const edits = message.history.length;
    await until("two edits later", () => message.history.length >= edits + 2 || undefined);
    expect(message.text.endsWith("to see more.")).toBe(false);
    expect(await first.stop("SIGKILL")).toBeNull();
    const lastShown = message.text;

    const second = start();
    await second.logLine({ msg: "interrupted answers finished", answers: 1 }, START_MS);
    expect(fake.botMessages(group.id)).toHaveLength(1);
    expect(message.text.endsWith(CUT)).toBe(true);
    const recovered = message.text.slice(0, -CUT.length);
    expect(recovered.length).toBeGreaterThanOrEqual(read.length);
    expect(recovered.startsWith(read.trimEnd())).toBe(true);
    expect(lastShown.startsWith(recovered.trimEnd())).toBe(true);
    expect(await second.stop("SIGTERM")).toBe(0);
  });
});

describe("a bot killed mid-answer (kill -9)", () => {
  // The journal's record is written before the final text goes, on either store alike.
  it("leaves an answer whose final edit reached Telegram as it was, 👍 and 👎 and all", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const alice = fake.user(1001, "Alice", "alice_example");
    const group = fake.addChat(
      { id: -1008, type: "supergroup", title: "Team" },
      { [alice.id]: "member" },
    );
    const { start } = await killableBot(fake, simulator, {});
    const first = start();
    await first.logLine("Telegram long polling started", START_MS);
    // The final edit is done, and the bot is killed before Telegram's reply reaches it.
    const votes = (call: { method: string; params: Record<string, unknown> }) =>
      call.method.startsWith("edit") && JSON.stringify(call.params.reply_markup).includes("👍");
    const finalEdit = fake.holdReply(votes);
    fake.write({ chat: group.id, from: alice, text: "@ChatBridgeBot tell me #pause=600" });
    await finalEdit;
    const [message] = fake.botMessages(group.id);
    const shown = message?.text;
    const buttons = JSON.stringify(message?.replyMarkup);
    expect(shown).not.toContain("⚠️");
    expect(buttons).toContain("👎");
    expect(await first.stop("SIGKILL")).toBeNull();

    const second = start();
    await second.logLine("interrupted answers finished", START_MS);
    expect(fake.botMessages(group.id)).toHaveLength(1);
    expect(message?.text).toBe(shown);
    expect(JSON.stringify(message?.replyMarkup)).toBe(buttons);
    expect(await second.stop("SIGTERM")).toBe(0);
  });

  it("finishes the interrupted answer on its next start, and leaves completed ones alone", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const alice = fake.user(1001, "Alice", "alice_example");
    const dm = fake.addChat({ id: alice.id, type: "private", first_name: "Alice" });
    const group = fake.addChat(
      { id: -1005, type: "supergroup", title: "Team" },
      { [alice.id]: "member" },
    );
    const { start, dataDir } = await killableBot(fake, simulator, {
      LOG_LEVEL: "debug",
      // The private answer streams as a draft, which no later process can edit: the one
      // case where recovery sends a message rather than editing the one there is.
      TELEGRAM_DRAFTS: "on",
    });

    // 1. Half an answer streams as a draft, the backend pauses, and the bot is killed.
    const first = start();
    await first.logLine("Telegram long polling started", START_MS);
    fake.write({ chat: dm.id, from: alice, text: "tell me everything #pause=30000" });
    await first.logLine("answer journaled");
    expect(fake.drafts(dm.id).size).toBe(1);
    expect(await first.stop("SIGKILL")).toBeNull();
    expect(fake.botMessages(dm.id)).toHaveLength(0);

    // 2. The next start finishes it: the draft's text is sent for good, with the cut note.
    const second = start();
    const recovered = await second.logLine("interrupted answers finished", START_MS);
    expect(recovered.answers).toBe(1);
    const [finished] = fake.botMessages(dm.id);
    expect(fake.botMessages(dm.id)).toHaveLength(1);
    expect(finished?.text.endsWith(CUT)).toBe(true);
    expect(finished?.text.startsWith("Hello!")).toBe(true);
    // What was journaled last (here the whole first half, sent at once) is what a person saw.
    const body = finished?.text.slice(0, -CUT.length) ?? "";
    const lastDraft = [...fake.drafts(dm.id).values()][0]?.at(-1) ?? "";
    expect(body.length).toBeGreaterThan(40);
    expect(lastDraft.startsWith(body)).toBe(true);

    // 3. An answer that completes leaves nothing to finish: a kill after it changes nothing.
    fake.write({ chat: group.id, from: alice, text: "@ChatBridgeBot a quick one" });
    await second.logLine("question answered");
    const answer = await until("the group answer", () => fake.botMessages(group.id)[0]);
    const shown = answer.text;
    const edits = answer.history.length;
    expect(shown).not.toContain("⚠️");
    expect(await second.stop("SIGKILL")).toBeNull();
    const third = start();
    expect((await third.logLine("interrupted answers finished", START_MS)).answers).toBe(0);
    expect(fake.botMessages(group.id)).toHaveLength(1);
    expect(answer.text).toBe(shown);
    expect(answer.history).toHaveLength(edits);
    expect(await third.stop("SIGTERM")).toBe(0);

    // Nothing is left in the journal for a later start.
    const store = await openStore({ dataDir });
    try {
      expect(await journalRuns(store)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("tells a question that waited silently behind the interrupted answer to ask again", async () => {
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const alice = fake.user(1001, "Alice", "alice_example");
    const dm = fake.addChat({ id: alice.id, type: "private", first_name: "Alice" });
    const { start } = await killableBot(fake, simulator, { LOG_LEVEL: "debug" });

    // The first answer pauses half-way; the second question waits for it, showing nothing.
    const first = start();
    await first.logLine("Telegram long polling started", START_MS);
    fake.write({ chat: dm.id, from: alice, text: "tell me everything #pause=30000" });
    await first.logLine("answer journaled");
    fake.write({ chat: dm.id, from: alice, text: "and this?" });
    // Journaled while it waits: the first answer's record, then its own.
    await until(
      "the waiting question journaled",
      () =>
        logEntries(first.stderr).filter((e) => e.msg === "answer journaled").length === 2 ||
        undefined,
    );
    expect(fake.botMessages(dm.id)).toHaveLength(1);
    expect(await first.stop("SIGKILL")).toBeNull();

    // The next start finishes the first answer and tells the second question's asker.
    const second = start();
    expect((await second.logLine("interrupted answers finished", START_MS)).answers).toBe(2);
    const texts = fake.botMessages(dm.id).map((m) => m.text);
    expect(texts).toHaveLength(2);
    expect(texts[0]?.endsWith(CUT)).toBe(true);
    expect(texts[1]).toBe(
      "⚠️ the bot is restarting and did not get to your question: please ask again in a minute",
    );
    expect(await second.stop("SIGTERM")).toBe(0);
  });
});
