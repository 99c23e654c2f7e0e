import { afterAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { afterLeadPolls } from "../support/bot-rounds.ts";
import { FakeSlack } from "../support/fake-slack.ts";
import {
  freshDataDir,
  runBotInProcess,
  slackEventsOf,
  trackedBot,
} from "../support/in-process-bot.ts";
import { cleanupAfterEach, slackBotEnv } from "../support/process-test.ts";
import { startTestRedis } from "../support/redis.ts";
import { logEntries, until } from "../support/run-bot.ts";
import { adminCommand, deliverEvent, mention } from "../support/slack-harness.ts";

const redis = await startTestRedis("several chatbots across two processes");
afterAll(() => redis?.close());
// The bots use the default key prefix, so they need a Redis of their own, not a shared one.
const ownRedis = redis?.server !== undefined;
if (redis && !ownRedis) console.warn("[several chatbots] skipped: no redis-server of its own");

const track = cleanupAfterEach();
const CHATBOTS = "support:sim-support,sales:sim-sales";

/**
 * A bot on Slack over HTTP with two chatbots, on the test's Redis (or, with `dataDir`, the
 * embedded store there), polling every second; resolves once it takes questions.
 */
async function startSlackBot(
  fake: FakeSlack,
  simulator: Simulator,
  options: { dataDir?: string; chatbots?: string } = {},
) {
  const bot = trackedBot(track, {
    ...slackBotEnv({ apiUrl: fake.apiUrl, botToken: fake.options.botToken }, simulator),
    CHATBOT_BOT_UID: "",
    CHATBOTS: options.chatbots ?? CHATBOTS,
    ...(options.dataDir ? { DATA_DIR: options.dataDir } : { STORE_URL: `${redis?.url}/3` }),
    LEADS_POLL_INTERVAL: "1",
  });
  return { bot, events: await slackEventsOf(bot) };
}

/** The names on the lead cards in a channel, in order. */
const cardsIn = (fake: FakeSlack, channel: string) =>
  [...fake.messages.values()]
    .filter((m) => m.channel === channel && m.text.startsWith("New lead"))
    .map((m) => m.text.replace(/^New lead: /, ""));

describe.skipIf(!ownRedis)("two chatbots in one deployment of two processes on one Redis", () => {
  it("routes a channel by /chatbot-use in either process, and announces each chatbot's leads once in its own lead channels, across a restart", async () => {
    const fake = track(
      await FakeSlack.start({
        team: "T0FAKE",
        users: { U1: {}, UADMIN: { isAdmin: true } },
        channels: { C1: { type: "channel" }, C2: { type: "channel" } },
      }),
      (f) => f.close(),
    );
    const simulator = track(
      await startSimulator({ chunkDelayMs: 0, leads: 0, bots: ["sim-support", "sim-sales"] }),
      (s) => s.close(),
    );
    const [a, b] = [await startSlackBot(fake, simulator), await startSlackBot(fake, simulator)];
    const both = () => a.bot.stderr + b.bot.stderr;
    // Each chatbot's first poll, by whichever process holds its lease.
    await until("both chatbots' first polls", () =>
      (both().match(/first lead poll: existing leads recorded as seen/g)?.length ?? 0) >= 2
        ? true
        : undefined,
    );

    // C1 gets support's leads (the default), C2 sales's; each asked of a different process.
    expect(await adminCommand(a.events, fake, "/leads", "subscribe", "C1")).toBe(200);
    expect(await adminCommand(b.events, fake, "/leads", "subscribe sales", "C2")).toBe(200);
    // C2's questions go to sales, chosen through one process, asked through the other.
    expect(await adminCommand(a.events, fake, "/chatbot-use", "sales", "C2")).toBe(200);
    await until("the three replies", () => (fake.responses.length >= 3 ? true : undefined));
    expect(fake.responses.map((r) => r.text).sort()).toEqual([
      "New conversations here now go to sales. A conversation under way stays with its chatbot; `@chatbot new` starts a new one.",
      "This channel now gets the new leads of sales.",
      "This channel now gets the new leads of support.",
    ]);
    const ts = "1700000100.000100";
    expect(await deliverEvent(b.events, mention("what do you sell?", { ts, channel: "C2" }))).toBe(
      200,
    );
    const answer = await until("the answer in C2", () =>
      fake.thread("C2", ts).find((m) => m.text.includes("to see more.")),
    );
    expect(answer.text).toContain("simulated chatbot `sim-sales`");

    simulator.addLead({ bot_uid: "sim-support", name: "Sam Support" });
    simulator.addLead({ bot_uid: "sim-sales", name: "Sally Sales" });
    await until("each lead in its channel", () =>
      cardsIn(fake, "C1").length > 0 && cardsIn(fake, "C2").length > 0 ? true : undefined,
    );
    // Another poll of each, to its end: nothing is posted twice.
    await afterLeadPolls(simulator, ["sim-support", "sim-sales"]);
    expect(cardsIn(fake, "C1")).toEqual(["Sam Support"]);
    expect(cardsIn(fake, "C2")).toEqual(["Sally Sales"]);

    // Both stop; a new process goes on where they were.
    await a.bot.stop();
    await b.bot.stop();
    const c = await startSlackBot(fake, simulator);
    simulator.addLead({ bot_uid: "sim-sales", name: "Second Sale" });
    simulator.addLead({ bot_uid: "sim-support", name: "Second Support" });
    await until("the new leads", () =>
      cardsIn(fake, "C1").length > 1 && cardsIn(fake, "C2").length > 1 ? true : undefined,
    );
    await afterLeadPolls(simulator, ["sim-support", "sim-sales"]);
    expect(cardsIn(fake, "C1")).toEqual(["Sam Support", "Second Support"]);
    expect(cardsIn(fake, "C2")).toEqual(["Sally Sales", "Second Sale"]);
    for (const bot of [a.bot, b.bot, c.bot]) {
      expect(bot.stderr + bot.stdout).not.toMatch(/Sam Support|Sally Sales|Second S/);
    }
  });
});

describe("a lead channel subscribed to a chatbot by name", () => {
  it("keeps that chatbot's leads after a restart with CHATBOTS reordered: each team's chat gets its own chatbot's leads only", async () => {
    const fake = track(
      await FakeSlack.start({
        team: "T0FAKE",
        users: { UADMIN: { isAdmin: true } },
        channels: { C1: { type: "channel" }, C2: { type: "channel" } },
      }),
      (f) => f.close(),
    );
    const simulator = track(
      await startSimulator({ chunkDelayMs: 0, leads: 0, bots: ["sim-support", "sim-sales"] }),
      (s) => s.close(),
    );
    // One process on its embedded store: the restart finds what it stored under DATA_DIR.
    const dataDir = await freshDataDir();
    const before = await startSlackBot(fake, simulator, { dataDir });
    await until("both chatbots' first polls", () =>
      (before.bot.stderr.match(/first lead poll: existing leads recorded as seen/g)?.length ?? 0) >=
      2
        ? true
        : undefined,
    );
    // C1 is the support team's chat, C2 the sales team's; support is the default.
    expect(await adminCommand(before.events, fake, "/leads", "subscribe support", "C1")).toBe(200);
    expect(await adminCommand(before.events, fake, "/leads", "subscribe sales", "C2")).toBe(200);
    await until("both replies", () => (fake.responses.length >= 2 ? true : undefined));
    expect(fake.responses.map((r) => r.text)).toEqual([
      "This channel now gets the new leads of support.",
      "This channel now gets the new leads of sales.",
    ]);
    await before.bot.stop();

    // The operator lists sales first now: sales becomes the default chatbot.
    const after = await startSlackBot(fake, simulator, {
      dataDir,
      chatbots: "sales:sim-sales,support:sim-support",
    });
    simulator.addLead({ bot_uid: "sim-support", name: "Sam Support", email: "sam@example.com" });
    simulator.addLead({ bot_uid: "sim-sales", name: "Sally Sales", email: "sally@example.com" });
    await Promise.all(
      ["support", "sales"].map((chatbot) => after.bot.logLine({ msg: "leads announced", chatbot })),
    );
    // Another poll of each, to its end: nothing else arrives anywhere.
    await afterLeadPolls(simulator, ["sim-support", "sim-sales"]);
    expect(cardsIn(fake, "C1")).toEqual(["Sam Support"]);
    expect(cardsIn(fake, "C2")).toEqual(["Sally Sales"]);

    // `/leads` in the support team's chat lists support's leads, none of sales's.
    expect(await adminCommand(after.events, fake, "/leads", "", "C1")).toBe(200);
    const listing = await until("the listing", () => fake.responses[2]?.text);
    expect(listing).toContain("Sam Support");
    expect(listing).not.toContain("Sally");
  });
});

describe("several chatbots in the terminal", () => {
  it("with SIMULATOR_BOTS it lists them, and /chatbot use picks one", async () => {
    const run = await runBotInProcess({
      env: { SIMULATOR_BOTS: "support,sales" },
      // `#fast`: the built-in simulated chatbot streams its answers without pauses.
      input: "/chatbot\nhello #fast\n/chatbot use sales\n/new\nhello again #fast\n",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "Questions here go to support, the default. Chatbots: support, sales. Admins can change it with `/chatbot use <name>`.",
    );
    const answers = run.stdout.match(/simulated chatbot `([^`]+)`/g);
    expect(answers).toEqual(["simulated chatbot `sim-support`", "simulated chatbot `sim-sales`"]);
  });

  it("names a chatbot the backend refuses, to the person and in one log line, while the other answers", async () => {
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const run = await runBotInProcess({
      env: {
        CHATBOT_BASE_URL: simulator.url,
        CHATBOT_API_KEY: simulator.apiKey,
        CHATBOTS: "good:sim-bot,bad:no-such-bot",
      },
      input: "/chatbot use bad\nhello\n/chatbot use good\n/new\nhello again\n",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "⚠️ bad: the chatbot was not found (HTTP 404): check the base URL and the bot id",
    );
    expect(run.stdout).toContain("This is the simulated chatbot.");
    const errors = logEntries(run.stderr).filter((entry) => entry.level >= 50);
    expect(errors.map((e) => [e.chatbot, e.msg])).toEqual([
      [
        "bad",
        "the chatbot bad was not found (HTTP 404): check CHATBOT_BASE_URL and the bot_uid of bad in CHATBOTS",
      ],
    ]);
  });

  it("will not start with both CHATBOTS and CHATBOT_BOT_UID, naming both", async () => {
    const run = await runBotInProcess({
      env: {
        CHATBOT_BASE_URL: "http://127.0.0.1:9",
        CHATBOT_API_KEY: "key",
        CHATBOT_BOT_UID: "one",
        CHATBOTS: "support:one,sales:two",
      },
      input: "",
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "chatbot-bridge cannot start: invalid configuration:\n  - CHATBOTS and CHATBOT_BOT_UID are both set: name every chatbot in CHATBOTS and unset CHATBOT_BOT_UID, or keep CHATBOT_BOT_UID alone for one chatbot\n",
    );
  });
});
