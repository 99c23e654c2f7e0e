import { describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { FakeSlack } from "../support/fake-slack.ts";
import { httpOf, isRunning, trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, slackBotEnv } from "../support/process-test.ts";
import { until } from "../support/run-bot.ts";
import { mention, sign, signedJsonHeaders } from "../support/slack-harness.ts";

const track = cleanupAfterEach();

const FORM = "application/x-www-form-urlencoded";

/** Bodies Slack never sends, each correctly signed: a signature proves who sent it, not its shape. */
const MALFORMED: { name: string; body: string; contentType?: string }[] = [
  { name: "JSON null", body: "null" },
  { name: "form payload=null", body: "payload=null", contentType: FORM },
  { name: "JSON array", body: "[1,2]" },
  { name: "form payload of an array", body: "payload=%5B%5D", contentType: FORM },
  { name: "JSON string", body: '"event_callback"' },
  { name: "JSON number", body: "42" },
  { name: "JSON true", body: "true" },
  { name: "an event callback without an event", body: '{"type":"event_callback"}' },
  { name: "an event callback whose event is null", body: '{"type":"event_callback","event":null}' },
  { name: "an event callback whose event is text", body: '{"type":"event_callback","event":"x"}' },
  {
    name: "an event of no type in a thread",
    body: '{"type":"event_callback","team_id":"T0FAKE","event":{"channel":"C1","thread_ts":null}}',
  },
];

function signed(body: string, contentType = "application/json"): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    "content-type": contentType,
    "x-slack-request-timestamp": String(timestamp),
    "x-slack-signature": sign(timestamp, body),
  };
}

describe("a Slack request with a valid signature and a body Slack never sends", () => {
  it("is refused with a 4xx, and the bot keeps answering Slack", async () => {
    const fake = track(await FakeSlack.start({ streaming: false }), (f) => f.close());
    const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
    const bot = trackedBot(
      track,
      slackBotEnv({ apiUrl: fake.apiUrl, botToken: fake.options.botToken }, simulator),
    );
    const base = await httpOf(bot);

    const statuses: Record<string, number> = {};
    for (const { name, body, contentType } of MALFORMED) {
      const response = await fetch(`${base}/slack/events`, {
        method: "POST",
        headers: signed(body, contentType),
        body,
      });
      await response.arrayBuffer();
      statuses[name] = response.status;
    }
    expect(statuses).toEqual(Object.fromEntries(MALFORMED.map(({ name }) => [name, 400])));
    // Unsigned, the same body is refused as unsigned: the signature is checked first.
    const unsigned = await fetch(`${base}/slack/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "null",
    });
    expect(unsigned.status).toBe(401);

    expect(await isRunning(bot)).toBe(true);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const body = JSON.stringify({
      type: "event_callback",
      team_id: "T0FAKE",
      event_id: "EvAfterMalformed",
      event: mention("still there?", { ts: "1700000300.000001" }),
    });
    const delivered = await fetch(`${base}/slack/events`, {
      method: "POST",
      headers: signedJsonHeaders(body),
      body,
    });
    expect(delivered.status).toBe(200);
    const answer = await until("the answer after the malformed bodies", () =>
      fake.thread("C1", "1700000300.000001").find((m) => m.text.includes("still there?")),
    );
    expect(answer.text).toContain("You asked");
    expect(bot.stderr).not.toContain("Cannot read properties");
  });
});
