// What an answered question leaves in Redis: the whole bot (src/main.ts) on a redis-server of
// its own answers questions in Slack DMs and Telegram private chats, then every key is read
// back with its size (MEMORY USAGE) and how long it stays (its TTL, or a kept record's time in
// the kept index), grouped by the key's shape. docs/deploy.md's Redis sizing comes from these rows.
import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "@keyv/redis";
import { DEFAULT_NAMESPACE, KEPT_INDEX_KEY } from "../../src/store/redis-store.ts";
import { spawnRedisServer } from "../support/redis.ts";
import { botEnv } from "./bot-bench.ts";
import { BotDeliveries } from "./bot-deliveries.ts";
import { runBotLoad } from "./bot-load.ts";
import { startBotProcess } from "./bot-process.ts";
import { startFakePlatformsProcess } from "./fake-platforms-process.ts";
import { QUICK } from "./stamp-backend.ts";
import { startStampBackendProcess } from "./stamp-backend-process.ts";
import { formatTable } from "./table.ts";

export interface MemoryBenchOptions {
  /** Conversations, each asking `rounds` questions (one after the other). */
  conversations: number;
  rounds: number;
}

/** The keys of one shape ("conv:telegram:<id>"), as the census found them. */
export interface KeyShape {
  shape: string;
  keys: number;
  /** MEMORY USAGE, mean over the keys, bytes. */
  bytes: number;
  /** How long they stay, mean, days; null: for good (no TTL, not kept). */
  days: number | null;
  /** Kept records (no Redis TTL, never evicted under volatile-lru). */
  kept: boolean;
}

export interface MemoryReport {
  answers: number;
  rounds: number;
  shapes: KeyShape[];
  /** used_memory after the answers minus before, ÷ answers. */
  usedBytesPerAnswer: number;
}

const DAY_MS = 86_400_000;
/** A key part this long is an id even without a digit (a random answer id). */
const ID_LENGTH = 12;

export async function benchMemory(options: MemoryBenchOptions): Promise<MemoryReport> {
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const [backend, platforms, redis] = await Promise.all([
      startStampBackendProcess({ stampEnd: true }),
      startFakePlatformsProcess(),
      spawnRedisServer(),
    ]);
    cleanups.push(
      () => backend.close(),
      () => platforms.close(),
      () => redis.close(),
    );
    const bot = await startBotProcess({
      ...botEnv(backend.info.url, platforms.url),
      STORE_URL: redis.url,
    });
    cleanups.unshift(() => bot.close());
    const deliveries = new BotDeliveries(bot.url);
    cleanups.unshift(() => deliveries.close());
    const raw = await connected(redis.url);
    cleanups.unshift(async () => raw.destroy());
    await sleep(1_000);
    const usedBefore = await usedMemory(raw);
    const load = await runBotLoad({
      deliveries,
      platforms,
      concurrency: options.conversations,
      rounds: options.rounds,
      rampMs: 0,
      answerTimeoutMs: 60_000,
      question: (slot, round) => `Question ${round + 1} of conversation ${slot} ${QUICK}`,
      botRss: () => 0,
    });
    const answers = load.questions.filter((q) => q.closed).length;
    if (answers === 0) throw new Error("no question was answered");
    // What the answers' ends write (journal, votes) is in by then.
    await sleep(1_000);
    const usedAfter = await usedMemory(raw);
    return {
      answers,
      rounds: options.rounds,
      shapes: await census(raw),
      usedBytesPerAnswer: Math.round((usedAfter - usedBefore) / answers),
    };
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

type Raw = Awaited<ReturnType<typeof connected>>;

async function connected(url: string) {
  const raw = createClient({ url });
  await raw.connect();
  return raw;
}

async function usedMemory(raw: Raw): Promise<number> {
  return Number(/^used_memory:(\d+)/m.exec(await raw.info("memory"))?.[1] ?? Number.NaN);
}

/** Every key of the bot, grouped by shape: a part with a digit in it, or a long one, is an id. */
async function census(raw: Raw): Promise<KeyShape[]> {
  const prefix = `${DEFAULT_NAMESPACE}:`;
  const index = `${prefix}${KEPT_INDEX_KEY}`;
  const now = Date.now();
  const groups = new Map<string, { keys: number; bytes: number; ms: number[]; kept: boolean }>();
  for await (const keys of raw.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
    for (const key of keys) {
      const [bytes, ttl, until] = await Promise.all([
        raw.memoryUsage(key, { SAMPLES: 0 }),
        raw.pTTL(key),
        raw.zScore(index, key),
      ]);
      const shape = key
        .slice(prefix.length)
        .split(":")
        .map((part) => (/\d/.test(part) || part.length >= ID_LENGTH ? "<id>" : part))
        .join(":");
      const group = groups.get(shape) ?? { keys: 0, bytes: 0, ms: [], kept: false };
      group.keys += 1;
      group.bytes += bytes ?? 0;
      if (until !== null) {
        group.kept = true;
        group.ms.push(until - now);
      } else if (ttl > 0) group.ms.push(ttl);
      groups.set(shape, group);
    }
  }
  return [...groups]
    .map(([shape, g]) => ({
      shape,
      keys: g.keys,
      bytes: Math.round(g.bytes / g.keys),
      days:
        g.ms.length < g.keys ? null : g.ms.reduce((sum, ms) => sum + ms, 0) / g.ms.length / DAY_MS,
      kept: g.kept,
    }))
    .sort((a, b) => b.keys * b.bytes - a.keys * a.bytes);
}

/**
 * The memory a load of `answersPerDay` holds once every record written lasts its time: each
 * shape's keys per answer × bytes × days. Shapes kept for good are fixed (not per answer).
 */
export function steadyBytes(report: MemoryReport, answersPerDay: number): number {
  return (
    report.shapes.reduce(
      (sum, s) => sum + (s.days === null ? 0 : (s.keys / report.answers) * s.bytes * s.days),
      0,
    ) * answersPerDay
  );
}

export function memoryLines(report: MemoryReport, answersPerDay: number): string[] {
  const perAnswer = (s: KeyShape) => s.keys / report.answers;
  const table = formatTable<KeyShape>(
    [
      { heading: "key", cell: (s) => s.shape },
      { heading: "keys", cell: (s) => s.keys },
      { heading: "per answer", cell: perAnswer },
      { heading: "bytes each", cell: (s) => s.bytes },
      { heading: "stays (days)", cell: (s) => (s.days === null ? "for good" : s.days) },
      { heading: "kept", cell: (s) => (s.kept ? "yes" : "") },
      {
        heading: "byte·days per answer",
        cell: (s) => (s.days === null ? "fixed" : Math.round(perAnswer(s) * s.bytes * s.days)),
      },
    ],
    report.shapes,
  );
  const mb = (bytes: number) => (bytes / 1_048_576).toFixed(0);
  return [
    table,
    `${report.answers} answers, ${report.rounds} per conversation, half Slack DMs, half Telegram private chats.`,
    "kept: a kept record (no TTL in Redis, so volatile-lru never evicts it; the store deletes it when its time is up).",
    `used_memory grew ${report.usedBytesPerAnswer.toLocaleString("en-US")} bytes per answer while they ran.`,
    `At ${answersPerDay.toLocaleString("en-US")} answers a day, once every record lasts its time: ${mb(steadyBytes(report, answersPerDay))} MB`,
    `(kept records alone: ${mb(steadyBytes({ ...report, shapes: report.shapes.filter((s) => s.kept) }, answersPerDay))} MB).`,
  ];
}
