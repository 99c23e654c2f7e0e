import { setTimeout as sleep } from "node:timers/promises";
import { Room } from "../../src/bridge/room.ts";
import { SharedQueue } from "../../src/coordination/shared-queue.ts";
import { createLogger } from "../../src/log.ts";
import { openRedisStore, type RedisStore } from "../../src/store/redis-store.ts";
import { spawnRedisServer } from "../support/redis.ts";
import { percentile, round } from "./stats.ts";

export interface QueueBenchOptions {
  /** Questions put through the queue one by one for the overhead figure. */
  questions: number;
  /** Questions offered at once to three consumers for the share figure. */
  burst: number;
  /** Room of each consumer (MAX_ACTIVE_ANSWERS). */
  room: number;
  /** How long each consumer holds a question it took (an answer's time). */
  answerMs: number;
}

export interface QueueResult {
  questions: number;
  /** Enqueue by one connection → taken by another (a second process's queue), ms. */
  takenP50Ms: number;
  takenP99Ms: number;
  takenMaxMs: number;
  burst: number;
  /** Percent of the burst each of three consumers took, the receiving one first. */
  sharePercent: number[];
}

const log = createLogger({ level: "silent", secrets: [] });

/**
 * The shared answer queue on an own redis-server: what handing a question to another process
 * costs (enqueue → taken, each consumer on a connection of its own, as processes are), and
 * how a burst that reaches one process is shared by three.
 */
export async function benchQueue(options: QueueBenchOptions): Promise<QueueResult> {
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const server = await spawnRedisServer();
    cleanups.push(() => server.close());
    const open = async (): Promise<RedisStore> => {
      const store = await openRedisStore({ url: server.url, namespace: "bench" });
      cleanups.unshift(() => store.close());
      return store;
    };
    const queue = (store: RedisStore, key: string, consumer: string, room: number) => {
      const q = new SharedQueue({
        store,
        key,
        consumer,
        room: new Room(room),
        maxQueued: 100_000,
        takeoverMs: 10_000,
        log,
      });
      cleanups.unshift(() => q.stop());
      return q;
    };

    // Overhead: a receiver with no room hands each question to a taker with room.
    const pushedAt = new Map<number, number>();
    const taken: number[] = [];
    const receiver = queue(await open(), "overhead", "receiver", 0);
    const taker = queue(await open(), "overhead", "taker", 100);
    await taker.serve(async (job) => {
      taken.push(performance.now() - (pushedAt.get(job.value as number) ?? 0));
      await job.begin();
    });
    await sleep(200); // the taker's subscription in place
    for (let i = 0; i < options.questions; i += 1) {
      pushedAt.set(i, performance.now());
      await receiver.push(i);
      await sleep(Math.random() * 5);
    }
    while (taken.length < options.questions) await sleep(10);

    // Share: the burst reaches one process (the Telegram poller), three take from the queue.
    const counts = [0, 0, 0];
    const consumers = await Promise.all(
      counts.map(async (_, i) => {
        const q: SharedQueue = queue(await open(), "share", `process-${i}`, options.room);
        await q.serve(async (job) => {
          await job.begin();
          counts[i] = (counts[i] ?? 0) + 1;
          await sleep(options.answerMs);
        });
        return q;
      }),
    );
    await sleep(200);
    const poller = consumers[0] as SharedQueue;
    await Promise.all(Array.from({ length: options.burst }, (_, i) => poller.push(i)));
    while (counts.reduce((a, b) => a + b, 0) < options.burst) await sleep(10);

    return {
      questions: options.questions,
      takenP50Ms: round(percentile(taken, 50)),
      takenP99Ms: round(percentile(taken, 99)),
      takenMaxMs: round(Math.max(...taken)),
      burst: options.burst,
      sharePercent: counts.map((c) => round((100 * c) / options.burst, 1)),
    };
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}
