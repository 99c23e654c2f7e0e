import { createClient } from "@keyv/redis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { STREAM_GROUP } from "../../src/coordination/work-stream.ts";
import type { FakeTelegram, Update } from "../support/fake-telegram.ts";
import { type HeldBackend, telegramWithHeldBackend } from "../support/held-backend.ts";
import {
  cleanupAfterAll,
  cleanupAfterEach,
  type Track,
  telegramBotEnv,
} from "../support/process-test.ts";
import { waitingForTheirThread } from "../support/question-states.ts";
import { startTestRedis } from "../support/redis.ts";
import {
  botWorkDir,
  logEntries,
  matchingLines,
  type RunningBot,
  START_MS,
  startBot,
  until,
} from "../support/run-bot.ts";

const redis = await startTestRedis("bot processes sharing the answer queue");
afterAll(() => redis?.close());
// The bots use the default key prefix, so they need a Redis of their own, not a shared one.
const ownRedis = redis?.server !== undefined;
if (redis && !ownRedis) console.warn("[shared answer queue] skipped: no redis-server of its own");

const SECRET = "shared-queue-secret";
const TAKEOVER_MS = 1_500;

// Each set of processes its own database: nothing one leaves behind (queue, journal, leases)
// reaches the next.
let database = 8;
/** A database no test of this file used yet. */
const freshDatabase = () => ++database;

const track = cleanupAfterEach();

// Its tests start bot processes: on a loaded two-core machine a start alone takes seconds.
vi.setConfig({ testTimeout: 3 * START_MS, hookTimeout: 2 * START_MS });

interface Bot {
  bot: RunningBot;
  url: string;
  /** The webhook, in webhook mode. */
  webhook: string;
}

/** A bot process on database `db` (the latest fresh one by default), closed by `keep`. */
async function startQueueBot(
  fake: FakeTelegram,
  backend: HeldBackend,
  env: Record<string, string>,
  { db = database, keep = track }: { db?: number; keep?: Track } = {},
): Promise<Bot> {
  const bot = keep(
    startBot({
      cwd: await botWorkDir(),
      env: {
        ...telegramBotEnv(fake, backend),
        STORE_URL: `${redis?.url}/${db}`,
        LEADS_POLL_INTERVAL: "0",
        // A dead process's questions are taken over after 1.5 s instead of 10 s.
        TAKEOVER_MS: String(TAKEOVER_MS),
        ...env,
      },
    }),
    (b) => b.stop("SIGKILL"),
  );
  const { port } = await bot.logLine("HTTP server listening (/healthz, /metrics)", START_MS);
  const url = `http://127.0.0.1:${port}`;
  return { bot, url, webhook: `${url}/telegram/webhook` };
}

function webhookEnv(): Record<string, string> {
  return {
    TELEGRAM_WEBHOOK_URL: "https://bot.example.com/telegram/webhook",
    TELEGRAM_WEBHOOK_SECRET: SECRET,
  };
}

async function deliver(webhook: string, update: Update): Promise<number> {
  const response = await fetch(webhook, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
    body: JSON.stringify(update),
  });
  await response.arrayBuffer();
  return response.status;
}

async function metric(bot: Bot, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${bot.url}/metrics`)).text();
  let total = 0;
  for (const match of text.matchAll(pattern)) total += Number(match[1]);
  return total;
}

const answered = (bot: Bot) => metric(bot, /^chatbot_bridge_questions_total\{[^}]*\} (\d+)$/gm);
const active = (bot: Bot) => metric(bot, /^chatbot_bridge_active_answers (\d+)$/gm);
const queued = (bot: Bot) => metric(bot, /^chatbot_bridge_queued_questions (\d+)$/gm);

/** `count` people, each in a private chat with the bot; `first`: the first one's id. */
function privateChats(fake: FakeTelegram, count: number, first = 2001) {
  return Array.from({ length: count }, (_, i) => {
    const person = fake.user(first + i, `Person ${i + 1}`);
    fake.addChat({ id: person.id, type: "private", first_name: person.first_name });
    return person;
  });
}

function untilCount(what: string, count: () => Promise<number>, wanted: number) {
  return until(what, async () => ((await count()) === wanted ? true : undefined));
}

/**
 * Resolves once each of `bots` (at debug level) ran two more journal sweeps than now: a whole
 * round of the renewals and the queue's rounds, which share the sweeps' beat, began and ended
 * since. A sweep is logged once other processes' runs are listed, as they are here.
 */
async function twoMoreRounds(...bots: Bot[]): Promise<void> {
  const sweeps = (bot: Bot) => matchingLines(bot.bot.stderr, "journal runs checked").length;
  const from = bots.map(sweeps);
  for (const [i, bot] of bots.entries()) {
    await until("two more rounds", () => sweeps(bot) >= (from[i] ?? 0) + 2 || undefined);
  }
}

/** Empties the Redis under the running bots, as a restart without persistence would. */
async function flushAll(): Promise<void> {
  const client = createClient({ url: redis?.url });
  await client.connect();
  try {
    await client.flushAll();
  } finally {
    client.destroy();
  }
}

const STORE_LOST =
  "the store lost its data (Redis restarted empty, or a failover to an empty replica): languages, chatbot choices, lead claims and what no running process held are gone; this process wrote back the lead channels, lead polls, conversations and threads it held";

/** The consumer groups of the answer queue's stream in database `db`, as an autoscaler reads them. */
async function queueGroups(db: number): Promise<string[]> {
  const client = createClient({ url: `${redis?.url}/${db}` });
  await client.connect();
  try {
    return (await client.xInfoGroups("chatbot-bridge:queue:answers")).map((g) => g.name);
  } catch {
    return [];
  } finally {
    client.destroy();
  }
}

describe.skipIf(!ownRedis)("bot processes on one Redis share one answer queue", () => {
  it("the elected poller's updates are answered by every process, each once, none past MAX_ACTIVE_ANSWERS", async () => {
    freshDatabase();
    const { fake, backend } = await telegramWithHeldBackend(track);
    const bots = await Promise.all(
      [1, 2, 3].map(() => startQueueBot(fake, backend, { MAX_ACTIVE_ANSWERS: "2" })),
    );
    await Promise.all(bots.map((b) => b.bot.logLine("channel started", START_MS)));
    const people = privateChats(fake, 10);
    for (const [i, person] of people.entries()) {
      fake.write({ chat: person.id, from: person, text: `q${i + 1}` });
    }

    await until("every process at its cap", () => (backend.open === 6 ? true : undefined));
    // The other four wait in the one queue, told their place.
    await until("four told their place", () => {
      const told = people.filter((p) =>
        fake.botMessages(p.id).at(-1)?.text.startsWith("⏳ many questions right now"),
      );
      return told.length === 4 ? true : undefined;
    });
    // Each process's gauge shows the one queue's depth (learnt within a third of TAKEOVER_MS).
    for (const bot of bots) await untilCount("the depth on every process", () => queued(bot), 4);
    // Every question is placed, and every process has looked at the queue since: none past its cap.
    expect(backend.open).toBe(6);
    expect(await Promise.all(bots.map(active))).toEqual([2, 2, 2]);

    backend.releaseAll();
    for (const [i, person] of people.entries()) {
      await until(`answer ${i + 1}`, () =>
        fake.botMessages(person.id).at(-1)?.text === `Answer to q${i + 1}.` ? true : undefined,
      );
    }
    // Each answered once: one message per chat, one request to the chatbot per question.
    for (const person of people) expect(fake.botMessages(person.id)).toHaveLength(1);
    expect([...backend.asked].sort()).toEqual(people.map((_, i) => `q${i + 1}`).sort());
    expect(backend.mostOpen).toBe(6);
    // Each process counts an answer once its last edit is through.
    const total = async () => (await Promise.all(bots.map(answered))).reduce((a, b) => a + b, 0);
    await untilCount("10 answers counted", total, 10);
    const perProcess = await Promise.all(bots.map(answered));
    for (const count of perProcess) expect(count).toBeGreaterThanOrEqual(2);
  });

  it("a thread's questions wait without a word for its earlier one, taken by another process; that process killed: the thread goes on within TAKEOVER_MS, each question answered once, in order", async () => {
    freshDatabase();
    const { fake, backend } = await telegramWithHeldBackend(track);
    // At debug level each process logs its questions' changes of state and its sweeps.
    const debug = { ...webhookEnv(), LOG_LEVEL: "debug" };
    const [taker, receiver] = await Promise.all([
      startQueueBot(fake, backend, { ...debug, MAX_ACTIVE_ANSWERS: "3" }),
      startQueueBot(fake, backend, { ...debug, MAX_ACTIVE_ANSWERS: "1" }),
    ]);
    await Promise.all(
      [taker, receiver].map((b) => b.bot.logLine("Telegram webhook registered", START_MS)),
    );
    const [alice, bob] = privateChats(fake, 2) as [
      ReturnType<typeof privateChats>[0],
      ReturnType<typeof privateChats>[0],
    ];
    const say = (person: typeof alice, text: string) =>
      deliver(receiver.webhook, fake.compose({ chat: person.id, from: person, text }));

    // Bob's question fills the receiver's room: Alice's q1 goes to the queue, and the taker
    // answers it.
    expect(await say(bob, "x")).toBe(200);
    await until("x answering", () => (backend.open === 1 ? true : undefined));
    expect(await say(alice, "q1")).toBe(200);
    await until("q1 answering", () => (backend.open === 2 ? true : undefined));
    expect(backend.asked).toEqual(["x", "q1"]);
    // An heir with room for both, up before the kill: what the takeover takes is TAKEOVER_MS,
    // not a start.
    const heirUp = startQueueBot(fake, backend, { ...debug, MAX_ACTIVE_ANSWERS: "3" });
    // q2 and q3 wait on the receiver for q1, on the other process: the thread keeps its order,
    // and Alice sees q1's answer moving, nothing else.
    for (const text of ["q2", "q3"]) expect(await say(alice, text)).toBe(200);
    await until("q2 and q3 waiting for q1", () =>
      waitingForTheirThread(logEntries(receiver.bot.stderr)).length === 2 ? true : undefined,
    );
    const heir = await heirUp;
    await twoMoreRounds(taker, receiver, heir);
    expect(backend.asked).toEqual(["x", "q1"]);
    const shown = () => fake.botMessages(alice.id).map((m) => m.text);
    expect(shown()).toEqual(["Answer to q1"]);

    expect(await taker.bot.stop("SIGKILL")).toBe(null);
    const killedAt = performance.now();
    // The heir takes q2 over; still, q3 waits for q2, whose place it keeps.
    await until("q2 taken over", () => (backend.asked.includes("q2") ? true : undefined));
    expect(performance.now() - killedAt).toBeLessThan(TAKEOVER_MS + 3_000);
    await twoMoreRounds(heir, receiver);
    expect(backend.asked).toEqual(["x", "q1", "q2"]);
    backend.releaseAll();
    await until("q3 answered", () => (shown().at(-1) === "Answer to q3." ? true : undefined));
    expect(backend.asked).toEqual(["x", "q1", "q2", "q3"]);
    // Each once, in question order; q1's answer, cut by the kill, ends saying so.
    expect(shown()).toEqual([
      "Answer to q1\n\n⚠️ answer cut off: interrupted",
      "Answer to q2.",
      "Answer to q3.",
    ]);
  });
});

type Person = ReturnType<typeof privateChats>[0];

// Its tests share the processes and the backend, each with people of its own; the last wipes
// Redis.
describe.skipIf(!ownRedis)("two bot processes with room for one answer each, on one Redis", () => {
  const keep = cleanupAfterAll();
  let fake: FakeTelegram;
  let backend: HeldBackend;
  let a: Bot;
  let b: Bot;
  const db = freshDatabase();
  beforeAll(async () => {
    ({ fake, backend } = await telegramWithHeldBackend(keep));
    const env = { ...webhookEnv(), MAX_ACTIVE_ANSWERS: "1", MAX_QUEUED_QUESTIONS: "2" };
    const start = () => startQueueBot(fake, backend, env, { db, keep });
    [a, b] = await Promise.all([start(), start()]);
    await Promise.all(
      [a, b].map((bot) => bot.bot.logLine("Telegram webhook registered", START_MS)),
    );
  });

  /** Its people, and what the chatbot was asked since, once the last test's answers are over. */
  async function begin(people: number, first: number) {
    backend.holdAgain();
    await until("the last test's answers over", () => backend.open === 0 || undefined);
    const from = backend.asked.length;
    return {
      people: privateChats(fake, people, first) as [Person, Person, Person, Person, ...Person[]],
      asked: () => backend.asked.slice(from),
    };
  }

  const say = (bot: Bot, person: Person, text: string) =>
    deliver(bot.webhook, fake.compose({ chat: person.id, from: person, text }));

  describe("bot processes on one Redis share one answer queue", () => {
    it("past MAX_QUEUED_QUESTIONS waiting in the shared queue, a new question is told the bot is busy", async () => {
      const { people, asked } = await begin(5, 2101);
      const send = (i: number, bot: Bot) => say(bot, people[i] as Person, `q${i + 1}`);
      const refused = async () => {
        const pattern = /^chatbot_bridge_questions_refused_total\{channel="telegram"\} (\d+)$/gm;
        return (await metric(a, pattern)) + (await metric(b, pattern));
      };
      const refusedBefore = await refused();
      await send(0, a);
      await send(1, b);
      await until("both processes answering", () => (backend.open === 2 ? true : undefined));
      // One after the other, each once in the queue: the last is the one past the bound.
      await send(2, a);
      await untilCount("q3 in the queue", () => queued(a), 1);
      await send(3, b);
      await untilCount("q4 in the queue", () => queued(b), 2);
      await send(4, a);
      const busy = "⏳ The bot is busy right now: please try again in a minute.";
      await until("q5 told the bot is busy", () =>
        fake.botMessages(people[4]?.id ?? 0).at(-1)?.text === busy ? true : undefined,
      );
      expect((await refused()) - refusedBefore).toBe(1);
      backend.releaseAll();
      for (const i of [0, 1, 2, 3]) {
        await until(`answer ${i + 1}`, () =>
          fake.botMessages(people[i]?.id ?? 0).at(-1)?.text === `Answer to q${i + 1}.`
            ? true
            : undefined,
        );
      }
      expect(asked()).toHaveLength(4);
    });

    it("a question waiting in the shared queue is withdrawn by its asker's stop at the other process: never asked, its notice says so", async () => {
      const { people, asked } = await begin(4, 2201);
      const [alice, bob, carol, dave] = people;
      // Each process answers one; Bob's and Carol's wait in the one queue.
      expect(await say(a, alice, "q1")).toBe(200);
      await until("q1 answering", () => (backend.open === 1 ? true : undefined));
      expect(await say(b, dave, "q2")).toBe(200);
      await until("q2 answering", () => (backend.open === 2 ? true : undefined));
      expect(await say(a, bob, "q3")).toBe(200);
      const notice = await until("q3 in line", () =>
        fake.botMessages(bob.id).find((m) => m.text.endsWith("yours is number 1 in line")),
      );
      expect(await say(a, carol, "q4")).toBe(200);
      await until(
        "q4 in line",
        () =>
          fake.botMessages(carol.id).at(-1)?.text.endsWith("yours is number 2 in line") ||
          undefined,
      );

      // Bob's stop reaches the process that did not queue his question.
      expect(await say(b, bob, "/stop")).toBe(200);
      await until("the notice withdrawn", () =>
        notice.text === "⏹ withdrawn by Person 2: this question will not be answered"
          ? true
          : undefined,
      );
      await until("the reply to the stop", () =>
        fake.botMessages(bob.id).at(-1)?.text === "⏹ Your waiting question was withdrawn."
          ? true
          : undefined,
      );
      await until(
        "carol moves up",
        () =>
          fake.botMessages(carol.id).at(-1)?.text.endsWith("yours is number 1 in line") ||
          undefined,
      );
      backend.releaseAll();
      await until("q4 answered", () =>
        fake.botMessages(carol.id).at(-1)?.text === "Answer to q4." ? true : undefined,
      );
      // Nothing is left in the queue nor answering that could still ask q3.
      const left = async () =>
        (await Promise.all([a, b].flatMap((bot) => [queued(bot), active(bot)]))).reduce(
          (x, y) => x + y,
          0,
        );
      await untilCount("the queue empty, both processes idle", left, 0);
      expect([...asked()].sort()).toEqual(["q1", "q2", "q4"]);
    });
  });

  describe("the shared queue on a Redis that lost its data", () => {
    it("a FLUSHALL: each process says so, the stream and its group come back by themselves, and a question handed to the shared queue is answered by the process with room", async () => {
      const { people } = await begin(4, 2301);
      const [alice, bob, carol, dave] = people;
      const answeredAs = (person: Person, text: string) =>
        until(`${text} answered`, () =>
          fake.botMessages(person.id).at(-1)?.text === `Answer to ${text}.` ? true : undefined,
        );
      // Before the wipe: the queue in use, its stream and group made.
      expect(await say(a, alice, "q1")).toBe(200);
      await until("q1 answering", () => (backend.open === 1 ? true : undefined));
      expect(await say(a, bob, "q2")).toBe(200);
      await until("q2 answering on the other process", () =>
        backend.open === 2 ? true : undefined,
      );
      backend.release((question) => question === "q1" || question === "q2");
      await answeredAs(alice, "q1");
      await answeredAs(bob, "q2");

      await flushAll();
      // Each process notices at its next presence renewal (every third of TAKEOVER_MS), and the
      // stream and its group are back by themselves, before any question is added.
      await Promise.all([a, b].map((bot) => bot.bot.logLine({ msg: STORE_LOST }, 10_000)));
      await untilCount("the queue's group back", async () => (await queueGroups(db)).length, 1);
      expect(await queueGroups(db)).toEqual([STREAM_GROUP]);

      // After it: a question past the receiver's cap goes to the shared queue and is answered.
      expect(await say(a, carol, "q3")).toBe(200);
      await until("q3 answering", () => (backend.open === 1 ? true : undefined));
      expect(await say(a, dave, "q4")).toBe(200);
      await until("q4 answering on the other process", () =>
        backend.open === 2 ? true : undefined,
      );
      backend.releaseAll();
      await answeredAs(carol, "q3");
      await answeredAs(dave, "q4");
    });
  });
});
