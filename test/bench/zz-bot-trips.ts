import { setTimeout as sleep } from "node:timers/promises";
import { request } from "undici";
import { spawnRedisServer } from "../support/redis.ts";
import { botEnv } from "./bot-bench.ts";
import { BotDeliveries } from "./bot-deliveries.ts";
import { runBotLoad } from "./bot-load.ts";
import { startBotProcess } from "./bot-process.ts";
import { startFakePlatformsProcess } from "./fake-platforms-process.ts";
import { commandsBetween, redisCommandCount } from "./redis-commands.ts";
import { STAMP_ANSWER_MS } from "./stamp-backend.ts";
import { startStampBackendProcess } from "./stamp-backend-process.ts";

async function ops(url: string): Promise<Map<string, number>> {
  const text = await (await request(`${url}/metrics`)).body.text();
  const m = new Map<string, number>();
  for (const line of text.split("\n")) {
    const x = /^chatbot_bridge_store_seconds_count\{([^}]*)\}\s+(\S+)/.exec(line);
    if (x) m.set(x[1]!, Number(x[2]));
  }
  return m;
}
const useRedis = process.argv[2] === "redis";
const backend = await startStampBackendProcess({ stampEnd: true });
const platforms = await startFakePlatformsProcess();
const redis = useRedis ? await spawnRedisServer() : undefined;
const bot = await startBotProcess(
  { ...botEnv(backend.info.url, platforms.url), ...(redis && { STORE_URL: redis.url }) },
  [],
);
const deliveries = new BotDeliveries(bot.url);
const conc = 20;
const common = { deliveries, platforms, answerTimeoutMs: 60000, botRss: () => 0 };
await runBotLoad({
  ...common,
  concurrency: conc,
  rounds: 2,
  rampMs: 0,
  firstSlot: 1000000,
  question: () => "warm quick",
});
await sleep(1000);
const before = await ops(bot.url);
const cb = redis ? await redisCommandCount(redis.url) : undefined;
await runBotLoad({
  ...common,
  concurrency: conc,
  rounds: 3,
  rampMs: STAMP_ANSWER_MS,
  question: (s, r) => `Question ${r + 1} of ${s}: how does it work?`,
});
const after = await ops(bot.url);
const n = conc * 3;
for (const [k, v] of after) {
  const d = v - (before.get(k) ?? 0);
  if (d) console.log(k, (d / n).toFixed(2));
}
if (redis && cb) {
  const c = commandsBetween(cb, await redisCommandCount(redis.url));
  for (const [k, v] of c) console.log("redis", k, (v / n).toFixed(2));
}
await deliveries.close();
await bot.close();
await platforms.close();
await backend.close();
await redis?.close();
