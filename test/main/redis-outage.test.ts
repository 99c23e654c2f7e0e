import { describe, expect, it, vi } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { startFakeTelegram } from "../support/fake-telegram.ts";
import { cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";
import { freePort, hasRedisServerBinary, spawnRedisServer } from "../support/redis.ts";
import {
  botWorkDir,
  logEntries,
  matchingLines,
  runBot,
  START_MS,
  startBot,
  until,
} from "../support/run-bot.ts";

const ownServer = hasRedisServerBinary();
if (!ownServer) console.warn("[redis outage] skipped: no redis-server on PATH to stop and restart");

const track = cleanupAfterEach();

// Its tests start bot processes: on a loaded two-core machine a start alone takes seconds.
vi.setConfig({ testTimeout: 3 * START_MS, hookTimeout: 2 * START_MS });

const WARN = 40;

describe.skipIf(!ownServer)("a Redis outage, as the operator reads it in the log", () => {
  it("is logged once when it starts and once when it ends, with nothing in between", async () => {
    const redis = track(await spawnRedisServer(), (r) => r.close());
    const fake = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ leads: 1 }), (s) => s.close());
    const sales = fake.addChat({ id: -1009, type: "supergroup", title: "Sales" });
    const bot = track(
      startBot({
        cwd: await botWorkDir(),
        env: {
          ...telegramBotEnv(fake, simulator),
          STORE_URL: redis.url,
          // Everything that touches the store on its own runs every 500 ms or so: the
          // Telegram poller's and the lead poll's leases, the journal's sweep, the lead poll.
          TAKEOVER_MS: "1500",
          LEADS_POLL_INTERVAL: "1",
          LEADS_TELEGRAM_CHATS: String(sales.id),
          // Each job's failures are told at debug level: the test sees them happen.
          LOG_LEVEL: "debug",
        },
      }),
      (b) => b.stop("SIGKILL"),
    );
    await bot.logLine("first lead poll: existing leads recorded as seen, not announced", START_MS);
    const before = logEntries(bot.stderr).length;

    await redis.stop();
    const down = await bot.logLine("store unreachable; retrying in the background");
    const downSeen = performance.now();
    // Every periodic job that touches the store fails several times over, quietly: the
    // presence's renewal every 500 ms, the lead poll at its next round and a second after.
    // (The journal's sweep, alone, reads the store only now and then: docs/architecture.md.)
    const failures = {
      "could not renew this process's presence": 3,
      "lead poll failed; retrying later": 2,
    };
    for (const [msg, times] of Object.entries(failures)) {
      await until(`"${msg}" ${times} times`, () =>
        matchingLines(bot.stderr, msg, before).length >= times ? true : undefined,
      );
    }
    const downFor = performance.now() - downSeen;
    await redis.start();
    const up = await bot.logLine("store reachable again");

    const during = logEntries(bot.stderr).slice(before);
    const ended = during.findIndex((e) => e.msg === "store reachable again");
    expect(during.slice(0, ended).filter((e) => e.level >= WARN)).toEqual([down]);
    expect(down).toMatchObject({
      level: 50,
      store: `redis 127.0.0.1:${redis.port}`,
      // Which word the system gives depends on where the connection was when Redis went.
      reason: expect.stringMatching(/closed|ECONNREFUSED|ECONNRESET/i),
    });
    expect(up).toMatchObject({ level: 30, store: `redis 127.0.0.1:${redis.port}` });
    // Counted from the first failure to the first success: longer than the test saw it.
    expect(up.downMs).toBeGreaterThanOrEqual(downFor);

    // And the bot works again: a question after the outage is answered.
    const alice = fake.user(1001, "Alice", "alice_example");
    const dm = fake.addChat({ id: alice.id, type: "private", first_name: "Alice" });
    fake.write({ chat: dm.id, from: alice, text: "still there?" });
    await bot.logLine("question answered");
  });
});

describe("a question while the store is down", () => {
  it("is told the storage is unavailable, and the log keeps to the outage's one line", async () => {
    // A port nothing listens on: Redis refuses every connection from the start.
    const run = await runBot({
      cwd: await botWorkDir(),
      env: { STORE_URL: `redis://127.0.0.1:${await freePort()}` },
      input: "hello\n",
    });
    expect(run.stdout).toContain("⚠️ the bot's storage is unavailable right now");
    expect(logEntries(run.stderr).filter((e) => e.level >= WARN)).toEqual([
      expect.objectContaining({
        msg: expect.stringMatching(/^STORE_URL does not answer at start \(if this lasts, check it/),
      }),
    ]);
  });
});
