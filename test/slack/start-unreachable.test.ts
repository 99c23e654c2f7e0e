import { afterEach, describe, expect, it } from "vitest";
import { createSlackChannel } from "../../adapters/slack/index.ts";
import { StartupError } from "../../src/errors.ts";
import { createLogger } from "../../src/log.ts";
import { type Harness, startHarness } from "../support/bridge-harness.ts";
import { freePort } from "../support/redis.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("a Slack the bot cannot reach at start", () => {
  it("stops the start with one line naming SLACK_API_URL and the system's reason", async () => {
    harness = await startHarness();
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
