import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { heldBackendPerTest } from "../support/held-backend.ts";
import { until } from "../support/run-bot.ts";
import { mention, startSlackHarness } from "../support/slack-harness.ts";

const onHeldBackend = heldBackendPerTest();

const inLine = (n: number) => `⏳ many questions right now: yours is number ${n} in line`;

describe("a thread's line, on the embedded store with its in-memory queue", () => {
  it("keeps a question waiting in the queue ahead of its thread's next one, whatever room frees", async () => {
    const { bot: h, backend } = await onHeldBackend((held) =>
      startSlackHarness({
        backend: held,
        answerQueue: { maxActive: 2, maxQueued: 10 },
      }),
    );
    // Two answers in other threads fill the cap.
    const [a, b, thread] = [h.nextTs(), h.nextTs(), h.nextTs()];
    await h.sendEvent(mention("question a", { ts: a }));
    await h.sendEvent(mention("question b", { ts: b }));
    await until("the cap full", () => (backend.open === 2 ? true : undefined));

    // The thread's first question waits for room, in the queue, and says so.
    await h.sendEvent(mention("first in thread", { ts: thread }));
    await until("its notice", () =>
      h.fake.thread("C1", thread)[0]?.text === inLine(1) ? true : undefined,
    );
    // Its second question waits behind it, showing nothing.
    await h.sendEvent(mention("second in thread", { ts: h.nextTs(), threadTs: thread }));

    // Room for both: the first is answered; the second still waits for it.
    backend.release((q) => q === "question a" || q === "question b");
    await until("the first asked", () =>
      backend.asked.includes("first in thread") ? true : undefined,
    );
    await sleep(300);
    expect(backend.asked).not.toContain("second in thread");
    expect(h.fake.thread("C1", thread)).toHaveLength(1);

    backend.releaseAll();
    // Both complete (a text may still be streaming when its message appears), then their order.
    const answers = await until("both answered", () => {
      const texts = h.fake.thread("C1", thread).map((m) => m.text);
      const complete = texts.every((t) => /^Answer to .* in thread\.$/.test(t));
      return texts.length === 2 && complete ? texts : undefined;
    });
    expect(answers).toEqual(["Answer to first in thread.", "Answer to second in thread."]);
  });
});
