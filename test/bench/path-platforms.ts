// The two messages whose path the path section counts, each on the fake platform the tests
// use (test/support): a Slack @mention in a channel, over the HTTP Events API, and a Telegram
// private message, by long polling (no TELEGRAM_WEBHOOK_URL: how `npm start` runs).
import { request } from "undici";
import { FakeSlack } from "../support/fake-slack.ts";
import { type FakeTelegram, startFakeTelegram } from "../support/fake-telegram.ts";
import {
  BOT,
  eventEnvelope,
  SIGNING_SECRET,
  signedJsonHeaders,
  TEAM,
} from "../support/slack-events.ts";

export type PathPlatformName = "slack" | "telegram";

/** A fake platform, the bot's settings for it, and a person who writes to the bot there. */
export interface PathPlatform {
  /** What the message is, for the report. */
  readonly message: string;
  /** The bot's environment for this platform (and this platform only). */
  readonly env: Record<string, string>;
  /** The person's nth message reaches the bot at `botUrl` (its HTTP server). */
  send(n: number, botUrl: string): Promise<void>;
  close(): Promise<void>;
}

export function startPathPlatform(name: PathPlatformName): Promise<PathPlatform> {
  return name === "slack" ? slackMention() : telegramPrivate();
}

const CHANNEL = "C1";
const PERSON = "U1";

async function slackMention(): Promise<PathPlatform> {
  const fake = await FakeSlack.start({ users: { [PERSON]: {} } });
  return {
    message:
      "a Slack @mention in a channel (HTTP Events API: app_mention and its message event, as Slack sends both)",
    env: {
      SLACK_BOT_TOKEN: fake.options.botToken,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
    },
    async send(n, botUrl) {
      const ts = `1700000600.${String(n).padStart(6, "0")}`;
      const text = `<@${BOT}> How does it work, part ${n}?`;
      fake.personWrote({ channel: CHANNEL, ts, text, user: PERSON });
      const at = { user: PERSON, text, ts, channel: CHANNEL, team: TEAM, event_ts: ts };
      await Promise.all([
        postEvent(botUrl, { type: "app_mention", ...at }),
        postEvent(botUrl, { type: "message", channel_type: "channel", ...at }),
      ]);
    },
    close: () => fake.close(),
  };
}

async function postEvent(botUrl: string, event: Record<string, unknown>): Promise<void> {
  const body = JSON.stringify(eventEnvelope(event));
  const response = await request(`${botUrl}/slack/events`, {
    method: "POST",
    headers: signedJsonHeaders(body),
    body,
  });
  await response.body.dump();
  if (response.statusCode !== 200) throw new Error(`Slack event: HTTP ${response.statusCode}`);
}

async function telegramPrivate(): Promise<PathPlatform> {
  const fake: FakeTelegram = await startFakeTelegram();
  const person = fake.user(1001, "Alice");
  const chat = fake.addChat({ id: person.id, type: "private", first_name: "Alice" });
  return {
    message: "a Telegram private message (long polling)",
    env: { TELEGRAM_BOT_TOKEN: fake.token, TELEGRAM_API_ROOT: fake.url },
    async send(n) {
      fake.write({ chat: chat.id, from: person, text: `How does it work, part ${n}?` });
    },
    close: () => fake.close(),
  };
}
