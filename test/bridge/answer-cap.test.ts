import { request } from "undici";
import { describe, expect, it } from "vitest";
import { heldBackendPerTest } from "../support/held-backend.ts";
import { waitingForTheirThread } from "../support/question-states.ts";
import { until } from "../support/run-bot.ts";
import { mention, type SlackHarness, startSlackHarness } from "../support/slack-harness.ts";

const onHeldBackend = heldBackendPerTest();

const inLine = (n: number) => `⏳ many questions right now: yours is number ${n} in line`;
const BUSY = "⏳ The bot is busy right now: please try again in a minute.";

async function start(
  answerQueue: { maxActive: number; maxQueued: number },
  options: { sharedQueue?: boolean; logLevel?: "debug" } = {},
) {
  const { bot: h, backend } = await onHeldBackend((held) =>
    startSlackHarness({ backend: held, answerQueue, ...options }),
  );
  return { h, backend };
}

/** The one message the bot shows in the thread under `root` (its text now), if any. */
function shownIn(h: SlackHarness, root: string): string | undefined {
  return h.fake.thread("C1", root)[0]?.text;
}

async function metric(h: SlackHarness, line: RegExp): Promise<number | undefined> {
  const response = await request(`http://127.0.0.1:${h.http.port}/metrics`);
  const match = line.exec(await response.body.text());
  return match ? Number(match[1]) : undefined;
}

describe("at most MAX_ACTIVE_ANSWERS answers at once", () => {
  it("runs 3 of 10 questions at once, tells the 7 others their place in line, and answers all 10", async () => {
    const { h, backend } = await start({ maxActive: 3, maxQueued: 100 });
    const roots = Array.from({ length: 10 }, () => h.nextTs());
    const acks = await Promise.all(
      roots.map((ts, i) => h.sendEvent(mention(`question ${i + 1}`, { ts }))),
    );
    expect(acks.map((a) => a.status)).toEqual(Array(10).fill(200));

    await until("3 answers running", () => (backend.open === 3 ? true : undefined));
    const notices = await until("7 questions told their place", () => {
      const shown = roots.map((root) => shownIn(h, root)).filter((t) => t?.startsWith("⏳"));
      return shown.length === 7 ? shown : undefined;
    });
    expect(notices.sort()).toEqual([1, 2, 3, 4, 5, 6, 7].map(inLine).sort());
    // Overload is visible: 3 answering, 7 waiting.
    expect(await metric(h, /^chatbot_bridge_active_answers (\d+)$/m)).toBe(3);
    expect(await metric(h, /^chatbot_bridge_queued_questions (\d+)$/m)).toBe(7);
    expect(backend.asked).toHaveLength(3);

    backend.releaseAll();
    for (const [i, root] of roots.entries()) {
      await until(`answer ${i + 1}`, () =>
        shownIn(h, root) === `Answer to question ${i + 1}.` ? true : undefined,
      );
      // The answer took the place of its notice: one message in the thread.
      expect(h.fake.thread("C1", root)).toHaveLength(1);
    }
    expect(backend.mostOpen).toBe(3);
    expect(backend.asked).toHaveLength(10);
    expect(await metric(h, /^chatbot_bridge_queued_questions (\d+)$/m)).toBe(0);
    expect(await metric(h, /^chatbot_bridge_queue_wait_seconds_count (\d+)$/m)).toBe(10);
  });

  it("tells a question the bot is busy once MAX_QUEUED_QUESTIONS wait, and counts it", async () => {
    const { h, backend } = await start({ maxActive: 1, maxQueued: 2 });
    const roots = Array.from({ length: 4 }, () => h.nextTs());
    await h.sendEvent(mention("question 1", { ts: roots[0] ?? "" }));
    await until("the first answer running", () => (backend.open === 1 ? true : undefined));
    for (const [i, n] of [2, 3].entries()) {
      await h.sendEvent(mention(`question ${n}`, { ts: roots[n - 1] ?? "" }));
      await until(`question ${n} in line`, () =>
        shownIn(h, roots[n - 1] ?? "") === inLine(i + 1) ? true : undefined,
      );
    }
    await h.sendEvent(mention("question 4", { ts: roots[3] ?? "" }));
    const busy = await until("the busy reply", () =>
      h.fake.ephemerals.find((e) => e.threadTs === roots[3]),
    );
    expect(busy.text).toBe(BUSY);
    expect(
      await metric(h, /^chatbot_bridge_questions_refused_total\{channel="slack"\} (\d+)$/m),
    ).toBe(1);
    expect(h.logs.filter((l) => l.msg.includes("MAX_QUEUED_QUESTIONS"))).toHaveLength(1);

    backend.releaseAll();
    for (const n of [1, 2, 3]) {
      await until(`answer ${n}`, () =>
        shownIn(h, roots[n - 1] ?? "") === `Answer to question ${n}.` ? true : undefined,
      );
    }
    // The refused question never reached the chatbot, and got no other message.
    expect(backend.asked).toEqual(["question 1", "question 2", "question 3"]);
    expect(h.fake.thread("C1", roots[3] ?? "")).toEqual([]);
  });

  it("answers commands at once and acknowledges every event within 200 ms while the cap is full", async () => {
    const { h, backend } = await start({ maxActive: 1, maxQueued: 100 });
    const first = h.nextTs();
    await h.sendEvent(mention("held question", { ts: first }));
    await until("the answer running", () => (backend.open === 1 ? true : undefined));
    const waiting = h.nextTs();
    await h.sendEvent(mention("waiting question", { ts: waiting }));
    await until("a question in line", () => (shownIn(h, waiting) === inLine(1) ? true : undefined));

    // Commands cost no answer: they go past the line.
    await h.sendCommand("/language", "");
    await until("the /language reply", () => h.fake.responses[0]);
    expect(h.fake.responses[0]?.text).toContain("Answers here are in");
    const helpRoot = h.nextTs();
    await h.sendEvent(mention("help", { ts: helpRoot }));
    const help = await until("the help reply", () =>
      h.fake.ephemerals.find((e) => e.threadTs === helpRoot),
    );
    expect(help.text).toContain("Ask me anything");

    // Receiving never waits for answering: 20 more questions, each acknowledged at once.
    const acks = [];
    for (let i = 0; i < 20; i++) {
      acks.push(await h.sendEvent(mention(`more ${i}`, { ts: h.nextTs() })));
    }
    expect(acks.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(Math.max(...acks.map((a) => a.ms))).toBeLessThan(200);
    expect(backend.asked).toEqual(["held question"]);
  });

  it("keeps a thread's questions in order while the process line is long", async () => {
    const { h, backend } = await start({ maxActive: 1, maxQueued: 100 }, { logLevel: "debug" });
    const threadA = h.nextTs();
    const threadB = h.nextTs();
    await h.sendEvent(mention("A1", { ts: threadA }));
    await until("A1 running", () => (backend.open === 1 ? true : undefined));
    await h.sendEvent(mention("B1", { ts: threadB }));
    await until("B1 in line", () => (shownIn(h, threadB) === inLine(1) ? true : undefined));
    await h.sendEvent(mention("A2", { ts: h.nextTs(), threadTs: threadA }));
    await until("A2 waiting for A1", () => waitingForTheirThread(h.logs)[0]);
    // A2 waits behind A1 without a notice of its own: thread A shows A1's answer only.
    expect(h.fake.thread("C1", threadA).map((m) => m.text)).toEqual(["Answer to A1"]);

    backend.release((q) => q === "A1");
    await until("B1 running", () => (backend.asked.length === 2 ? true : undefined));
    // B1 had waited for room longer than A2: it went first.
    expect(backend.asked).toEqual(["A1", "B1"]);
    // A2's turn in its thread came once A1's answer was complete: only now does it wait for
    // room, and say so below that answer.
    const [a1, a2] = await until("A2 in line below A1's answer", () => {
      const shown = h.fake.thread("C1", threadA);
      return shown.length === 2 ? shown : undefined;
    });
    expect(a1?.text).toBe("Answer to A1.");
    expect(a2?.history).toEqual([inLine(1)]);

    backend.releaseAll();
    await until("A2's answer", () =>
      h.fake.thread("C1", threadA)[1]?.text === "Answer to A2." ? true : undefined,
    );
    // A2 came after A1, never before, and its notice became its answer.
    expect(backend.asked).toEqual(["A1", "B1", "A2"]);
    expect(h.fake.thread("C1", threadA).map((m) => m.text)).toEqual([
      "Answer to A1.",
      "Answer to A2.",
    ]);
    expect(h.fake.thread("C1", threadA)[1]?.history[0]).toBe(inLine(1));
  });

  it("on a stop, tells the questions not yet begun to ask again, and lets the running answer finish", async () => {
    const { h, backend } = await start({ maxActive: 1, maxQueued: 100 }, { logLevel: "debug" });
    const threadA = h.nextTs();
    const threadB = h.nextTs();
    await h.sendEvent(mention("A1", { ts: threadA }));
    await until("A1 running", () => (backend.open === 1 ? true : undefined));
    await h.sendEvent(mention("B1", { ts: threadB }));
    await until("B1 in line", () => (shownIn(h, threadB) === inLine(1) ? true : undefined));
    await h.sendEvent(mention("A2", { ts: h.nextTs(), threadTs: threadA }));
    await until("A2 waiting for A1", () => waitingForTheirThread(h.logs)[0]);

    const drained = h.bridge.drain(10_000);
    const restarting =
      "⚠️ the bot is restarting and did not get to your question: please ask again in a minute";
    // At once for the one waiting for room, not after the running answer.
    await until("B1 told", () => (shownIn(h, threadB) === restarting ? true : undefined));
    expect(backend.open).toBe(1);
    // A2, waiting for its thread, shows nothing yet: it is told once A1's answer is complete.
    const toldInA = () => h.fake.ephemerals.filter((e) => e.threadTs === threadA);
    expect(h.fake.thread("C1", threadA)).toHaveLength(1);
    expect(toldInA()).toEqual([]);
    backend.releaseAll();
    await drained;
    // A2 never had a message in the thread: its asker alone is told, as for any question
    // that fails before its answer shows.
    expect(h.fake.thread("C1", threadA).map((m) => m.text)).toEqual(["Answer to A1."]);
    expect(toldInA()).toEqual([{ channel: "C1", user: "U1", threadTs: threadA, text: restarting }]);
    expect(backend.asked).toEqual(["A1"]);
    expect(h.logs.filter((l) => l.level >= 50)).toEqual([]);
  });
});

describe("with the shared queue, as a process runs it", () => {
  it("tells the questions past the cap their place, answers each in its notice, and tells the one past the bound the bot is busy", async () => {
    const { h, backend } = await start({ maxActive: 1, maxQueued: 2 }, { sharedQueue: true });
    const roots = Array.from({ length: 4 }, () => h.nextTs());
    await h.sendEvent(mention("question 1", { ts: roots[0] ?? "" }));
    await until("the first answer running", () => (backend.open === 1 ? true : undefined));
    for (const n of [2, 3]) {
      await h.sendEvent(mention(`question ${n}`, { ts: roots[n - 1] ?? "" }));
      await until(`question ${n} in line`, () =>
        shownIn(h, roots[n - 1] ?? "") === inLine(n - 1) ? true : undefined,
      );
    }
    // They wait in the store's queue, where any process with room would take them.
    expect(await h.store.streamWaiting("queue:answers")).toBe(2);
    expect(await metric(h, /^chatbot_bridge_queued_questions (\d+)$/m)).toBe(2);
    await h.sendEvent(mention("question 4", { ts: roots[3] ?? "" }));
    const busy = await until("the busy reply", () =>
      h.fake.ephemerals.find((e) => e.threadTs === roots[3]),
    );
    expect(busy.text).toBe(BUSY);

    backend.releaseAll();
    for (const n of [1, 2, 3]) {
      await until(`answer ${n}`, () =>
        shownIn(h, roots[n - 1] ?? "") === `Answer to question ${n}.` ? true : undefined,
      );
      // The answer took the place of its notice: one message in the thread.
      expect(h.fake.thread("C1", roots[n - 1] ?? "")).toHaveLength(1);
    }
    expect(backend.asked).toEqual(["question 1", "question 2", "question 3"]);
    expect(backend.mostOpen).toBe(1);
  });
});
