import { describe, expect, it, vi } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { startFakeTelegram, type Update } from "../support/fake-telegram.ts";
import { startBotInProcess } from "../support/in-process-bot.ts";
import { type ReceivedSpan, startOtlpReceiver } from "../support/otlp-receiver.ts";
import { cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";
import { startTestRedis } from "../support/redis.ts";
import { until } from "../support/run-bot.ts";
import { startScriptedBackend } from "../support/scripted-answers.ts";

const track = cleanupAfterEach();
vi.setConfig({ testTimeout: 60_000 });

const QUESTION = "@ChatBridgeBot what does the blue plan cost?";

/** A group with Alice in it, on a fake Telegram. */
async function team() {
  const telegram = track(await startFakeTelegram(), (f) => f.close());
  const alice = telegram.user(1001, "Alice");
  const group = telegram.addChat({ id: -1001, type: "supergroup", title: "Team" });
  const answerOf = (question: Update) =>
    telegram.botMessages(group.id).find((m) => m.replyTo === question.message.message_id);
  return { telegram, alice, group, answerOf };
}

/** The spans of one trace, by name. */
function named(spans: ReceivedSpan[], traceId: string): Map<string, ReceivedSpan[]> {
  const byName = new Map<string, ReceivedSpan[]>();
  for (const span of spans.filter((s) => s.traceId === traceId)) {
    byName.set(span.name, [...(byName.get(span.name) ?? []), span]);
  }
  return byName;
}

describe("traces of a question (OpenTelemetry over OTLP/HTTP)", () => {
  it("exports one trace per question: its states, the backend call, the platform and store calls, and no text or secret", async () => {
    const receiver = track(await startOtlpReceiver(), (r) => r.close());
    const { telegram, alice, group, answerOf } = await team();
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const bot = track(
      startBotInProcess({
        env: {
          ...telegramBotEnv(telegram, simulator),
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20collector-key-123",
          OTEL_SERVICE_NAME: "bridge-under-test",
        },
      }),
      (b) => b.stop(),
    );
    await bot.started;
    const question = telegram.write({ chat: group.id, from: alice, text: QUESTION });
    await bot.logLine("question answered");
    expect(answerOf(question)).toBeDefined();
    // The stop sends what is left.
    expect(await bot.stop()).toBe(0);

    expect(receiver.requests[0]?.headers.authorization).toBe("Bearer collector-key-123");
    expect(bot.stderr).not.toContain("collector-key-123");
    const spans = receiver.spans();
    const roots = spans.filter((s) => s.name === "question");
    expect(roots).toHaveLength(1);
    const [root] = roots;
    if (!root) throw new Error("no question span");
    expect(root).toMatchObject({
      parentSpanId: undefined,
      service: "bridge-under-test",
      attributes: {
        "chatbot_bridge.channel": "telegram",
        "chatbot_bridge.outcome": "done",
        "chatbot_bridge.question.how": "arrived",
      },
    });
    const trace = named(spans, root.traceId);
    for (const state of ["received", "waiting for its thread", "answering"]) {
      expect(trace.get(state)?.[0]?.parentSpanId, state).toBe(root.spanId);
    }
    const answering = trace.get("answering")?.[0];
    const chat = trace.get("chatbot chat")?.[0];
    expect(chat?.parentSpanId).toBe(answering?.spanId);
    expect(chat?.attributes).toMatchObject({
      "chatbot_bridge.chatbot": "default",
      "chatbot_bridge.outcome": "complete",
      "chatbot_bridge.backend.first_byte_ms": expect.any(Number),
      "chatbot_bridge.backend.bytes": expect.any(Number),
    });
    expect(Number(chat?.attributes["chatbot_bridge.backend.bytes"])).toBeGreaterThan(0);
    // The answer's messages, in the answer's span.
    const sent = trace.get("telegram sendMessage") ?? [];
    expect(sent.map((s) => s.parentSpanId)).toContain(answering?.spanId);
    expect(sent[0]?.attributes["chatbot_bridge.status"]).toBe("ok");
    // The store's reads and writes of the question (its line, its context) are in it too.
    const store = [...trace.keys()].filter((name) => name.startsWith("store "));
    expect(store).toEqual(expect.arrayContaining(["store lineJoin", "store getMany"]));
    // Never a text, a token or an id of a person or chat.
    const values = spans.flatMap((s) => Object.values(s.attributes).map(String));
    for (const secret of ["blue plan", telegram.token, String(alice.id), String(group.id)]) {
      expect(values.filter((v) => v.includes(secret))).toEqual([]);
    }
    // The timers' store calls (the presence, the sweeps) belong to no question: no trace.
    expect(spans.filter((s) => s.parentSpanId === undefined).map((s) => s.name)).toEqual([
      "question",
    ]);
  });

  it("exports protobuf unless told JSON, the OTLP default", async () => {
    const receiver = track(await startOtlpReceiver(), (r) => r.close());
    const { telegram, alice, group } = await team();
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const bot = track(
      startBotInProcess({
        env: {
          ...telegramBotEnv(telegram, simulator),
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
        },
      }),
      (b) => b.stop(),
    );
    await bot.started;
    telegram.write({ chat: group.id, from: alice, text: QUESTION });
    await bot.logLine("question answered");
    await bot.stop();
    expect(receiver.requests.map((r) => r.contentType)).toContain("application/x-protobuf");
    // Protobuf carries strings as they are: the span names are in the bytes.
    const body = Buffer.concat(receiver.requests.map((r) => r.body)).toString("latin1");
    for (const name of ["question", "answering", "chatbot chat"]) expect(body).toContain(name);
  });

  it("keeps a question answered by another process in one trace: its context goes with it through the shared queue", async (context) => {
    const redis = await startTestRedis("traces");
    if (!redis) return context.skip();
    track(redis, (r) => r.close());
    const receiver = track(await startOtlpReceiver(), (r) => r.close());
    const { telegram, alice, group, answerOf } = await team();
    const chatbot = track(await startScriptedBackend(), (b) => b.close());
    const env = {
      ...telegramBotEnv(telegram, { url: chatbot.backend.url, apiKey: "key", botUid: "bot-1" }),
      STORE_URL: redis.url,
      LEADS_POLL_INTERVAL: "0",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    };
    // The poller, with room for one answer: a second question goes to the shared queue.
    const poller = track(startBotInProcess({ env: { ...env, MAX_ACTIVE_ANSWERS: "1" } }), (b) =>
      b.stop(),
    );
    await poller.logLine("Telegram long polling started", 20_000);
    const other = track(startBotInProcess({ env }), (b) => b.stop());
    await other.started;

    const first = telegram.write({ chat: group.id, from: alice, text: QUESTION });
    chatbot.answer(1).send("Held, ");
    await until("the first answer begun", () => answerOf(first));
    const second = telegram.write({
      chat: group.id,
      from: telegram.user(1002, "Bob"),
      text: "@ChatBridgeBot and the red one?",
    });
    chatbot.answer(2).send("The red one.");
    chatbot.answer(2).end();
    await until("the second answer, from the other process", () =>
      answerOf(second)?.text === "The red one." ? true : undefined,
    );
    chatbot.answer(1).send("then done.");
    chatbot.answer(1).end();
    await until("the first answer whole", () =>
      answerOf(first)?.text === "Held, then done." ? true : undefined,
    );
    await other.logLine("question answered");
    // Both in this one test process share its one tracer, the poller's: it stops last.
    await other.stop();
    await poller.stop();

    const roots = receiver.spans().filter((s) => s.name === "question");
    const handedOver = roots.find((s) => s.attributes["chatbot_bridge.outcome"] === "handed over");
    const taken = roots.find(
      (s) => s.attributes["chatbot_bridge.question.how"] === "taken from the shared queue",
    );
    expect(handedOver).toBeDefined();
    // The taker's question goes on in the trace of the one that queued it, below it.
    expect(taken).toMatchObject({
      traceId: handedOver?.traceId,
      parentSpanId: handedOver?.spanId,
      attributes: { "chatbot_bridge.outcome": "done" },
    });
    const trace = named(receiver.spans(), handedOver?.traceId ?? "");
    expect(trace.get("queued")?.[0]?.parentSpanId).toBe(handedOver?.spanId);
    expect(trace.get("chatbot chat")).toHaveLength(1);
  });
});
