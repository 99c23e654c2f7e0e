import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { type SlackHarness, sign, startSlackHarness } from "../support/slack-harness.ts";

// The Slack walkthrough (docs/slack.md), held to what Slack and the bot do: a newcomer follows it
// in order, so each step must be possible when it is reached.

const ROOT = resolve(import.meta.dirname, "../..");
const README = readFileSync(resolve(ROOT, "docs/slack.md"), "utf8");
const MANIFEST = readFileSync(resolve(ROOT, "adapters/slack/manifest.yml"), "utf8");

const NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];

/** docs/slack.md's text under a `##` heading, up to the next heading. */
function section(heading: string): string {
  const start = README.indexOf(`\n## ${heading}\n`);
  expect(start, `docs/slack.md has no "## ${heading}"`).toBeGreaterThanOrEqual(0);
  const end = README.indexOf("\n#", start + heading.length + 4);
  return README.slice(start, end < 0 ? undefined : end);
}

/** The items of the manifest's list under `key:`, comments left out. */
function listUnder(key: string): string[] {
  const lines = MANIFEST.split("\n");
  const from = lines.findIndex((line) => line.trim() === `${key}:`);
  expect(from, `the manifest has no "${key}:"`).toBeGreaterThanOrEqual(0);
  const items: string[] = [];
  for (const line of lines.slice(from + 1)) {
    const item = /^\s*- ([^\s#]+)/.exec(line);
    if (!item?.[1]) break;
    items.push(item[1]);
  }
  return items;
}

let h: SlackHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("the Slack setup a newcomer follows", () => {
  it("recommends Socket Mode first, and its manifest edit leaves no request URL behind", () => {
    expect(README.indexOf("## First try: Socket Mode")).toBeGreaterThanOrEqual(0);
    expect(README.indexOf("## First try: Socket Mode")).toBeLessThan(
      README.indexOf("## Over HTTP"),
    );
    const urlLine = /^\s*(request_url|url):/;
    const lines = MANIFEST.split("\n");
    const removed = lines.filter((line) => urlLine.test(line));
    const edited = lines
      .filter((line) => !urlLine.test(line))
      .map((line) => line.replace("socket_mode_enabled: false", "socket_mode_enabled: true"));
    const settings = edited.filter((line) => !line.trimStart().startsWith("#"));
    expect(settings.filter((line) => line.includes("bot.example.com"))).toEqual([]);
    expect(settings).toContain("  socket_mode_enabled: true");
    // A count in the instructions must be the true one ("three" when there were five).
    const comments = lines.filter((line) => line.trimStart().startsWith("#")).join(" ");
    for (const [, count = ""] of comments.matchAll(/\b(\w+) (?:request )?URL lines\b/gi)) {
      const said = NUMBERS.indexOf(count.toLowerCase());
      expect(said >= 0 ? said : Number(count), `the manifest says "${count}"`).toBe(removed.length);
    }
  });

  it("makes an app of Slack's agent view: agent_view, the DM opening event, no assistant pane", () => {
    // https://docs.slack.dev/ai/migrating-to-agent-messaging/
    expect(MANIFEST).toMatch(/^ {2}agent_view:\n {4}agent_description: \S/m);
    expect(MANIFEST).not.toMatch(/^\s*assistant_view:/m);
    const events = listUnder("bot_events");
    expect(events).toEqual(expect.arrayContaining(["app_home_opened", "message.im"]));
    expect(events).not.toContain("assistant_thread_started");
    // Suggested prompts (assistant:write); whether a DM has a conversation yet (im:history).
    expect(listUnder("bot")).toEqual(expect.arrayContaining(["assistant:write", "im:history"]));
  });

  it("subscribes to Slack's own Stop on a streaming answer: agent_session_stopped", () => {
    // Unsubscribed, Slack shows a Stop that does nothing, or none at all.
    // https://docs.slack.dev/reference/events/agent_session_stopped
    expect(listUnder("bot_events")).toContain("agent_session_stopped");
    // Sessions in threads need chat:write; an agent app has assistant:write.
    expect(listUnder("bot")).toEqual(expect.arrayContaining(["chat:write", "assistant:write"]));
  });

  it("orders Slack over HTTP as Slack allows: create, install, start the bot, then verify the URL", () => {
    const http = section("Over HTTP");
    const steps = ["**Create**", "Install to Workspace", "npm start", "**Retry**"].map((step) => {
      const at = http.indexOf(step);
      expect(at, step).toBeGreaterThanOrEqual(0);
      return at;
    });
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
  });

  it("answers Slack's URL verification challenge once running: what Retry in Event Subscriptions sends", async () => {
    h = await startSlackHarness();
    const body = JSON.stringify({
      token: "legacy-verification-token",
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
      type: "url_verification",
    });
    const timestamp = Math.floor(Date.now() / 1000);
    const response = await request(h.eventsUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-slack-request-timestamp": String(timestamp),
        "x-slack-signature": sign(timestamp, body),
      },
      body,
    });
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toContain(
      "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
    );
  });
});
