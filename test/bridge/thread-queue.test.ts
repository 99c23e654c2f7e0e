import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { ThreadQueue } from "../../src/bridge/thread-queue.ts";
import { createLogger } from "../../src/log.ts";
import { openEmbeddedStore } from "../../src/store/embedded-store.ts";
import type { Store } from "../../src/store/types.ts";
import { botWorkDir } from "../support/run-bot.ts";

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe("a thread's line", () => {
  it("keeps one process's messages in arrival order when the store answers their tickets out of order", async () => {
    store = await openEmbeddedStore({ dataDir: await botWorkDir() });
    const real = store;
    // The first ticket's answer comes late (a script reloaded after NOSCRIPT, a slow reply):
    // the second message's ticket is taken first.
    let takes = 0;
    const takeTicket: Store["takeTicket"] = async (key, owner, leaseMs) => {
      if (++takes === 1) await sleep(50);
      return real.takeTicket(key, owner, leaseMs);
    };
    // As Redis is: shared across processes, so the line's order is the store's tickets'.
    const slowFirstTake = new Proxy(real, {
      get: (target, name: keyof Store) =>
        name === "sharedAcrossProcesses"
          ? true
          : name === "takeTicket"
            ? takeTicket
            : typeof target[name] === "function"
              ? (target[name] as (...args: unknown[]) => unknown).bind(target)
              : target[name],
    });
    const queue = new ThreadQueue({
      store: slowFirstTake,
      log: createLogger({ level: "silent", secrets: [] }),
      leaseMs: 2_000,
      pollMs: 20,
    });
    const done: string[] = [];
    const first = queue.enter("t1").run(async () => void done.push("q1"));
    const second = queue.enter("t1").run(async () => void done.push("q2"));
    const within = sleep(1_500).then(() => "stuck");
    expect(await Promise.race([Promise.all([first, second]).then(() => "done"), within])).toBe(
      "done",
    );
    expect(done).toEqual(["q1", "q2"]);
  });
});
