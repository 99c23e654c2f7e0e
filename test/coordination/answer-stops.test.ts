import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { AnswerStops } from "../../src/coordination/answer-stops.ts";
import { ProcessSignals } from "../../src/coordination/signals.ts";
import { AnswerStoppedError } from "../../src/errors.ts";
import { createLogger } from "../../src/log.ts";
import { openStore } from "../../src/store/open-store.ts";
import { openRedisStore } from "../../src/store/redis-store.ts";
import type { Store } from "../../src/store/types.ts";
import { countingStore } from "../bench/counting-store.ts";
import { startTestRedis } from "../support/redis.ts";

const silent = createLogger({ level: "silent", secrets: [] });
const asker = { id: "asker", name: "Ann", isAdmin: async () => false };
const stranger = { id: "stranger", name: "Bob", isAdmin: async () => false };
const admin = { id: "admin", name: "Cleo", isAdmin: async () => true };

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function stopsOn(store: Store, processId: string): Promise<AnswerStops> {
  const signals = new ProcessSignals({ store, processId, log: silent });
  await signals.start();
  closing.push(() => signals.close());
  return new AnswerStops({ signals, log: silent });
}

describe("stops of answers in this process", () => {
  it("cost no store call: the answers, and who may stop them, are this process's own", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "answer-stops-"));
    const inner = await openStore({ dataDir });
    closing.push(
      () => rm(dataDir, { recursive: true, force: true }),
      () => inner.close(),
    );
    const counting = countingStore(inner);
    const stops = await stopsOn(counting.store, "p");
    counting.reset();
    const running = stops.begin("thread-1", "asker", "channel-1");
    expect(await stops.stopInThread("thread-1", stranger)).toMatchObject({ answer: "refused" });
    expect(running.signal.aborted).toBe(false);
    expect(await stops.stopInThread("thread-1", asker)).toMatchObject({ answer: "stopped" });
    expect(running.signal.reason).toBeInstanceOf(AnswerStoppedError);
    running.end();
    expect(Object.fromEntries(counting.counts)).toEqual({});
  });
});

const redis = await startTestRedis("stops across processes");
afterAll(() => redis?.close());

describe.skipIf(!redis)("stops across processes on one Redis", () => {
  async function twoProcesses() {
    const namespace = `${redis?.namespace}-${Math.random().toString(36).slice(2)}`;
    const [storeA, storeB] = await Promise.all([
      openRedisStore({ url: redis?.url ?? "", namespace }),
      openRedisStore({ url: redis?.url ?? "", namespace }),
    ]);
    closing.push(
      () => storeA.close(),
      () => storeB.close(),
    );
    return { a: await stopsOn(storeA, "a"), b: await stopsOn(storeB, "b") };
  }

  it("a stop asked at one process ends the answer streaming at the other, for its asker or an admin only", async () => {
    const { a, b } = await twoProcesses();
    const running = a.begin("thread-1", "asker", "channel-1");
    expect(await b.stopInThread("thread-1", stranger)).toMatchObject({ answer: "refused" });
    expect(running.signal.aborted).toBe(false);
    expect(await b.stopInThread("thread-1", admin)).toMatchObject({ answer: "stopped" });
    expect((running.signal.reason as AnswerStoppedError).byName).toBe("Cleo");
    running.end();
    expect(await b.stopInThread("thread-1", asker)).toMatchObject({ answer: "none" });
  });

  it("a press names its answer by id, in its own channel only", async () => {
    const { a, b } = await twoProcesses();
    const running = a.begin("thread-1", "asker", "channel-1");
    expect(await b.stopById(running.id, "channel-2", asker)).toBe("none");
    expect(await b.stopById(running.id, "channel-1", asker)).toBe("stopped");
    expect(running.signal.aborted).toBe(true);
  });

  it("withdraws a question waiting at the other process, its asker's only", async () => {
    const { a, b } = await twoProcesses();
    const withdrawn: (string | undefined)[] = [];
    a.waiting("thread-1", {
      askerId: "asker",
      withdraw: async (by) => {
        withdrawn.push(by);
        return true;
      },
    });
    expect(await b.stopInThread("thread-1", stranger)).toMatchObject({ withdrawn: 0, refused: 1 });
    expect(await b.stopInThread("thread-1", asker)).toMatchObject({ withdrawn: 1 });
    expect(withdrawn).toEqual(["Ann"]);
  });
});
