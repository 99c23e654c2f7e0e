import { afterAll, afterEach } from "vitest";
import type { Simulator } from "../../src/simulator/index.ts";
import type { FakeTelegram } from "./fake-telegram.ts";
import { SIGNING_SECRET } from "./slack-events.ts";

/** Registers a resource with the way to close it, and hands the resource back. */
export type Track = <T>(resource: T, close: (resource: T) => Promise<unknown>) => T;

/**
 * Closes what a test started, after each test, last started first. Returns `track`, which
 * registers a resource with the way to close it and hands the resource back.
 */
export function cleanupAfterEach(): Track {
  return cleanupAfter(afterEach);
}

/**
 * Closes what the enclosing describe started (in its beforeAll, say: processes its tests
 * share), after its last test, last started first.
 */
export function cleanupAfterAll(): Track {
  return cleanupAfter(afterAll);
}

function cleanupAfter(hook: (fn: () => Promise<void>) => void): Track {
  const closers: (() => Promise<unknown>)[] = [];
  hook(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });
  return (resource, close) => {
    closers.push(() => close(resource));
    return resource;
  };
}

/** Where a bot process finds its chatbot: the simulator, or a test's own backend. */
export type BackendAddress = Pick<Simulator, "url" | "apiKey" | "botUid">;

/** The environment of a bot process that talks to this fake Telegram and this backend. */
export function telegramBotEnv(
  fake: FakeTelegram,
  backend: BackendAddress,
): Record<string, string> {
  return {
    TELEGRAM_BOT_TOKEN: fake.token,
    TELEGRAM_API_ROOT: fake.url,
    CHATBOT_BASE_URL: backend.url,
    CHATBOT_API_KEY: backend.apiKey,
    CHATBOT_BOT_UID: backend.botUid,
    PORT: "0",
  };
}

/**
 * The environment of a bot process on Slack over HTTP with this backend: `apiUrl` is a fake
 * Slack's (or an address where none listens yet), `botToken` the token it accepts.
 */
export function slackBotEnv(
  slack: { apiUrl: string; botToken: string },
  backend: BackendAddress,
): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    CHATBOT_BASE_URL: backend.url,
    CHATBOT_API_KEY: backend.apiKey,
    CHATBOT_BOT_UID: backend.botUid,
    LEADS_POLL_INTERVAL: "0",
    PORT: "0",
  };
}
