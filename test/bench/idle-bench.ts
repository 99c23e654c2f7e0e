// What the whole bot costs between questions: src/main.ts as the bot section runs it (Slack
// over the HTTP Events API, Telegram by webhook, fake platforms and the stamp backend in
// processes of their own), on the embedded store or on a redis-server of its own. Its CPU
// while nobody writes, and on Redis the commands each answered question costs, its timers
// included.
import { setTimeout as sleep } from "node:timers/promises";
import { spawnRedisServer } from "../support/redis.ts";
import { botEnv } from "./bot-bench.ts";
import { benchChat } from "./bot-bench-chats.ts";
import { BotDeliveries } from "./bot-deliveries.ts";
import { type BotProcess, startBotProcess } from "./bot-process.ts";
import { type FakePlatforms, startFakePlatformsProcess } from "./fake-platforms-process.ts";
import { commandsBetween, redisCommandCount } from "./redis-commands.ts";
import { QUICK } from "./stamp-backend.ts";
import { startStampBackendProcess } from "./stamp-backend-process.ts";
import { round } from "./stats.ts";

export interface IdleBenchOptions {
  store: "embedded" | "redis";
  /** Slack questions asked one after another, each once the previous answer closed. */
  questions: number;
  /** How long the idle CPU is measured, after the start and after the questions. */
  idleSeconds: number;
}

/** What answering questions one after another cost, per question. */
export interface QuestionsCost {
  questions: number;
  answered: number;
  /** Commands the redis-server processed per answered question, keep-alive PINGs aside, by name, most first. */
  redisCommands: Record<string, number>;
  /** The bot's connections' keep-alive PINGs, counted apart. */
  redisPings: number;
}

export interface IdleRow {
  store: IdleBenchOptions["store"];
  /** CPU of the bot while nobody writes, in ms a second: after its start, after the answers. */
  idleCpuMsPerSecond: { afterStart: number; afterAnswers: number };
  /** Redis only: quick answers (a few characters at once) and the bench's usual ones. */
  quick?: QuestionsCost;
  standard?: QuestionsCost;
  /** Redis only: the commands of the bot's timers, a second, while nobody writes after the answers. */
  idleRedisCommandsPerSecond?: Record<string, number>;
}

/**
 * After its start the bot's heap settles: V8's memory reducer runs a few full collections
 * once allocation has calmed down, 16 to 33 s after the start here. Past them the figure is
 * the idle bot's, not the start's.
 */
const SETTLE_AFTER_START_MS = 35_000;
const SETTLE_AFTER_ANSWERS_MS = 3_000;
const ANSWER_TIMEOUT_MS = 60_000;

export async function benchIdle(options: IdleBenchOptions): Promise<IdleRow> {
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const [backend, platforms, redis] = await Promise.all([
      startStampBackendProcess({ stampEnd: true }),
      startFakePlatformsProcess(),
      options.store === "redis" ? spawnRedisServer() : undefined,
    ]);
    cleanups.push(
      () => backend.close(),
      () => platforms.close(),
    );
    if (redis) cleanups.push(() => redis.close());
    const bot = await startBotProcess({
      ...botEnv(backend.info.url, platforms.url),
      ...(redis && { STORE_URL: redis.url }),
    });
    cleanups.unshift(() => bot.close());
    const deliveries = new BotDeliveries(bot.url);
    cleanups.unshift(() => deliveries.close());
    const ask = (text: string) => askInTurn(deliveries, platforms, options.questions, text);

    await sleep(SETTLE_AFTER_START_MS);
    const afterStart = await idleCpuMsPerSecond(bot, options.idleSeconds);
    let costs: Pick<IdleRow, "quick" | "standard" | "idleRedisCommandsPerSecond"> = {};
    if (redis) {
      costs = {
        quick: await countCommands(redis.url, () => ask(`How does it work? ${QUICK}`)),
        standard: await countCommands(redis.url, () => ask("How does it work?")),
      };
    } else {
      await ask(`How does it work? ${QUICK}`);
    }
    await sleep(SETTLE_AFTER_ANSWERS_MS);
    const before = redis && (await redisCommandCount(redis.url));
    const afterAnswers = await idleCpuMsPerSecond(bot, options.idleSeconds);
    if (redis && before) {
      const idle = commandsBetween(before, await redisCommandCount(redis.url));
      costs.idleRedisCommandsPerSecond = Object.fromEntries(
        [...idle].map(([name, calls]) => [name, round(calls / options.idleSeconds, 2)]),
      );
    }
    return { store: options.store, idleCpuMsPerSecond: { afterStart, afterAnswers }, ...costs };
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

/** One person asks `questions` times in one Slack DM, each once the previous answer closed. */
async function askInTurn(
  deliveries: BotDeliveries,
  platforms: FakePlatforms,
  questions: number,
  text: string,
): Promise<{ questions: number; answered: number }> {
  const chat = benchChat(1);
  let answered = 0;
  for (let i = 0; i < questions; i++) {
    const closed = platforms.closed(chat.key, ANSWER_TIMEOUT_MS);
    const delivered = await deliveries.question(chat, text);
    if (delivered.status === 200 && (await closed)) answered++;
  }
  return { questions, answered };
}

/** The commands the redis-server processed while `ask` ran, per question answered. */
async function countCommands(
  url: string,
  ask: () => Promise<{ questions: number; answered: number }>,
): Promise<QuestionsCost> {
  const before = await redisCommandCount(url, { pings: true });
  const asked = await ask();
  const commands = commandsBetween(before, await redisCommandCount(url, { pings: true }));
  const redisCommands: Record<string, number> = {};
  // Per answered question: a question not answered did not cost a whole answer's commands.
  const answers = Math.max(1, asked.answered);
  const sorted = [...commands].filter(([name]) => name !== "ping").sort((a, b) => b[1] - a[1]);
  for (const [name, calls] of sorted) redisCommands[name] = round(calls / answers, 2);
  return {
    ...asked,
    redisCommands,
    redisPings: round((commands.get("ping") ?? 0) / answers, 2),
  };
}

/** The bot's CPU over `seconds` of nobody writing, in ms per second. */
async function idleCpuMsPerSecond(bot: BotProcess, seconds: number): Promise<number> {
  const cpuBefore = bot.cpuMs();
  const started = performance.now();
  await sleep(seconds * 1000);
  const cpu = bot.cpuMs() - cpuBefore;
  return round(cpu / ((performance.now() - started) / 1000), 3);
}
