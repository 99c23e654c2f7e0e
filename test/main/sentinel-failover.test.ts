import { describe, expect, it, vi } from "vitest";
import { startFakeTelegram, type Update } from "../support/fake-telegram.ts";
import { trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";
import { hasRedisServerBinary, spawnSentinelSet } from "../support/redis.ts";
import { until } from "../support/run-bot.ts";
import { startScriptedBackend } from "../support/scripted-answers.ts";
import { tempDirs } from "../support/temp-dirs.ts";

const ownServers = hasRedisServerBinary();
if (!ownServers) {
  if (process.env.REQUIRE_REDIS === "1") throw new Error("REQUIRE_REDIS=1 but no redis-server");
  console.warn("[sentinel failover] skipped: no redis-server on PATH to start a Sentinel with");
}

const track = cleanupAfterEach();
const tempDir = tempDirs("sentinel-bot-");
vi.setConfig({ testTimeout: 60_000 });

const ERROR = 50;

describe.skipIf(!ownServers)("the bot on Redis through Sentinel", () => {
  it("goes on through a failover: the answer streaming finishes, /readyz says 503 while no primary answers, and the thread keeps its conversation", async () => {
    const set = track(await spawnSentinelSet(await tempDir()), (s) => s.close());
    const telegram = track(await startFakeTelegram(), (f) => f.close());
    const chatbot = track(await startScriptedBackend(), (b) => b.close());
    const alice = telegram.user(1001, "Alice");
    const team = telegram.addChat({ id: -1001, type: "supergroup", title: "Team" });
    const env = telegramBotEnv(telegram, {
      url: chatbot.backend.url,
      apiKey: "key",
      botUid: "bot-1",
    });
    // No lead poll: each of the backend's answers is a question's.
    const bot = trackedBot(track, { ...env, ...set.env, LEADS_POLL_INTERVAL: "0" });
    const { port } = await bot.started;
    const readyz = async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status;
    await until("the bot ready", async () => ((await readyz()) === 200 ? true : undefined));
    const answerOf = (question: Update) =>
      telegram.botMessages(team.id).find((m) => m.replyTo === question.message.message_id);

    // A first answer, whose conversation the store keeps.
    const first = telegram.write({ chat: team.id, from: alice, text: "@ChatBridgeBot hello?" });
    chatbot.answer(1).send("Hello there.");
    chatbot.answer(1).end();
    await until("the first answer", () =>
      answerOf(first)?.text === "Hello there." ? true : undefined,
    );

    // A second one is streaming when the primary dies.
    const second = telegram.write({ chat: -1001, from: alice, text: "@ChatBridgeBot and then?" });
    chatbot.answer(2).send("The start, ");
    await until("the second answer begun", () =>
      answerOf(second)?.text.startsWith("The start") ? true : undefined,
    );
    await set.primary.stop();
    await until("/readyz 503 while no primary answers", async () =>
      (await readyz()) === 503 ? true : undefined,
    );
    // Said at start for the first primary, and again for the one it moved to.
    await bot.logLine(
      {
        msg: "the store's primary is at this address (Sentinel)",
        primary: `127.0.0.1:${set.replica.port}`,
      },
      20_000,
    );
    await until("/readyz 200 on the new primary", async () =>
      (await readyz()) === 200 ? true : undefined,
    );
    chatbot.answer(2).send("and the end.");
    chatbot.answer(2).end();
    await until("the second answer whole", () =>
      answerOf(second)?.text === "The start, and the end." ? true : undefined,
    );

    // The thread of the first question goes on in its conversation, read from the new primary.
    const followUp = telegram.write({
      chat: team.id,
      from: alice,
      text: "and more?",
      replyTo: answerOf(first)?.message_id,
    });
    chatbot.answer(3).send("More.");
    chatbot.answer(3).end();
    await until("the follow-up's answer", () =>
      answerOf(followUp)?.text === "More." ? true : undefined,
    );
    const asked = chatbot.backend.requests.map(
      (r) => JSON.parse(r.body) as Record<string, unknown>,
    );
    expect(asked[2]?.conversation_uid).toBe("conv-1");
    // The outage is one line; nothing else at error level, and no stack.
    expect(bot.logs.filter((e) => e.level >= ERROR).map((e) => e.msg)).toEqual([
      "store unreachable; retrying in the background",
    ]);
  });
});
