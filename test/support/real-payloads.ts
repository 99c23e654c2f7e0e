import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/**
 * Real Slack and Telegram deliveries, recorded by other projects, each with what a person
 * would expect the bot to do (`../shared/real-payloads/README.md`). They live beside the
 * project, never inside it: the tests read them where they are.
 */
export const REAL_PAYLOADS_DIR = fileURLToPath(
  new URL("../../../shared/real-payloads/", import.meta.url),
);

/** What a person expects of one payload; the kinds are explained where the tests check them. */
export const expectation = z.looseObject({
  kind: z.enum([
    "challenge",
    "answer",
    "dm-answer",
    "dm-one-reply",
    "none",
    "greeting",
    "command-reply",
    "command",
    "one-reply",
    "note-or-nothing",
  ]),
  challenge: z.string().optional(),
  channel: z.string().optional(),
  thread_ts: z.string().optional(),
  ts: z.string().optional(),
  chat: z.number().optional(),
  replyTo: z.number().optional(),
  /** The id of an earlier payload whose conversation with the chatbot this one continues. */
  sameConversationAs: z.string().optional(),
  /** Text that must never reach the chatbot. */
  notToBackend: z.string().optional(),
  /** Highest HTTP status the delivery may get (default: a 2xx). */
  maxStatus: z.number().optional(),
  /** A warning or error in the log is tolerated for this payload. */
  logMayComplain: z.boolean().optional(),
});

export type Expectation = z.infer<typeof expectation>;

const slackDelivery = z.discriminatedUnion("as", [
  z.object({ as: z.literal("event"), json: z.record(z.string(), z.unknown()) }),
  z.object({ as: z.literal("form"), form: z.record(z.string(), z.string()) }),
]);

export type SlackDelivery = z.infer<typeof slackDelivery>;

const slackFile = z.object({
  bot: z.object({ user: z.string(), bot_id: z.string(), team: z.string(), app: z.string() }),
  payloads: z
    .array(
      z.looseObject({
        id: z.string(),
        title: z.string(),
        expect: expectation,
        deliveries: z.array(slackDelivery).min(1),
      }),
    )
    .min(1),
});

export type SlackPayload = z.infer<typeof slackFile>["payloads"][number];

const telegramFile = z.object({
  bot: z.object({ id: z.number(), username: z.string() }),
  payloads: z
    .array(
      z.looseObject({
        id: z.string(),
        title: z.string(),
        expect: expectation,
        update: z.looseObject({ update_id: z.number() }),
      }),
    )
    .min(1),
});

export type TelegramPayload = z.infer<typeof telegramFile>["payloads"][number];

/**
 * slack.json, read and checked. Undefined, with one line saying so, when the shared folder is
 * not beside the project (a fresh clone on its own); with REQUIRE_REAL_PAYLOADS=1 (CI, where
 * it is always there) a missing file is a failure instead.
 */
export function loadSlackPayloads(): z.infer<typeof slackFile> | undefined {
  return load("slack.json", slackFile);
}

/** telegram.json, read and checked, like loadSlackPayloads. */
export function loadTelegramPayloads(): z.infer<typeof telegramFile> | undefined {
  return load("telegram.json", telegramFile);
}

function load<T>(name: string, schema: z.ZodType<T>): T | undefined {
  const path = `${REAL_PAYLOADS_DIR}${name}`;
  if (!existsSync(path)) {
    const why = `${path} is missing (../shared/real-payloads/${name} beside the project root)`;
    if (process.env.REQUIRE_REAL_PAYLOADS === "1") {
      throw new Error(`REQUIRE_REAL_PAYLOADS=1 but ${why}`);
    }
    console.warn(`[real payloads] skipped: ${why}`);
    return undefined;
  }
  const parsed = schema.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success) {
    throw new Error(`${path} is not in the shape the real-payload test reads: ${parsed.error}`);
  }
  return parsed.data;
}
