import { z } from "zod";
import { LANGUAGE_CODES, type LanguageCode, readLanguageCode } from "./backend/languages.ts";
import { ConfigError } from "./errors.ts";
import { catalogLanguageOf } from "./i18n/pick-language.ts";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The defaults of the settings that parts of the bot fall back to when built without them
 * (as tests build them): here, and nowhere else. The platforms' own numbers, with their
 * sources, are in each adapter's limits.ts.
 */
export const DEFAULTS = {
  /** CHATBOT_TIMEOUT_MS: wait for the response headers. */
  backendTimeoutMs: 30_000,
  /** CHATBOT_IDLE_TIMEOUT_MS: longest silence inside a streaming answer. */
  backendIdleTimeoutMs: 60_000,
  /**
   * How long the backend may stay silent before the typing sign shows (Slack's status,
   * Telegram's typing action). One that shows and vanishes within moments reads as a
   * flicker and costs a call: an answer whose first text comes sooner shows none.
   */
  typingDelayMs: 500,
  /** TAKEOVER_MS: how long a lease of a process that died keeps holding. */
  takeoverMs: 10_000,
  /**
   * The answer journal's round with no platform on (the terminal): the platforms' default
   * edit pace. With a platform, the round follows its edit interval (src/bot.ts, editPace).
   */
  journalRoundMs: 1_000,
  /**
   * SLACK_EDIT_INTERVAL_MS. Slack names no per-message rate, but one change a second reads as
   * smooth growth and keeps a single answer near chat.postMessage's pace of about one message
   * a second per channel. https://docs.slack.dev/apis/web-api/rate-limits#posting-messages
   */
  slackEditIntervalMs: 1_000,
  /** SLACK_UPDATES_PER_MINUTE: chat.update's Tier 3 (CHAT_UPDATE_PER_MINUTE). */
  slackUpdatesPerMinute: 50,
  /** SLACK_APPENDS_PER_MINUTE: chat.appendStream's Tier 4 (APPEND_STREAM_PER_MINUTE). */
  slackAppendsPerMinute: 100,
  /** SLACK_NATIVE_STREAMING: try chat.startStream first. */
  slackNativeStreaming: true,
  /**
   * TELEGRAM_EDIT_INTERVAL_MS: an edit a second in a private chat keeps to Telegram's "avoid
   * sending more than one message per second in a particular chat".
   * https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this
   */
  telegramEditIntervalMs: 1_000,
  /**
   * TELEGRAM_GROUP_EDIT_INTERVAL_MS: an edit every three seconds per answer in groups takes a
   * third of a group's 20 messages a minute, so a few answers can stream side by side.
   */
  telegramGroupEditIntervalMs: 3_000,
  /** TELEGRAM_GROUP_MESSAGES_PER_MINUTE: Telegram's budget per group (GROUP_MESSAGES_PER_MINUTE). */
  telegramGroupMessagesPerMinute: 20,
  /**
   * TELEGRAM_DRAFTS: private chats stream by one message edited as it grows, not by native
   * drafts, whose last frame stays drawn over the answer on some clients (docs/telegram.md, "Drafts").
   */
  telegramDrafts: false,
  /**
   * TELEGRAM_RICH_MESSAGES: answers as HTML messages, not Bot API 10.1 rich messages, which
   * Telegram accepts but Telegram Web, the macOS app and some other clients cannot show
   * (docs/telegram.md, "Rich messages").
   */
  telegramRichMessages: false,
  /** CONTEXT_MAX_MESSAGES: earlier messages a first question carries at most. */
  contextMaxMessages: 20,
  /** CONTEXT_MAX_CHARS: characters those messages take at most, names included. */
  contextMaxChars: 6_000,
  /**
   * How long a first question waits for its discussion to be read (a Slack thread's history):
   * past it the question goes without, so the answer never starts later than this for it.
   */
  contextTimeoutMs: 1_000,
} as const;

/** pino's levels, quietest last. */
const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

// Empty strings count as unset, so `FOO=` in .env falls back to the default.
const optionalText = z.preprocess(
  (v) => (typeof v === "string" && v.trim() === "" ? undefined : v),
  z.string().trim().optional(),
);

const SECOND_MS = 1_000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

const UNITS = [
  [DAY_MS, "day"],
  [HOUR_MS, "hour"],
  [MINUTE_MS, "minute"],
  [SECOND_MS, "second"],
] as const;

/** A duration in its setting's unit and then in words: 3600000 ms as "3600000 (1 hour)". */
function spellDuration(n: number, unitMs: number): string {
  const ms = n * unitMs;
  const unit = UNITS.find(([size]) => ms >= size && ms % size === 0);
  if (!unit) return String(n);
  const count = ms / unit[0];
  return `${n} (${count} ${unit[1]}${count === 1 ? "" : "s"})`;
}

/**
 * A duration setting written in ms, or in seconds (`unitMs` 1000), with its default in that
 * unit and its bounds in ms. Every upper bound stays far below the 2^31-1 ms (about 24.8
 * days) Node's timers can wait: a longer one fires at once.
 * https://nodejs.org/api/timers.html#settimeoutcallback-delay-args
 */
function duration(defaultValue: number, minMs: number, maxMs: number, unitMs = 1) {
  return integer(defaultValue, minMs / unitMs, maxMs / unitMs, (n) => spellDuration(n, unitMs));
}

function integer(
  defaultValue: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
  say: (n: number) => string = String,
) {
  return optionalText.pipe(
    z
      .string()
      // Plain digits only: Number() would also take "0x10", "1e3" or "Infinity".
      .regex(/^\d+$/, { error: "must be a whole number, in digits" })
      .transform(Number)
      .pipe(
        z
          .number()
          .min(min, { error: `must be at least ${say(min)}` })
          .max(max, { error: `must be at most ${say(max)}` }),
      )
      .default(defaultValue),
  );
}

/** A setting that is `on` or `off`, `defaultValue` when unset. */
/**
 * A token checked for its shape before any call: a swapped or truncated one is named at once,
 * not after a platform's retries. The message says what was found by its prefix alone, never
 * the token itself.
 */
function token(shape: RegExp, what: string) {
  return optionalText.pipe(
    z
      .string()
      .refine((value) => shape.test(value), {
        error: (issue) => {
          const found = /^(xox[a-z]|xapp)-/.exec(String(issue.input))?.[0];
          return `must be ${what}${found ? `, not a ${found}… token` : ""}`;
        },
      })
      .optional(),
  );
}

function onOff(defaultValue: boolean) {
  return optionalText.pipe(
    z
      .enum(["on", "off"], { error: "must be on or off" })
      .optional()
      .transform((v) => (v === undefined ? defaultValue : v === "on")),
  );
}

const idList = optionalText.transform((v) =>
  v
    ? v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : [],
);

const httpUrl = optionalText.pipe(
  z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
);

// https://opentelemetry.io/docs/specs/otel/protocol/exporter/#specify-protocol: over HTTP only.
const otlpProtocol = optionalText.pipe(
  z
    .enum(["http/protobuf", "http/json"], {
      error: "must be http/protobuf or http/json (the bot exports OTLP over HTTP, not grpc)",
    })
    .optional(),
);

/**
 * OTLP headers, `key=value,key=value` with URL-encoded values
 * (https://opentelemetry.io/docs/specs/otel/protocol/exporter/#specifying-headers-via-environment-variables).
 */
const otlpHeaders = optionalText.transform((value, ctx) => {
  if (value === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const part of value.split(",")) {
    const at = part.indexOf("=");
    const key = part.slice(0, at).trim();
    if (at <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) {
      ctx.addIssue({ code: "custom", message: "must be key=value pairs, comma-separated" });
      return undefined;
    }
    try {
      headers[key] = decodeURIComponent(part.slice(at + 1).trim());
    } catch {
      ctx.addIssue({ code: "custom", message: "has a value that is not URL-encoded" });
      return undefined;
    }
  }
  return headers;
});

// https://core.telegram.org/bots/api#setwebhook (secret_token)
const TELEGRAM_WEBHOOK_SECRET = /^[A-Za-z0-9_-]{1,256}$/;

/**
 * The name of the one chatbot CHATBOT_BOT_UID names (or the simulated backend's one), where
 * CHATBOTS would name each: `/chatbot` shows it, and records of one chatbot need a name too.
 */
export const DEFAULT_CHATBOT_NAME = "default";

/** A chatbot's name in CHATBOTS and SIMULATOR_BOTS: what people type after `/chatbot use`. */
const CHATBOT_NAME = /^[a-z0-9_]{1,32}$/;
const NAME_RULE = "lowercase letters, digits and _ (at most 32)";

/** OpenTelemetry traces over OTLP/HTTP, from the standard OTEL_* variables. */
export interface TracingConfig {
  /** The traces endpoint: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  url: string;
  protocol: "http/protobuf" | "http/json";
  headers: Record<string, string>;
  serviceName: string;
}

/** One Sentinel of STORE_SENTINELS. */
export interface SentinelNode {
  host: string;
  port: number;
}

/** Redis through Sentinel: where the Sentinels are, and the name of the primary they watch. */
export interface StoreSentinel {
  nodes: SentinelNode[];
  name: string;
}

/** "host:port" (an IPv6 host in brackets), or undefined for anything else. */
function sentinelNode(part: string): SentinelNode | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(part);
  const port = Number(match?.[3]);
  const host = match?.[1] ?? match?.[2];
  if (!host || !Number.isInteger(port) || port < 1 || port > 65_535) return undefined;
  return { host, port };
}

/** One chatbot of the account: the name people pick it by, and its bot_uid in the API. */
export interface ChatbotSpec {
  name: string;
  botUid: string;
}

/** A comma-separated list, each entry checked by `entry`, at least one, none named twice. */
function namedList<T extends { name: string }>(
  entry: (part: string) => T | string,
  example: string,
) {
  return optionalText.transform((value, ctx): T[] | undefined => {
    if (value === undefined) return undefined;
    const parts = value.split(",").map((part) => part.trim());
    const entries: T[] = [];
    for (const part of parts) {
      const read = part === "" ? `has an empty entry: write ${example}` : entry(part);
      if (typeof read === "string") ctx.addIssue({ code: "custom", message: read });
      else entries.push(read);
    }
    const names = entries.map((e) => e.name);
    const twice = names.filter((name, index) => names.indexOf(name) !== index);
    if (twice.length > 0) {
      ctx.addIssue({ code: "custom", message: `names ${[...new Set(twice)].join(", ")} twice` });
    }
    return entries;
  });
}

const chatbotName = (name: string): string | undefined =>
  CHATBOT_NAME.test(name) ? undefined : `has the name "${name}": a name is ${NAME_RULE}`;

/** CHATBOTS: `support:<bot_uid>,sales:<bot_uid>`. A bot_uid is not secret (it is in every path). */
const chatbotList = namedList<ChatbotSpec>((part) => {
  const colon = part.indexOf(":");
  // `support bot-x`: a space typed where the colon goes.
  if (colon < 0 && /\s/.test(part)) {
    const words = part.split(/\s+/);
    const meant = words.length === 2 ? words.join(":") : "name:<bot_uid>";
    return `has "${part}", with a space where the colon goes: an entry is name:bot_uid (write ${meant})`;
  }
  const name = colon < 0 ? part : part.slice(0, colon).trim();
  const botUid = colon < 0 ? "" : part.slice(colon + 1).trim();
  if (botUid === "") return `has "${name}" without its bot_uid: write ${name}:<bot_uid>`;
  // `support:uid-1 sales:uid-2`: a space typed where the comma goes (a bot_uid names the
  // chatbot in a URL path: a space in one is a slip).
  if (/\s/.test(botUid)) {
    return `has the bot_uid "${botUid}" for ${name}, with a space in it: an entry is name:bot_uid, and a comma goes between entries (name:<bot_uid>,name:<bot_uid>)`;
  }
  return chatbotName(name) ?? { name, botUid };
}, "name:<bot_uid>,name:<bot_uid>").refine(
  (list) => {
    const uids = (list ?? []).map((c) => c.botUid);
    return new Set(uids).size === uids.length;
  },
  { error: "names one bot_uid twice: each chatbot once" },
);

/** SIMULATOR_BOTS: `support,sales`, the simulated chatbots' names. */
const simulatorBots = namedList<{ name: string }>(
  (name) => chatbotName(name) ?? { name },
  "support,sales",
);

/** MAX_ACTIVE_ANSWERS when unset (see its entry in the schema). */
const DEFAULT_MAX_ACTIVE_ANSWERS = 100;

const envSchema = z
  .object({
    CHATBOT_BASE_URL: httpUrl,
    CHATBOT_API_KEY: optionalText,
    CHATBOT_BOT_UID: optionalText,
    CHATBOTS: chatbotList,
    SIMULATOR_BOTS: simulatorBots,
    CHATBOT_TIMEOUT_MS: duration(DEFAULTS.backendTimeoutMs, SECOND_MS, 10 * MINUTE_MS),
    CHATBOT_IDLE_TIMEOUT_MS: duration(DEFAULTS.backendIdleTimeoutMs, SECOND_MS, HOUR_MS),
    CHATBOT_ANSWER_TIMEOUT_MS: duration(300_000, SECOND_MS, HOUR_MS),
    STORE_URL: optionalText.pipe(
      z
        .url({ protocol: /^rediss?$/, error: "must be a redis:// or rediss:// URL" })
        // Zod goes on to refinements after a failed format check: one not URL-shaped is
        // left to that check's message.
        .refine((url) => !URL.canParse(url) || /^\/?\d*$/.test(new URL(url).pathname), {
          error:
            "must name its database by number (the path after the port), like redis://host:6379/3",
        })
        .optional(),
    ),
    STORE_SENTINELS: optionalText.transform((value, ctx) => {
      if (value === undefined) return undefined;
      const nodes: SentinelNode[] = [];
      for (const part of value.split(",").map((p) => p.trim())) {
        const node = sentinelNode(part);
        if (node) nodes.push(node);
        else {
          ctx.addIssue({
            code: "custom",
            message: `has "${part}": write host:port entries, comma-separated (10.0.0.5:26379,10.0.0.6:26379)`,
          });
        }
      }
      return nodes;
    }),
    STORE_SENTINEL_NAME: optionalText,
    DATA_DIR: optionalText.transform((v) => v ?? "./data"),
    DEFAULT_LANGUAGE: optionalText
      .transform((v) => readLanguageCode(v ?? "auto"))
      .refine((code) => code !== undefined, {
        error: `must be one of ${LANGUAGE_CODES.join(", ")} (any letter case; ja, zh, zh-TW and the like work too)`,
      }),
    // The system locale, as gettext reads it (see systemLocale).
    LANGUAGE: optionalText,
    LC_ALL: optionalText,
    LC_MESSAGES: optionalText,
    LANG: optionalText,
    SLACK_BOT_TOKEN: token(
      /^xoxb-/,
      "the bot token, xoxb-… (OAuth & Permissions: Bot User OAuth Token)",
    ),
    SLACK_SIGNING_SECRET: optionalText,
    SLACK_APP_TOKEN: token(
      /^xapp-/,
      "an app-level token, xapp-… (Basic Information: App-Level Tokens)",
    ),
    SLACK_API_URL: httpUrl,
    SLACK_ADMIN_USERS: idList,
    SLACK_EDIT_INTERVAL_MS: duration(DEFAULTS.slackEditIntervalMs, 0, MINUTE_MS),
    SLACK_UPDATES_PER_MINUTE: integer(DEFAULTS.slackUpdatesPerMinute, 1),
    SLACK_APPENDS_PER_MINUTE: integer(DEFAULTS.slackAppendsPerMinute, 1),
    SLACK_NATIVE_STREAMING: optionalText.pipe(
      z
        .enum(["true", "false"], { error: "must be true or false" })
        .optional()
        .transform((v) => (v === undefined ? DEFAULTS.slackNativeStreaming : v === "true")),
    ),
    TELEGRAM_DRAFTS: onOff(DEFAULTS.telegramDrafts),
    TELEGRAM_RICH_MESSAGES: onOff(DEFAULTS.telegramRichMessages),
    TELEGRAM_BUSINESS: onOff(false),
    TELEGRAM_GUEST: onOff(false),
    TELEGRAM_BUSINESS_QUIET_MINUTES: duration(30, MINUTE_MS, DAY_MS, MINUTE_MS),
    TELEGRAM_BOT_TOKEN: token(/^\d+:[\w-]+$/, "the token @BotFather gave, such as 123456789:AAF…"),
    TELEGRAM_API_ROOT: httpUrl,
    TELEGRAM_WEBHOOK_URL: optionalText.pipe(
      z
        .url({
          protocol: /^https$/,
          error: "must be an https:// URL (Telegram delivers webhooks over HTTPS only)",
        })
        .optional(),
    ),
    TELEGRAM_WEBHOOK_SECRET: optionalText.pipe(
      z
        .string()
        .regex(TELEGRAM_WEBHOOK_SECRET, {
          error: "must be 1-256 characters of A-Z, a-z, 0-9, _ and -",
        })
        .optional(),
    ),
    TELEGRAM_ADMIN_USERS: idList,
    TELEGRAM_EDIT_INTERVAL_MS: duration(DEFAULTS.telegramEditIntervalMs, 0, MINUTE_MS),
    TELEGRAM_GROUP_EDIT_INTERVAL_MS: duration(DEFAULTS.telegramGroupEditIntervalMs, 0, MINUTE_MS),
    TELEGRAM_GROUP_MESSAGES_PER_MINUTE: integer(DEFAULTS.telegramGroupMessagesPerMinute, 1),
    LEADS_POLL_INTERVAL: duration(300, 0, DAY_MS, SECOND_MS),
    LEADS_AFTER_ANSWER_S: duration(10, 0, HOUR_MS, SECOND_MS),
    HANDOVER_IDLE_MINUTES: duration(30, MINUTE_MS, DAY_MS, MINUTE_MS),
    LEADS_SLACK_CHANNELS: idList,
    LEADS_TELEGRAM_CHATS: idList,
    PORT: integer(3000, 0, 65_535),
    // Unset: every interface, as Node's listen() does.
    HOST: optionalText.pipe(
      z
        .union([z.ipv4(), z.ipv6(), z.hostname()], {
          error: "must be an IP address or a host name to listen on (0.0.0.0, 127.0.0.1, ::)",
        })
        .optional(),
    ),
    SHUTDOWN_GRACE_MS: duration(10_000, 0, HOUR_MS),
    TAKEOVER_MS: duration(DEFAULTS.takeoverMs, SECOND_MS, 10 * MINUTE_MS),
    ALLOWED_CHANNELS: idList,
    ALLOWED_USERS: idList,
    MAX_QUESTION_CHARS: integer(4_000, 1),
    MAX_ANSWER_CHARS: integer(30_000, 100),
    CONTEXT_MAX_MESSAGES: integer(DEFAULTS.contextMaxMessages, 0, 1_000),
    CONTEXT_MAX_CHARS: integer(DEFAULTS.contextMaxChars, 0, 100_000),
    // Measured with `npm run bench -- --only cap` on a 2-core machine (shared, so on the safe
    // side): at 100 the event-loop delay p99 stayed at a few ms and Slack's acks p99 under
    // 100 ms; at 200 acks took 670 ms. docs/operations.md, "Sizing the answer cap", says how to choose it.
    MAX_ACTIVE_ANSWERS: integer(DEFAULT_MAX_ACTIVE_ANSWERS, 1),
    MAX_QUEUED_QUESTIONS: integer(1_000, 0),
    RATE_LIMIT_QUESTIONS: integer(10, 0),
    RATE_LIMIT_WINDOW_SECONDS: duration(60, SECOND_MS, DAY_MS, SECOND_MS),
    OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl,
    OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol,
    OTEL_EXPORTER_OTLP_HEADERS: otlpHeaders,
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: otlpHeaders,
    OTEL_SERVICE_NAME: optionalText,
    OTEL_SDK_DISABLED: optionalText.pipe(
      z.enum(["true", "false"], { error: "must be true or false" }).optional(),
    ),
    OTEL_TRACES_EXPORTER: optionalText.pipe(
      z
        .enum(["otlp", "none"], { error: "must be otlp or none (the bot exports OTLP only)" })
        .optional(),
    ),
    LOG_LEVEL: optionalText
      .transform((v) => v?.toLowerCase())
      .pipe(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` }).optional()),
  })
  .superRefine(
    (env, ctx) => {
      const need = (name: keyof typeof env, why: string) => {
        if (env[name] === undefined || (Array.isArray(env[name]) && env[name].length === 0)) {
          ctx.addIssue({ code: "custom", path: [name], message: `is required ${why}` });
        }
      };
      if (env.CHATBOT_BASE_URL) {
        need("CHATBOT_API_KEY", "when CHATBOT_BASE_URL is set");
        if (!env.CHATBOTS) {
          need(
            "CHATBOT_BOT_UID",
            "when CHATBOT_BASE_URL is set, unless CHATBOTS names the chatbots",
          );
        }
      }
      // Which would the channels' default be? Either one chatbot, or every one named.
      if (env.CHATBOTS && env.CHATBOT_BOT_UID) {
        ctx.addIssue({
          code: "custom",
          path: ["CHATBOTS"],
          message:
            "and CHATBOT_BOT_UID are both set: name every chatbot in CHATBOTS and unset CHATBOT_BOT_UID, or keep CHATBOT_BOT_UID alone for one chatbot",
        });
      }
      if (env.SLACK_BOT_TOKEN && !env.SLACK_APP_TOKEN) {
        need(
          "SLACK_SIGNING_SECRET",
          "for Slack over HTTP (or set SLACK_APP_TOKEN for Socket Mode)",
        );
      }
      if (env.TELEGRAM_WEBHOOK_URL) {
        need("TELEGRAM_WEBHOOK_SECRET", "when TELEGRAM_WEBHOOK_URL is set");
      }
      if (env.STORE_SENTINELS) need("STORE_SENTINEL_NAME", "when STORE_SENTINELS is set");
      // An entry that failed its own check leaves no node, and was said already.
      if (env.STORE_SENTINEL_NAME && env.STORE_SENTINELS === undefined) {
        need("STORE_SENTINELS", "when STORE_SENTINEL_NAME is set");
      }
      // The client reaches the nodes Sentinel names over plain TCP only.
      if (env.STORE_SENTINELS && env.STORE_URL?.startsWith("rediss:")) {
        ctx.addIssue({
          code: "custom",
          path: ["STORE_URL"],
          message:
            "is rediss:// while STORE_SENTINELS is set: through Sentinel the bot speaks plain redis://",
        });
      }
      // A platform's other settings without its token would leave it off without a word (a
      // token's name mistyped): the bot would chat in the terminal instead.
      if (env.SLACK_APP_TOKEN || env.SLACK_SIGNING_SECRET) {
        need("SLACK_BOT_TOKEN", "when SLACK_APP_TOKEN or SLACK_SIGNING_SECRET is set");
      }
      if (env.TELEGRAM_WEBHOOK_URL || env.TELEGRAM_WEBHOOK_SECRET) {
        need("TELEGRAM_BOT_TOKEN", "when TELEGRAM_WEBHOOK_URL or TELEGRAM_WEBHOOK_SECRET is set");
      }
      // Run even when another field failed, so every problem is reported in one go.
    },
    { when: () => true },
  );

/** Every environment variable the bot reads: a deployment that sets another sets it in vain. */
export const SETTING_NAMES: readonly string[] = Object.keys(envSchema.shape);

export interface BackendConfig {
  baseUrl: string;
  /** The account's key: every chatbot of the account answers to it. */
  apiKey: string;
  /** At least one; the first is the default of every channel that chose none. */
  chatbots: ChatbotSpec[];
  /** The variable that named them, for the operator's hint when the backend refuses one. */
  chatbotsVariable: "CHATBOTS" | "CHATBOT_BOT_UID" | "SIMULATOR_BOTS";
}

/**
 * The person's language as gettext reads it: the locale is LC_ALL, else LC_MESSAGES, else
 * LANG (`fr_FR.UTF-8`); LANGUAGE (a list, `nl:fr`) comes first unless that locale is `C` or
 * `POSIX` (`C.UTF-8` too), which mean no language: English.
 */
function systemLocale(e: {
  LANGUAGE?: string | undefined;
  LC_ALL?: string | undefined;
  LC_MESSAGES?: string | undefined;
  LANG?: string | undefined;
}): string | undefined {
  const locale = e.LC_ALL ?? e.LC_MESSAGES ?? e.LANG;
  if (locale !== undefined && /^(C|POSIX)([._@]|$)/.test(locale)) return undefined;
  const preferred = e.LANGUAGE?.split(":").find((tag) => catalogLanguageOf(tag) !== undefined);
  return preferred ?? locale;
}

/** Everything the process reads from its environment, parsed once at start-up. */
export interface Config {
  /** undefined: run the built-in simulated backend. */
  backend: BackendConfig | undefined;
  /**
   * The simulated backend's chatbots (SIMULATOR_BOTS), when it runs: their names, each served
   * under a bot_uid of its own. One, named DEFAULT_CHATBOT_NAME, when unset.
   */
  simulatorBots: string[];
  backendTimeoutMs: number;
  backendIdleTimeoutMs: number;
  /** Longest whole answer; past it the answer ends with the cut note. */
  backendAnswerTimeoutMs: number;
  /**
   * STORE_URL: Redis, when set. With `storeSentinel` it gives only the credentials and the
   * database; the primary's address comes from the Sentinels.
   */
  storeUrl: string | undefined;
  /** Where traces go (OTEL_EXPORTER_OTLP_*), when they are exported. */
  tracing: TracingConfig | undefined;
  /** STORE_SENTINELS and STORE_SENTINEL_NAME: Redis through Sentinel. */
  storeSentinel: StoreSentinel | undefined;
  dataDir: string;
  defaultLanguage: LanguageCode;
  /** The console person's language: the system locale (LANGUAGE, LC_ALL, LC_MESSAGES, LANG). */
  systemLocale: string | undefined;
  slack:
    | {
        botToken: string;
        signingSecret: string | undefined;
        appToken: string | undefined;
        apiUrl: string | undefined;
        adminUsers: string[];
        editIntervalMs: number;
        updatesPerMinute: number;
        appendsPerMinute: number;
        nativeStreaming: boolean;
      }
    | undefined;
  telegram:
    | {
        botToken: string;
        apiRoot: string | undefined;
        webhookUrl: string | undefined;
        webhookSecret: string | undefined;
        adminUsers: string[];
        privateEditIntervalMs: number;
        groupEditIntervalMs: number;
        groupMessagesPerMinute: number;
        drafts: boolean;
        /** Answers as rich messages (where the Bot API server has them), not HTML messages. */
        richMessages: boolean;
        /**
         * TELEGRAM_BUSINESS on: the private chats of the Telegram Business accounts that
         * connected the bot are answered on their behalf; after the account's owner writes in
         * one, the chatbot is quiet there for `quietMs` (TELEGRAM_BUSINESS_QUIET_MINUTES).
         */
        business: { quietMs: number } | undefined;
        /** TELEGRAM_GUEST on: mentions in chats the bot is not in are answered (guest mode). */
        guest: boolean;
      }
    | undefined;
  leads: {
    pollIntervalSeconds: number;
    /** A chatbot's leads are polled again this long after an answer of it (0: not). */
    afterAnswerSeconds: number;
    /** A hand-over with no message either way this long ends (HANDOVER_IDLE_MINUTES). */
    handoverIdleMs: number;
    slackChannels: string[];
    telegramChats: string[];
  };
  /** Guards in front of the paid backend. */
  guards: GuardConfig;
  /** Longest answer shown before it ends with "(truncated)". */
  maxAnswerChars: number;
  /** What a first question carries of the discussion it was asked in (0: nothing). */
  context: ContextBounds;
  /** How much answering one process takes on (src/bridge/answer-queue.ts). */
  answerQueue: AnswerQueueConfig;
  port: number;
  /** The address the HTTP server binds; undefined: every interface. */
  host: string | undefined;
  /** How long running answers may finish after SIGTERM/SIGINT before they are cut. */
  shutdownGraceMs: number;
  /**
   * On Redis, how long the leases of a process that died keep holding (its threads' locks,
   * its answers in flight, the lead poll, the Telegram poller role) before another process
   * takes the work over.
   */
  takeoverMs: number;
  /** undefined: not set; the process picks `info`, or `warn` in an interactive terminal. */
  logLevel: string | undefined;
}

export interface AnswerQueueConfig {
  /** Answers streaming at once in this process; more questions wait in its queue. */
  maxActive: number;
  /** Questions waiting at most; past it a new question is told the bot is busy. */
  maxQueued: number;
}

export interface ContextBounds {
  /** CONTEXT_MAX_MESSAGES: the latest earlier messages, at most this many. */
  maxMessages: number;
  /** CONTEXT_MAX_CHARS: characters they take at most, names included. */
  maxChars: number;
}

export interface GuardConfig {
  /** Empty: every channel may use the bot. */
  allowedChannels: string[];
  /** Empty: every user may use the bot. */
  allowedUsers: string[];
  maxQuestionChars: number;
  /** Questions per user per window; 0 turns the limit off. */
  rateLimitQuestions: number;
  rateLimitWindowSeconds: number;
}

/** The prefixes of this bot's settings: a variable with one that is none of them is a typo. */
const OUR_PREFIXES = /^(CHATBOT|SLACK|TELEGRAM|STORE|LEADS|HANDOVER)_/;
/**
 * What Kubernetes gives every pod of a namespace for each service (a service named
 * chatbot-bridge: CHATBOT_BRIDGE_SERVICE_HOST, CHATBOT_BRIDGE_PORT_3000_TCP…): not settings.
 */
const SERVICE_LINK =
  /_(SERVICE_HOST|SERVICE_PORT(_\w+)?|PORT(_\d+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?)$/;

/**
 * The variables of `env` that look like settings of this bot but are none (a known prefix, or
 * a name a letter or two from one): one warning each, with the settings meant where a name
 * says which (`SLACK_TOKEN`: SLACK_BOT_TOKEN or SLACK_APP_TOKEN). Values are never read.
 */
export function unknownSettings(env: Env): string[] {
  const known = Object.keys(envSchema.shape);
  const warnings: string[] = [];
  for (const name of Object.keys(env)) {
    if (known.includes(name) || SERVICE_LINK.test(name)) continue;
    const words = name.split("_").filter(Boolean);
    const containing = known.filter((key) => words.every((word) => key.split("_").includes(word)));
    const close = known.filter((key) => name.length >= 8 && editDistance(key, name) <= 2);
    const meant = close.length > 0 ? close : containing;
    if (!OUR_PREFIXES.test(name) && close.length === 0) continue;
    const hint = meant.length > 0 ? `: did you mean ${meant.slice(0, 3).join(" or ")}?` : "";
    warnings.push(`${name} is not a setting of this bot, and is ignored${hint}`);
  }
  return warnings;
}

/** Levenshtein distance: how many letters to add, drop or change to make `a` into `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const change = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + change,
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * Parses the environment. Throws ConfigError listing every problem, one per line, each
 * naming its variable, and never echoing a value (values may be secrets).
 */
export function loadConfig(env: Env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map(
        (issue) => `${issue.path.join(".") || "environment"} ${issue.message}`,
      ),
    );
  }
  const e = parsed.data;
  return {
    backend: backendOf(e),
    simulatorBots: e.SIMULATOR_BOTS?.map((bot) => bot.name) ?? [DEFAULT_CHATBOT_NAME],
    backendTimeoutMs: e.CHATBOT_TIMEOUT_MS,
    backendIdleTimeoutMs: e.CHATBOT_IDLE_TIMEOUT_MS,
    backendAnswerTimeoutMs: e.CHATBOT_ANSWER_TIMEOUT_MS,
    storeUrl: e.STORE_URL,
    tracing: tracingOf(e),
    storeSentinel:
      e.STORE_SENTINELS && e.STORE_SENTINEL_NAME
        ? { nodes: e.STORE_SENTINELS, name: e.STORE_SENTINEL_NAME }
        : undefined,
    dataDir: e.DATA_DIR,
    defaultLanguage: e.DEFAULT_LANGUAGE,
    systemLocale: systemLocale(e),
    slack: e.SLACK_BOT_TOKEN
      ? {
          botToken: e.SLACK_BOT_TOKEN,
          signingSecret: e.SLACK_SIGNING_SECRET,
          appToken: e.SLACK_APP_TOKEN,
          apiUrl: e.SLACK_API_URL,
          adminUsers: e.SLACK_ADMIN_USERS,
          editIntervalMs: e.SLACK_EDIT_INTERVAL_MS,
          updatesPerMinute: e.SLACK_UPDATES_PER_MINUTE,
          appendsPerMinute: e.SLACK_APPENDS_PER_MINUTE,
          nativeStreaming: e.SLACK_NATIVE_STREAMING,
        }
      : undefined,
    telegram: e.TELEGRAM_BOT_TOKEN
      ? {
          botToken: e.TELEGRAM_BOT_TOKEN,
          apiRoot: e.TELEGRAM_API_ROOT,
          webhookUrl: e.TELEGRAM_WEBHOOK_URL,
          webhookSecret: e.TELEGRAM_WEBHOOK_SECRET,
          adminUsers: e.TELEGRAM_ADMIN_USERS,
          privateEditIntervalMs: e.TELEGRAM_EDIT_INTERVAL_MS,
          groupEditIntervalMs: e.TELEGRAM_GROUP_EDIT_INTERVAL_MS,
          groupMessagesPerMinute: e.TELEGRAM_GROUP_MESSAGES_PER_MINUTE,
          drafts: e.TELEGRAM_DRAFTS,
          richMessages: e.TELEGRAM_RICH_MESSAGES,
          business: e.TELEGRAM_BUSINESS
            ? { quietMs: e.TELEGRAM_BUSINESS_QUIET_MINUTES * MINUTE_MS }
            : undefined,
          guest: e.TELEGRAM_GUEST,
        }
      : undefined,
    leads: {
      pollIntervalSeconds: e.LEADS_POLL_INTERVAL,
      afterAnswerSeconds: e.LEADS_AFTER_ANSWER_S,
      handoverIdleMs: e.HANDOVER_IDLE_MINUTES * MINUTE_MS,
      slackChannels: e.LEADS_SLACK_CHANNELS,
      telegramChats: e.LEADS_TELEGRAM_CHATS,
    },
    guards: {
      allowedChannels: e.ALLOWED_CHANNELS,
      allowedUsers: e.ALLOWED_USERS,
      maxQuestionChars: e.MAX_QUESTION_CHARS,
      rateLimitQuestions: e.RATE_LIMIT_QUESTIONS,
      rateLimitWindowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
    },
    maxAnswerChars: e.MAX_ANSWER_CHARS,
    context: { maxMessages: e.CONTEXT_MAX_MESSAGES, maxChars: e.CONTEXT_MAX_CHARS },
    answerQueue: { maxActive: e.MAX_ACTIVE_ANSWERS, maxQueued: e.MAX_QUEUED_QUESTIONS },
    port: e.PORT,
    host: e.HOST,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    takeoverMs: e.TAKEOVER_MS,
    logLevel: e.LOG_LEVEL,
  };
}

/** The backend's settings, when CHATBOT_BASE_URL names one (the schema checked the rest). */
function backendOf(e: z.infer<typeof envSchema>): BackendConfig | undefined {
  if (!e.CHATBOT_BASE_URL || !e.CHATBOT_API_KEY) return undefined;
  const account = { baseUrl: e.CHATBOT_BASE_URL, apiKey: e.CHATBOT_API_KEY };
  if (e.CHATBOTS) return { ...account, chatbots: e.CHATBOTS, chatbotsVariable: "CHATBOTS" };
  if (!e.CHATBOT_BOT_UID) return undefined;
  return {
    ...account,
    chatbots: [{ name: DEFAULT_CHATBOT_NAME, botUid: e.CHATBOT_BOT_UID }],
    chatbotsVariable: "CHATBOT_BOT_UID",
  };
}

/**
 * Traces go out when an endpoint is named and neither OTEL_SDK_DISABLED nor
 * OTEL_TRACES_EXPORTER=none says no; the signal's own variable wins over the general one,
 * as the specification has it.
 */
function tracingOf(e: z.infer<typeof envSchema>): TracingConfig | undefined {
  if (e.OTEL_SDK_DISABLED === "true" || e.OTEL_TRACES_EXPORTER === "none") return undefined;
  const base = e.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url =
    e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base && `${base.replace(/\/+$/, "")}/v1/traces`);
  if (!url) return undefined;
  return {
    url,
    protocol:
      e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf",
    headers: { ...e.OTEL_EXPORTER_OTLP_HEADERS, ...e.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
    serviceName: e.OTEL_SERVICE_NAME ?? "chatbot-bridge",
  };
}

/** The secrets in a configuration, for the logger's redaction of free text. */
export function secretsOf(config: Config): string[] {
  const storePassword = config.storeUrl ? new URL(config.storeUrl).password : "";
  const decoded = storePassword ? safeDecode(storePassword) : undefined;
  return [
    config.backend?.apiKey,
    config.slack?.botToken,
    config.slack?.signingSecret,
    config.slack?.appToken,
    config.telegram?.botToken,
    config.telegram?.webhookSecret,
    storePassword || undefined,
    decoded,
    // An exporter's headers carry its API key.
    ...Object.values(config.tracing?.headers ?? {}),
  ].filter((s): s is string => typeof s === "string" && s.length > 0);
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** Every variable the environment schema reads, in its order. */
export function settingNames(): string[] {
  return Object.keys(envSchema.shape);
}

/** What the schema makes of `name` when it is unset: its default (undefined for none). */
export function settingDefault(name: string): unknown {
  const schema = (envSchema.shape as Record<string, z.ZodType>)[name];
  const parsed = schema?.safeParse(undefined);
  return parsed?.success ? parsed.data : undefined;
}

/** Whether the schema takes `value` for `name` as the same as `parsed` (how to spell a default). */
export function settingSpells(name: string, value: string, parsed: unknown): boolean {
  const schema = (envSchema.shape as Record<string, z.ZodType>)[name];
  const read = schema?.safeParse(value);
  return read?.success === true && read.data === parsed;
}
