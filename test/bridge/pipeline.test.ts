import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/errors.ts";
import { createLogger } from "../../src/log.ts";
import { hugeAnswer } from "../../src/simulator/answers.ts";
import { openStore } from "../../src/store/open-store.ts";
import type { StoreEntry } from "../../src/store/types.ts";
import { type Harness, incoming, startBridge, startHarness } from "../support/bridge-harness.ts";
import { MemorySurface, plainRenderer } from "../support/memory-surface.ts";
import { until } from "../support/run-bot.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  harness = await startHarness(options);
  return harness;
}

/** The answer text without the conversation-specific lines the simulator adds. */
const chatRequests = (h: Harness) => h.simulator.requests.filter((r) => r.route === "chat");

/** A surface another process could find again: what a question waiting for room needs. */
class SavedSurface extends MemorySurface {
  persistRef(ref: unknown): unknown {
    return ref;
  }
}

describe("the pipeline, over HTTP against the simulated backend", () => {
  it("streams an answer in coalesced edits no faster than the surface allows", async () => {
    const h = await start({ simulator: { chunkDelayMs: [1, 3], chunkChars: [1, 3] } });
    const surface = new MemorySurface({ limits: { minEditIntervalMs: 80 } });
    await h.bridge.handle(incoming("hello there"), surface);

    expect(surface.messages).toHaveLength(1);
    expect(surface.messages[0]).toContain("You asked: “hello there”");
    expect(surface.messages[0]).toContain("```ts\nconst answer");
    // Hundreds of tiny chunks, a handful of edits.
    expect(surface.edits).toBeGreaterThan(1);
    expect(surface.edits).toBeLessThan(40);
    expect(surface.tooSoon()).toEqual([]);
  });

  it("honours a 429 and still delivers the final text", async () => {
    const h = await start({ simulator: { chunkDelayMs: 2 } });
    const surface = new MemorySurface({ limits: { minEditIntervalMs: 20 } });
    surface.failNextWithRateLimit(0, 300);
    await h.bridge.handle(incoming("rate me #huge=3000"), surface);

    expect(surface.rateLimited).toEqual([]);
    expect(surface.transcript).toBe(hugeAnswer(3_000));
  });

  it("splits a 20,000-character answer into in-order messages that join back exactly", async () => {
    const h = await start();
    const surface = new MemorySurface({
      limits: { maxMessageLength: 4_096, minEditIntervalMs: 5 },
    });
    await h.bridge.handle(incoming("a long one #huge=20000"), surface);

    expect(surface.messages.length).toBeGreaterThanOrEqual(5);
    for (const message of surface.messages) expect(message.length).toBeLessThanOrEqual(4_096);
    expect(surface.transcript).toBe(hugeAnswer(20_000));
  });

  it("keeps the text so far and adds a cut note when the connection drops", async () => {
    const h = await start();
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("please #cut"), surface);

    const [message] = surface.messages;
    expect(surface.messages).toHaveLength(1);
    expect(message).toMatch(/^Hello! \*\*This is the simulated chatbot\.\*\*/);
    expect(message).toMatch(/\n\n⚠️ answer cut off: connection lost$/);
  });

  it("replaces the placeholder with a readable error when the backend refuses", async () => {
    const h = await start({ simulator: { paidPlan: false } });
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("hello"), surface);
    expect(surface.messages).toEqual([
      "⚠️ the chatbot refused access (HTTP 403): chatting needs a paid subscription on the chatbot account",
    ]);
  });

  it("answers two questions in one thread in order, on one conversation", async () => {
    const h = await start({ simulator: { chunkDelayMs: 2 } });
    const surface = new MemorySurface();
    await Promise.all([
      h.bridge.handle(incoming("first question"), surface),
      h.bridge.handle(incoming("second question"), surface),
    ]);

    // The second waited its turn without a word: its first message came after the first
    // answer's last, below it.
    const answers = surface.messages.filter((m) => m.includes("You asked"));
    expect(answers).toEqual(surface.messages);
    expect(answers).toHaveLength(2);
    const secondBegins = surface.calls.findIndex((c) => c.id === 1);
    expect(secondBegins).toBeGreaterThan(0);
    expect(surface.calls.slice(0, secondBegins).every((c) => c.id === 0)).toBe(true);
    expect(surface.calls[secondBegins - 1]?.final).toBe(true);
    expect(surface.notices).toEqual([]);
    expect(answers[0]).toContain("You asked: “first question”");
    expect(answers[1]).toContain("You asked: “second question”");
    expect(answers[1]).toContain("This is question 2 in our conversation.");
    const [first, second] = chatRequests(h);
    expect(first?.chat?.conversationUid).toBeUndefined();
    expect(second?.chat?.conversationUid).toEqual(expect.any(String));
  });

  it("saves a thread's conversation when it begins, not again for each answer that keeps it", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "bridge-test-"));
    const store = await openStore({ dataDir });
    const written: string[] = [];
    const counting = new Proxy(store, {
      get: (target, name, receiver) => {
        const value = Reflect.get(target, name, receiver);
        if (name === "set") {
          return (key: string, ...rest: unknown[]) => {
            written.push(key);
            return target.set(key, ...(rest as [unknown, number?]));
          };
        }
        if (name === "setMany") {
          return (entries: StoreEntry[]) => {
            written.push(...entries.map((entry) => entry.key));
            return target.setMany(entries);
          };
        }
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const h = await start({ simulator: { chunkDelayMs: 0 }, store: counting });
    for (const question of ["one", "two", "three"]) {
      await h.bridge.handle(incoming(question), new MemorySurface());
    }
    const [, second, third] = chatRequests(h);
    expect(third?.chat?.conversationUid).toBe(second?.chat?.conversationUid);
    expect(written.filter((key) => key.startsWith("conv:"))).toHaveLength(1);
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("answers two threads in parallel", async () => {
    const h = await start({ simulator: { chunkDelayMs: 5 } });
    const one = new MemorySurface();
    const two = new MemorySurface();
    await Promise.all([
      h.bridge.handle(incoming("thread one", { threadKey: "t1" }), one),
      h.bridge.handle(incoming("thread two", { threadKey: "t2" }), two),
    ]);
    const spans = [one, two].map((s) => ({
      from: s.calls[0]?.at ?? 0,
      to: s.calls.at(-1)?.at ?? 0,
    }));
    // Each answer was still streaming when the other began.
    expect(spans[0]?.from).toBeLessThan(spans[1]?.to ?? 0);
    expect(spans[1]?.from).toBeLessThan(spans[0]?.to ?? 0);
    expect(one.messages[0]).toContain("This is the first question");
    expect(two.messages[0]).toContain("This is the first question");
  });

  it("answers a redelivered message once", async () => {
    const h = await start();
    const surface = new MemorySurface();
    const message = incoming("only once");
    await h.bridge.handle(message, surface);
    await h.bridge.handle({ ...message }, surface);
    expect(chatRequests(h)).toHaveLength(1);
    expect(surface.messages).toHaveLength(1);
  });

  it("shows a system message once, apart from the answer, and ends with the sources", async () => {
    const h = await start();
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("tell me #system #docs"), surface);
    expect(surface.notices.map((n) => n.text)).toEqual([
      "Simulated notice: this account has used 90% of its monthly messages.",
    ]);
    expect(surface.messages[0]).toMatch(
      /\*\*Sources\*\*\n- \[Getting started\]\(<https:\/\/example\.com\/docs\/getting-started>\)\n- \[Pricing and plans\]\(<https:\/\/example\.com\/docs\/pricing>\)$/,
    );
  });

  it("reads no further than the answer's cap while the system message is on its way", async () => {
    const h = await start({
      bridge: { maxAnswerChars: 500 },
      simulator: { chunkDelayMs: 1, chunkChars: [500, 500] },
    });
    // A platform slow to post the notice: the answer streams in meanwhile.
    const surface = new (class extends MemorySurface {
      override async notice(...args: Parameters<MemorySurface["notice"]>): Promise<void> {
        await new Promise((resolve) => setTimeout(resolve, 300));
        return super.notice(...args);
      }
    })();
    await h.bridge.handle(incoming("tell me #system #huge=200000"), surface);
    expect(surface.notices).toHaveLength(1);
    expect(surface.messages).toHaveLength(1);
    expect(surface.messages[0]).toMatch(/\(truncated\)$/);
    // The rest of the answer was never read: the request was closed at the cap.
    expect(chatRequests(h).map((r) => r.outcome)).toEqual(["aborted"]);
  });

  it("says (no answer) for an empty answer", async () => {
    const h = await start();
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("#empty"), surface);
    expect(surface.messages).toEqual(["(no answer)"]);
  });

  it("drains: lets a short answer finish, cuts a stalled one with a visible note", async () => {
    const h = await start();
    const quick = new MemorySurface();
    const stalled = new MemorySurface();
    const done = Promise.all([
      h.bridge.handle(incoming("quick one", { threadKey: "quick" }), quick),
      h.bridge.handle(incoming("this one hangs #stall", { threadKey: "slow" }), stalled),
    ]);
    // The drain comes once the quick answer is complete and the stalled one shows its text.
    await until("the quick answer complete, the stalled one begun", () =>
      quick.calls.some((c) => c.final) && stalled.messages[0]?.startsWith("Hello!")
        ? true
        : undefined,
    );
    await h.bridge.drain(200);
    await done;
    expect(quick.messages[0]).toContain("You asked: “quick one”");
    expect(quick.messages[0]).not.toContain("interrupted");
    expect(stalled.messages[0]).toMatch(/^Hello! [\s\S]+\n\n⚠️ answer cut off: interrupted$/);
    expect(h.bridge.busy).toBe(0);
  });

  it("ends an answer its asker withdrew with the interrupted note, and goes on", async () => {
    const h = await start();
    const surface = new MemorySurface();
    const withdrawn = new AbortController();
    const handled = h.bridge.handle(
      incoming("this one hangs #stall", { signal: withdrawn.signal }),
      surface,
    );
    await until("the answer's first text", () => (surface.messages[0] ? true : undefined));
    withdrawn.abort();
    await handled;
    expect(surface.messages[0]).toMatch(/^Hello! [\s\S]+\n\n⚠️ answer cut off: interrupted$/);
    await h.bridge.handle(incoming("and now?"), surface);
    expect(surface.messages[1]).toContain("You asked: “and now?”");
  });

  it("runs /new after the answer running in its thread, so that answer cannot undo it", async () => {
    const h = await start({ simulator: { chunkDelayMs: 2 } });
    const surface = new MemorySurface();
    await Promise.all([
      h.bridge.handle(incoming("q1 #delay=200"), surface),
      h.bridge.handle(incoming("/new"), surface),
    ]);
    await h.bridge.handle(incoming("q2"), surface);
    expect(surface.messages.at(-1)).toContain("This is the first question in our conversation.");
  });

  it("answers a question waiting for room even when its notice is refused", async () => {
    const h = await start({
      simulator: { chunkDelayMs: 2 },
      bridge: { maxActive: 1, maxQueued: 10 },
    });
    const first = new MemorySurface();
    const second = new SavedSurface();
    const running = h.bridge.handle(
      incoming("first #delay=400", { threadKey: "t1", replyPlace: "t1" }),
      first,
    );
    await until("the first answering", () => (first.messages.length > 0 ? true : undefined));
    // The second waits for room: its "number 1 in line" notice meets a 429.
    second.failNextWithRateLimit(50);
    await Promise.all([
      running,
      h.bridge.handle(incoming("second", { threadKey: "t2", replyPlace: "t2" }), second),
    ]);
    // The notice met the 429 and was let go; the answer came all the same, in one message.
    expect(second.rateLimitsLeft).toBe(0);
    expect(second.calls.filter((c) => c.text.includes("in line"))).toEqual([]);
    expect(second.messages).toHaveLength(1);
    expect(second.messages[0]).toContain("You asked: “second”");
  });

  it("keeps going when the store fails mid-answer: the answer is shown, the process lives", async () => {
    const h = await start();
    // The store answers reads but every write fails, as when Redis drops mid-answer.
    const failingSaves = new Proxy(h.store, {
      get: (store, name) =>
        name === "set"
          ? () => Promise.reject(new StoreUnavailableError("set", new Error("connection lost")))
          : (Reflect.get(store, name, store)?.bind?.(store) ?? Reflect.get(store, name, store)),
    });
    const bridge = await startBridge({
      backend: h.backend,
      store: failingSaves,
      log: createLogger({ level: "silent", secrets: [] }),
      defaultLanguage: "auto",
      guards: {
        allowedChannels: [],
        allowedUsers: [],
        maxQuestionChars: 100,
        rateLimitQuestions: 0,
        rateLimitWindowSeconds: 1,
      },
      maxAnswerChars: 10_000,
    });
    const surface = new MemorySurface();
    await bridge.handle(incoming("still answered?"), surface);
    expect(surface.messages[0]).toContain("You asked: “still answered?”");
  });

  it("never posts an empty message for an answer of white space", async () => {
    const h = await start();
    const surface = new MemorySurface({
      renderer: { ...plainRenderer, render: (md) => md.trim() },
    });
    await h.bridge.handle(incoming("#empty"), surface);
    expect(surface.calls.every((c) => c.text.trim() !== "")).toBe(true);
    expect(surface.messages).toEqual(["(no answer)"]);
  });
});
