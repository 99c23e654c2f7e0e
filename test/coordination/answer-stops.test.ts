import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AnswerStops } from "../../src/coordination/answer-stops.ts";
import { ProcessPresence } from "../../src/coordination/process-presence.ts";
import { createLogger } from "../../src/log.ts";
import { openStore } from "../../src/store/open-store.ts";
import { CountingStore } from "../bench/counting-store.ts";

const silent = createLogger({ level: "silent", secrets: [] });
let dataDir: string | undefined;
afterEach(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

describe("stops of answers on a store no other process shares", () => {
  it("cost no store call: the answers, and who may stop them, are this process's alone", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "answer-stops-"));
    const inner = await openStore({ dataDir });
    const store = new CountingStore(inner);
    try {
      const presence = new ProcessPresence({ store, log: silent });
      const stops = new AnswerStops({ store, log: silent, presence, pollMs: 20 });
      const running = stops.begin("thread-1", "asker", "channel-1");
      const asker = { id: "asker", name: "Ann", isAdmin: async () => false };
      expect(await stops.stopInThread("thread-1", asker)).toBe("stopped");
      expect(running.signal.aborted).toBe(true);
      await running.end();
      // A second answer, after the first ended: again nothing in the store.
      await stops.begin("thread-2", "asker", "channel-1").end();
      expect(Object.fromEntries(store.counts)).toEqual({});
    } finally {
      await inner.close();
    }
  });
});
