import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createWebClient } from "../../adapters/slack/api.ts";
import { boltLogger } from "../../adapters/slack/bolt-logger.ts";
import { MAX_MESSAGE_CHARS } from "../../adapters/slack/limits.ts";
import { SlackSurface } from "../../adapters/slack/surface.ts";
import { Workspace } from "../../adapters/slack/workspace.ts";
import { createLogger } from "../../src/log.ts";
import { openStore } from "../../src/store/open-store.ts";
import { FakeSlack } from "../support/fake-slack.ts";
import { replySurfaceContract, type SurfaceUnderTest } from "../support/reply-surface-contract.ts";

const TEXT_METHODS = new Set([
  "chat.postMessage",
  "chat.update",
  "chat.startStream",
  "chat.appendStream",
  "chat.stopStream",
]);

/** A Slack thread, with its fakes; `close` stops them. */
async function open(): Promise<SurfaceUnderTest> {
  const fake = await FakeSlack.start();
  const dataDir = await mkdtemp(join(tmpdir(), "slack-surface-"));
  const store = await openStore({ dataDir });
  const log = createLogger({ level: "silent", secrets: [] });
  const { botToken, team } = fake.options;
  const threadTs = "1700000000.000100";
  const surface = new SlackSurface({
    client: createWebClient(botToken, {
      apiUrl: fake.apiUrl,
      timeoutMs: 5_000,
      logger: boltLogger(log),
    }),
    workspace: new Workspace(
      team,
      {
        updates: { perWindow: 600, burst: 5 },
        appends: { perWindow: 600, burst: 5 },
        windowMs: 60_000,
      },
      store,
    ),
    thread: {
      teamId: team,
      channel: "C1",
      threadTs,
      userId: "U1",
      userTeamId: team,
      assistant: false,
    },
    log,
    nativeStreaming: true,
    minEditIntervalMs: 0,
    streamMaxAgeMs: 60_000,
  });
  return {
    surface,
    textCalls: () => fake.calls.filter((c) => TEXT_METHODS.has(c.method)).length,
    messages: () => fake.thread("C1", threadTs).map((m) => m.text),
    close: async () => {
      await fake.close();
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

replySurfaceContract(
  "a Slack thread",
  open,
  // mrkdwn and Markdown a second rendering would change: stars, a link, an escaped <.
  ["*bold* and **stars**", " with <https://example.com|a link>", " and \\<kept\\>"],
);

it("tells the engine Slack's longest message, so answers split where the platform would", async () => {
  const under = await open();
  try {
    expect(under.surface.limits.maxMessageLength).toBe(MAX_MESSAGE_CHARS);
  } finally {
    await under.close();
  }
});
