import { describe, expect, it } from "vitest";
import { createSlackChannel } from "../../adapters/slack/index.ts";
import { StartupError } from "../../src/errors.ts";
import { createLogger } from "../../src/log.ts";
import { startHarness } from "../support/bridge-harness.ts";
import { cleanupAfterEach } from "../support/process-test.ts";
import { freePort } from "../support/redis.ts";

const track = cleanupAfterEach();

describe("a Slack the bot cannot reach at start", () => {
  it("stops the start with one line naming SLACK_API_URL and the system's reason", async () => {
    const harness = track(await startHarness(), (h) => h.close());
    const channel = createSlackChannel({
      botToken: "xoxb-secret-token",
      signingSecret: "signing-secret",
      // Nothing listens here: every connection is refused.
      apiUrl: `http://127.0.0.1:${await freePort()}/api/`,
      adminUsers: [],
      bridge: harness.bridge,
      store: harness.store,
      log: createLogger({ level: "silent", secrets: [] }),
      startAttempts: 1,
    });
    const error = await channel.start().then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(StartupError);
    expect((error as StartupError).variable).toBe("SLACK_API_URL");
    expect((error as Error).message).toMatch(
      /^Slack auth\.test kept failing: .*ECONNREFUSED\. Check this machine's network and, if set, SLACK_API_URL; then start again$/,
    );
    expect((error as Error).message).not.toContain("xoxb-secret-token");
    await channel.stop();
  });
});
