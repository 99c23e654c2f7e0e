import { afterAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { questionsUnderWay } from "../support/bot-rounds.ts";
import {
  type FakeTelegram,
  startFakeTelegram,
  type Update,
  type User,
} from "../support/fake-telegram.ts";
import { type InProcessBot, trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";
import { startTestRedis } from "../support/redis.ts";
import { botWorkDir, type RunningBot, startBot, until } from "../support/run-bot.ts";

const redis = await startTestRedis("elected Telegram poller");
afterAll(() => redis?.close());
// The bots use the default key prefix, so they need a Redis of their own, not a shared one.
const ownRedis = redis?.server !== undefined;
if (redis && !ownRedis)
  console.warn("[elected Telegram poller] skipped: no redis-server of its own");

const POLLING = "Telegram long polling started";
const STANDING_BY = "Telegram polling: standing by, another process polls";

const track = cleanupAfterEach();
// A process of its own (the poller to kill) starts in seconds on a busy machine: tsx compiles it.
const SPAWNED_MS = 60_000;

interface Rig<P extends RunningBot | InProcessBot = RunningBot | InProcessBot> {
  fake: FakeTelegram;
  /** People in private chats with the bot. */
  people: User[];
  /** The two processes, by the name the fake records their calls under. */
  poller: { name: string; bot: P };
  standby: { name: string; bot: InProcessBot; healthz: string };
}

/**
 * The fake Telegram and chatbot of two bot processes long-polling one bot token on one Redis
 * database, and how each starts. A bot in the test's process has its own store connection and
 * process id: a process of the deployment; it logs at debug level (each question's changes of
 * state). Each test takes a database of its own: the fake numbers its messages from 1 again,
 * and the bots would take them for deliveries already answered.
 */
async function deployment(options: { takeoverMs: number; database: number }) {
  const fake = track(await startFakeTelegram(), (f) => f.close());
  const simulator: Simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
  const people = [fake.user(1001, "Alice"), fake.user(1002, "Bob"), fake.user(1003, "Carol")];
  for (const person of people) {
    fake.addChat({ id: person.id, type: "private", first_name: person.first_name });
  }
  const envOf = (name: string) => ({
    ...telegramBotEnv(fake, simulator),
    TELEGRAM_API_ROOT: fake.apiRootFor(name),
    STORE_URL: `${redis?.url}/${options.database}`,
    LEADS_POLL_INTERVAL: "0",
    TAKEOVER_MS: String(options.takeoverMs),
    LOG_LEVEL: "debug",
  });
  const inProcess = async (name: string) => {
    const bot = trackedBot(track, envOf(name));
    // Started once the channel polls or stands by.
    const { port } = await bot.started;
    return { name, bot, healthz: `http://127.0.0.1:${port}/healthz` };
  };
  return { fake, people, envOf, inProcess };
}

/** Two bots in the test's process; whichever wins the election polls. */
async function startTwo(options: {
  takeoverMs: number;
  database: number;
}): Promise<Rig<InProcessBot>> {
  const { fake, people, inProcess } = await deployment(options);
  const both = await Promise.all([inProcess("a"), inProcess("b")]);
  const polling = both.filter(({ bot }) => bot.stderr.includes(POLLING));
  const waiting = both.filter(({ bot }) => bot.stderr.includes(STANDING_BY));
  expect(polling).toHaveLength(1);
  expect(waiting).toHaveLength(1);
  const [poller, standby] = [polling[0], waiting[0]];
  if (!poller || !standby) throw new Error("no poller and standby");
  return { fake, people, poller, standby };
}

/** The poller a process of its own (`npm start`'s) for the test to kill, started first. */
async function startKillablePoller(options: {
  takeoverMs: number;
  database: number;
}): Promise<Rig<RunningBot>> {
  const { fake, people, envOf, inProcess } = await deployment(options);
  const bot = track(startBot({ cwd: await botWorkDir(), env: envOf("a") }), (b) =>
    b.stop("SIGKILL"),
  );
  await bot.logLine(POLLING, SPAWNED_MS / 2);
  const standby = await inProcess("b");
  expect(standby.bot.stderr).toContain(STANDING_BY);
  return { fake, people, poller: { name: "a", bot }, standby };
}

/** Everyone asks `question` in their chat at once; resolves when every answer is complete. */
async function askAll(rig: Rig, question: string): Promise<Update[]> {
  const { fake, people } = rig;
  const updates = people.map((person) =>
    fake.write({ chat: person.id, from: person, text: question }),
  );
  await until(`the answers to "${question}"`, () =>
    people.every((person) =>
      answersTo(rig, person, question).some((m) => m.text.includes("to see more.")),
    )
      ? true
      : undefined,
  );
  return updates;
}

const answersTo = (rig: Rig, person: User, question: string) =>
  rig.fake.botMessages(person.id).filter((m) => m.text.includes(`You asked: “${question}”`));

/** Neither process was cut off by another poller: Telegram answers that with 409 Conflict. */
function expectNoConflict(rig: Rig): void {
  for (const { bot } of [rig.poller, rig.standby]) expect(bot.stderr).not.toContain("409 Conflict");
}

/** Each person got exactly one answer to each question. */
function expectAnsweredOnce(rig: Rig, questions: string[]): void {
  for (const person of rig.people) {
    for (const question of questions) expect(answersTo(rig, person, question)).toHaveLength(1);
  }
}

const answeredBy = (bot: RunningBot | InProcessBot) =>
  bot.stderr.match(/"msg":"question answered"/g)?.length ?? 0;

const pollsBy = (fake: FakeTelegram, caller: string) =>
  fake.callsTo("getUpdates").filter((call) => call.caller === caller);

describe.skipIf(!ownRedis)("two bot processes long-polling one Telegram bot on one Redis", () => {
  it(
    "poll from one process only, and the other takes over within the lease after a kill -9",
    async () => {
      const rig = await startKillablePoller({ takeoverMs: 1_500, database: 6 });
      const { fake, poller, standby } = rig;
      // Standing by is a healthy state.
      expect((await fetch(standby.healthz)).status).toBe(200);

      await askAll(rig, "before the kill");
      expect(pollsBy(fake, poller.name).length).toBeGreaterThanOrEqual(2);
      expect(pollsBy(fake, standby.name)).toHaveLength(0);

      // Killed once its answers are over, journal included: a kill between an answer's last
      // message and the end of its journal record would have the answer finished once more.
      await until("the answers logged", () =>
        answeredBy(poller.bot) === rig.people.length ? true : undefined,
      );
      expect(await poller.bot.stop("SIGKILL")).toBeNull();
      const killedAt = performance.now();
      await askAll(rig, "after the kill");
      await standby.bot.logLine(POLLING);
      const [takeover] = pollsBy(fake, standby.name);
      // The lease lapses within 1.5 s of the last renewal; the standby tries every 0.5 s.
      expect((takeover?.at ?? Infinity) - killedAt).toBeLessThan(3_000);

      // Never two pollers at once: Telegram (and the fake) would have cut one with 409.
      expect(fake.callsTo("getUpdates").filter((call) => call.errorCode === 409)).toEqual([]);
      expectNoConflict(rig);
      // A chat's deliveries are taken in order: with the answers after the kill shown, a
      // delivery the poller took before it (again, from the standby) has been taken or refused.
      // Once none is under way, a second answer would show.
      await until("the standby's questions over", () =>
        questionsUnderWay(standby.bot.logs).length === 0 ? true : undefined,
      );
      expectAnsweredOnce(rig, ["before the kill", "after the kill"]);
    },
    SPAWNED_MS,
  );

  it("hand polling over at once when the poller stops the orderly way (SIGTERM's), its updates confirmed", async () => {
    // A long lease: a takeover by its lapse would take 4 s or more after the poller's exit.
    const rig = await startTwo({ takeoverMs: 6_000, database: 7 });
    const { fake, poller, standby } = rig;
    const taken = await askAll(rig, "before the stop");
    expect(pollsBy(fake, standby.name)).toHaveLength(0);

    expect(await poller.bot.stop()).toBe(0);
    const exitedAt = performance.now();
    // Its last call confirms the updates it took, so the next poller does not get them again.
    const last = pollsBy(fake, poller.name).at(-1);
    const lastTaken = Math.max(...taken.map((update) => update.update_id));
    expect(last?.params).toMatchObject({ offset: lastTaken + 1, timeout: 0, limit: 1 });

    await standby.bot.logLine(POLLING);
    await askAll(rig, "after the stop");
    const [takeover] = pollsBy(fake, standby.name);
    // The standby's next try (every 2 s) finds the lease released: under 4 s, where a lapse
    // would take longer (with half a second for timers on a busy machine).
    expect((takeover?.at ?? Infinity) - exitedAt).toBeLessThan(3_500);
    expect(takeover?.at ?? 0).toBeGreaterThan(last?.at ?? Infinity);
    // (The fake may record a 409 for the poll the stopping process had just abandoned.)
    expectNoConflict(rig);
    expectAnsweredOnce(rig, ["before the stop", "after the stop"]);
  });
});
