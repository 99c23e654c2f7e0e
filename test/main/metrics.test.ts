import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { FakeSlack } from "../support/fake-slack.ts";
import { startFakeTelegram } from "../support/fake-telegram.ts";
import { metricsWhen, trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";
import {
  eventEnvelope,
  mention,
  SIGNING_SECRET,
  signedJsonHeaders,
} from "../support/slack-harness.ts";

const track = cleanupAfterEach();
const VERSION = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;

/** One scrape as a Prometheus server reads it: each sample by name and its labels. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const [, name = "", labels = "", value = ""] = match;
    const pairs = [...labels.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)];
    samples.push({
      name,
      labels: Object.fromEntries(pairs.map(([, key = "", v = ""]) => [key, v])),
      value: Number(value),
    });
  }
  return samples;
}

/** The value of the one sample with this name and (at least) these labels. */
function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}) {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  expect(found.length, `${name}${JSON.stringify(labels)}`).toBe(1);
  return found[0]?.value;
}

describe("GET /metrics, as an operator's Prometheus reads it", () => {
  it("has Node's standard names, build info, zeroed series, and counts questions, backend first bytes and platform calls", async () => {
    const slack = track(await FakeSlack.start(), (f) => f.close());
    const telegram = track(await startFakeTelegram(), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const alice = telegram.user(1001, "Alice", "alice_example");
    const dm = telegram.addChat({ id: alice.id, type: "private", first_name: "Alice" });
    // Telegram refuses the command menu (a 4xx), Slack says to slow down once (a 429).
    telegram.failNext({ method: "setMyCommands", errorCode: 400, description: "Bad Request" });
    slack.rateLimitNext("chat.postMessage", 1);

    const bot = trackedBot(track, {
      ...telegramBotEnv(telegram, simulator),
      SLACK_BOT_TOKEN: slack.options.botToken,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      SLACK_NATIVE_STREAMING: "false",
      LEADS_POLL_INTERVAL: "0",
    });
    const { port } = await bot.logLine("HTTP server listening (/healthz, /metrics)");
    const url = `http://127.0.0.1:${port}`;
    const scrape = async () => parseSamples(await (await fetch(`${url}/metrics`)).text());

    const fresh = await scrape();
    // Node's default metrics under their usual names: stock dashboards find them.
    expect(fresh.some((s) => s.name === "process_cpu_seconds_total")).toBe(true);
    expect(fresh.some((s) => s.name === "nodejs_heap_size_used_bytes")).toBe(true);
    expect(fresh.filter((s) => /^chatbot_bridge_(process|nodejs)_/.test(s.name))).toEqual([]);
    expect(
      sampleValue(fresh, "chatbot_bridge_build_info", { version: VERSION, node: process.version }),
    ).toBe(1);
    // Before anything happened, the known series are there at 0.
    for (const channel of ["slack", "telegram"]) {
      for (const outcome of ["complete", "cut", "error"]) {
        expect(sampleValue(fresh, "chatbot_bridge_questions_total", { channel, outcome })).toBe(0);
      }
      expect(sampleValue(fresh, "chatbot_bridge_rate_limited_total", { channel })).toBe(0);
      expect(sampleValue(fresh, "chatbot_bridge_answer_seconds_count", { channel })).toBe(0);
      // Buckets reach Slack's 5-minute stream.
      expect(
        sampleValue(fresh, "chatbot_bridge_answer_seconds_bucket", { channel, le: "300" }),
      ).toBe(0);
    }
    expect(
      sampleValue(fresh, "chatbot_bridge_backend_errors_total", { kind: "BACKEND_TIMEOUT" }),
    ).toBe(0);
    expect(sampleValue(fresh, "chatbot_bridge_lead_polls_total", { outcome: "failed" })).toBe(0);
    expect(sampleValue(fresh, "chatbot_bridge_leads_fetched_total")).toBe(0);
    // The platforms' routes are timed from the start: Slack's deliveries want an answer in 3 s.
    const slackRoute = { route: "/slack/events" };
    expect(sampleValue(fresh, "chatbot_bridge_delivery_seconds_count", slackRoute)).toBe(0);
    expect(fresh.some((s) => s.name === "chatbot_bridge_leads_polled_total")).toBe(false);

    await bot.logLine({ msg: "channel started", channel: "slack" });
    const body = JSON.stringify(
      eventEnvelope(mention("metrics please", { ts: "1700000300.000100" })),
    );
    const delivered = await fetch(`${url}/slack/events`, {
      method: "POST",
      headers: signedJsonHeaders(body),
      body,
    });
    expect(delivered.status).toBe(200);
    telegram.write({ chat: dm.id, from: alice, text: "metrics from Telegram" });

    const answered = (channel: string) =>
      `chatbot_bridge_questions_total{channel="${channel}",outcome="complete"} 1`;
    const counted = parseSamples(
      await metricsWhen(
        url,
        (text) => text.includes(answered("slack")) && text.includes(answered("telegram")),
        15_000,
      ),
    );
    expect(sampleValue(counted, "chatbot_bridge_backend_first_byte_seconds_count")).toBe(2);
    // The one Slack delivery, answered within Slack's 3 s; /metrics itself is not counted.
    expect(sampleValue(counted, "chatbot_bridge_delivery_seconds_count", slackRoute)).toBe(1);
    expect(
      sampleValue(counted, "chatbot_bridge_delivery_seconds_bucket", { ...slackRoute, le: "3" }),
    ).toBe(1);
    expect(counted.some((s) => s.labels.route === "/metrics")).toBe(false);
    expect(sampleValue(counted, "chatbot_bridge_answer_seconds_count", { channel: "slack" })).toBe(
      1,
    );
    const calls = (platform: string, method: string, status: string) =>
      counted.find(
        (s) =>
          s.name === "chatbot_bridge_platform_calls_total" &&
          s.labels.platform === platform &&
          s.labels.method === method &&
          s.labels.status === status,
      )?.value ?? 0;
    expect(calls("slack", "auth.test", "ok")).toBe(1);
    expect(calls("slack", "chat.postMessage", "429")).toBe(1);
    expect(calls("slack", "chat.postMessage", "ok")).toBeGreaterThanOrEqual(1);
    expect(calls("telegram", "getMe", "ok")).toBe(1);
    expect(calls("telegram", "setMyCommands", "4xx")).toBe(1);
    expect(calls("telegram", "getUpdates", "ok")).toBeGreaterThanOrEqual(1);
    // Labels name methods and classes only: no text, no chat or user ids.
    const labelValues = counted.flatMap((s) => Object.values(s.labels)).join(" ");
    expect(labelValues).not.toMatch(/metrics please|metrics from Telegram|1001|C1|U1/);
  });
});
