import { describe, expect, it } from "vitest";
import { APPEND_STREAM_PER_MINUTE, CHAT_UPDATE_PER_MINUTE } from "../adapters/slack/limits.ts";
import { GROUP_MESSAGES_PER_MINUTE } from "../adapters/telegram/limits.ts";
import { loadConfig, secretsOf, unknownSettings } from "../src/config.ts";
import { ConfigError, TimeoutError } from "../src/errors.ts";

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("loadConfig", () => {
  it("runs on an empty environment: simulated backend, embedded store, console", () => {
    const config = loadConfig({});
    expect(config.backend).toBeUndefined();
    expect(config.storeUrl).toBeUndefined();
    expect(config.dataDir).toBe("./data");
    expect(config.slack).toBeUndefined();
    expect(config.telegram).toBeUndefined();
    expect(config.backendTimeoutMs).toBe(30_000);
    expect(config.backendIdleTimeoutMs).toBe(60_000);
    expect(config.backendAnswerTimeoutMs).toBe(300_000);
    expect(config.leads.pollIntervalSeconds).toBe(300);
    expect(config.leads.afterAnswerSeconds).toBe(10);
    expect(config.leads.handoverIdleMs).toBe(30 * 60_000);
    expect(config.port).toBe(3000);
    expect(config.defaultLanguage).toBe("auto");
  });

  it("defaults the call rates to the rates the platforms document", () => {
    const config = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-1",
      SLACK_SIGNING_SECRET: "secret",
      TELEGRAM_BOT_TOKEN: "1:token",
    });
    expect(config.slack?.updatesPerMinute).toBe(CHAT_UPDATE_PER_MINUTE);
    expect(config.slack?.appendsPerMinute).toBe(APPEND_STREAM_PER_MINUTE);
    expect(config.slack?.nativeStreaming).toBe(true);
    expect(config.telegram?.groupMessagesPerMinute).toBe(GROUP_MESSAGES_PER_MINUTE);
  });

  for (const { variable, setting, what } of [
    { variable: "TELEGRAM_DRAFTS", setting: "drafts", what: "streams private answers by edits" },
    {
      variable: "TELEGRAM_RICH_MESSAGES",
      setting: "richMessages",
      what: "answers as HTML messages, not rich ones,",
    },
  ] as const) {
    it(`${what} unless ${variable}=on`, () => {
      const telegram = { TELEGRAM_BOT_TOKEN: "1:token" };
      expect(loadConfig(telegram).telegram?.[setting]).toBe(false);
      expect(loadConfig({ ...telegram, [variable]: "on" }).telegram?.[setting]).toBe(true);
      expect(loadConfig({ ...telegram, [variable]: "off" }).telegram?.[setting]).toBe(false);
      expect(problemsOf({ ...telegram, [variable]: "yes" })).toEqual([
        `${variable} must be on or off`,
      ]);
    });
  }

  it("cuts answers after CHATBOT_ANSWER_TIMEOUT_MS, said in minutes or seconds", () => {
    const cut = (ms: number) => new TimeoutError("/chat", "answer", ms).userMessage;
    expect(cut(loadConfig({}).backendAnswerTimeoutMs)).toBe(
      "the chatbot took longer than 5 minutes",
    );
    const config = loadConfig({ CHATBOT_ANSWER_TIMEOUT_MS: "90000" });
    expect(cut(config.backendAnswerTimeoutMs)).toBe("the chatbot took longer than 90 seconds");
    expect(problemsOf({ CHATBOT_ANSWER_TIMEOUT_MS: "5m" })).toEqual([
      "CHATBOT_ANSWER_TIMEOUT_MS must be a whole number, in digits",
    ]);
  });

  it("caps answers in flight and questions waiting, at least one answer at a time", () => {
    expect(loadConfig({}).answerQueue).toEqual({ maxActive: 100, maxQueued: 1_000 });
    expect(loadConfig({ MAX_ACTIVE_ANSWERS: "3", MAX_QUEUED_QUESTIONS: "0" }).answerQueue).toEqual({
      maxActive: 3,
      maxQueued: 0,
    });
    expect(problemsOf({ MAX_ACTIVE_ANSWERS: "0", MAX_QUEUED_QUESTIONS: "many" })).toEqual([
      "MAX_ACTIVE_ANSWERS must be at least 1",
      "MAX_QUEUED_QUESTIONS must be a whole number, in digits",
    ]);
  });

  it("bounds what a first question carries of its discussion; 0 turns it off", () => {
    expect(loadConfig({}).context).toEqual({ maxMessages: 20, maxChars: 6_000 });
    expect(loadConfig({ CONTEXT_MAX_MESSAGES: "0", CONTEXT_MAX_CHARS: "500" }).context).toEqual({
      maxMessages: 0,
      maxChars: 500,
    });
    expect(problemsOf({ CONTEXT_MAX_MESSAGES: "all", CONTEXT_MAX_CHARS: "200000" })).toEqual([
      "CONTEXT_MAX_MESSAGES must be a whole number, in digits",
      "CONTEXT_MAX_CHARS must be at most 100000",
    ]);
  });

  // Node's timers wait at most 2^31-1 ms (about 24.8 days): a longer one fires at once.
  // https://nodejs.org/api/timers.html#settimeoutcallback-delay-args
  const DURATIONS = [
    ["CHATBOT_TIMEOUT_MS", 1_000, "600000 (10 minutes)"],
    ["CHATBOT_IDLE_TIMEOUT_MS", 1_000, "3600000 (1 hour)"],
    ["CHATBOT_ANSWER_TIMEOUT_MS", 1_000, "3600000 (1 hour)"],
    ["SLACK_EDIT_INTERVAL_MS", 0, "60000 (1 minute)"],
    ["TELEGRAM_EDIT_INTERVAL_MS", 0, "60000 (1 minute)"],
    ["TELEGRAM_GROUP_EDIT_INTERVAL_MS", 0, "60000 (1 minute)"],
    ["LEADS_POLL_INTERVAL", 0, "86400 (1 day)"],
    ["RATE_LIMIT_WINDOW_SECONDS", 1, "86400 (1 day)"],
    ["SHUTDOWN_GRACE_MS", 0, "3600000 (1 hour)"],
    ["TAKEOVER_MS", 1_000, "600000 (10 minutes)"],
  ] as const;
  const PLATFORMS = {
    SLACK_BOT_TOKEN: "xoxb-1",
    SLACK_SIGNING_SECRET: "s",
    TELEGRAM_BOT_TOKEN: "1:t",
  };

  it("bounds every duration: past its most (30 days here) one line naming it, its bounds kept", () => {
    for (const [variable, least, most] of DURATIONS) {
      const max = Number(most.split(" ")[0]);
      const unit = variable.endsWith("_MS") ? 1 : 1_000;
      expect(problemsOf({ ...PLATFORMS, [variable]: String((30 * 86_400_000) / unit) })).toEqual([
        `${variable} must be at most ${most}`,
      ]);
      expect(problemsOf({ ...PLATFORMS, [variable]: String(max + 1) })).toEqual([
        `${variable} must be at most ${most}`,
      ]);
      expect(problemsOf({ ...PLATFORMS, [variable]: String(max) })).toEqual([]);
      expect(problemsOf({ ...PLATFORMS, [variable]: String(least) })).toEqual([]);
      if (least > 0) {
        expect(problemsOf({ ...PLATFORMS, [variable]: String(least - 1) })).toEqual([
          expect.stringMatching(new RegExp(`^${variable} must be at least ${least}\\b`)),
        ]);
      }
    }
  });

  it("names the log levels it takes, as it names every other variable's values", () => {
    expect(loadConfig({ LOG_LEVEL: "DEBUG" }).logLevel).toBe("debug");
    expect(problemsOf({ LOG_LEVEL: "verbose" })).toEqual([
      "LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent",
    ]);
  });

  it("reads the console's language from the system locale, as gettext does", () => {
    const locale = (env: Record<string, string>) => loadConfig(env).systemLocale;
    expect(locale({})).toBeUndefined();
    expect(locale({ LANG: "fr_FR.UTF-8" })).toBe("fr_FR.UTF-8");
    expect(locale({ LC_MESSAGES: "de_DE.UTF-8", LANG: "fr_FR.UTF-8" })).toBe("de_DE.UTF-8");
    expect(locale({ LC_ALL: "it_IT", LC_MESSAGES: "de_DE.UTF-8" })).toBe("it_IT");
    expect(locale({ LANGUAGE: "nl:pt_BR:fr", LANG: "de_DE.UTF-8" })).toBe("pt_BR");
    // C means no language: English, whatever LANGUAGE says.
    expect(locale({ LANGUAGE: "fr", LC_ALL: "C" })).toBeUndefined();
    expect(locale({ LANGUAGE: "fr", LANG: "C.UTF-8" })).toBeUndefined();
  });

  it("takes DEFAULT_LANGUAGE in any letter case and by the codes people use", () => {
    const language = (value: string) => loadConfig({ DEFAULT_LANGUAGE: value }).defaultLanguage;
    expect(language("FR")).toBe("fr");
    expect(language("ja")).toBe("jp");
    expect(language("zh-TW")).toBe("zh-Hant");
    expect(language("zh_cn")).toBe("zh-Hans");
    expect(language("pt-BR")).toBe("pt");
  });

  it("treats empty values as unset and splits ID lists", () => {
    const config = loadConfig({
      PORT: "",
      DATA_DIR: " ",
      SLACK_ADMIN_USERS: "U1, U2,,",
      LEADS_POLL_INTERVAL: "0",
    });
    expect(config.port).toBe(3000);
    expect(config.dataDir).toBe("./data");
    expect(config.leads.pollIntervalSeconds).toBe(0);
  });

  it("reports every problem at once, one line each, naming the variable but never its value", () => {
    const problems = problemsOf({
      LEADS_POLL_INTERVAL: "soon",
      PORT: "70000",
      CHATBOT_TIMEOUT_MS: "1e3",
      CHATBOT_BASE_URL: "ftp://x",
      CHATBOT_API_KEY: "super-secret-key",
      STORE_URL: "http://nope",
      DEFAULT_LANGUAGE: "xx",
      TELEGRAM_BOT_TOKEN: "123:abc",
      TELEGRAM_WEBHOOK_URL: "https://bot.example.com/telegram/webhook",
      SLACK_BOT_TOKEN: "xoxb-1",
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        "LEADS_POLL_INTERVAL must be a whole number, in digits",
        "PORT must be at most 65535",
        "CHATBOT_TIMEOUT_MS must be a whole number, in digits",
        "CHATBOT_BASE_URL must be an http(s) URL",
        "STORE_URL must be a redis:// or rediss:// URL",
        expect.stringMatching(/^DEFAULT_LANGUAGE must be one of auto, en/),
        "CHATBOT_BOT_UID is required when CHATBOT_BASE_URL is set, unless CHATBOTS names the chatbots",
        "TELEGRAM_WEBHOOK_SECRET is required when TELEGRAM_WEBHOOK_URL is set",
        expect.stringMatching(/^SLACK_SIGNING_SECRET is required for Slack over HTTP/),
      ]),
    );
    expect(problems.join("\n")).not.toContain("super-secret-key");
  });

  it("lists the secrets to mask, including the Redis password", () => {
    const config = loadConfig({
      CHATBOT_BASE_URL: "https://api.example.com",
      CHATBOT_API_KEY: "key-1",
      CHATBOT_BOT_UID: "bot",
      STORE_URL: "redis://:p%40ss@127.0.0.1:6379/3",
    });
    expect(secretsOf(config)).toEqual(["key-1", "p%40ss", "p@ss"]);
  });

  it("binds the HTTP server to HOST when set, to every interface when not", () => {
    expect(loadConfig({}).host).toBeUndefined();
    expect(loadConfig({ HOST: "127.0.0.1" }).host).toBe("127.0.0.1");
    expect(loadConfig({ HOST: "::" }).host).toBe("::");
    expect(problemsOf({ HOST: "http://0.0.0.0" })).toEqual([
      "HOST must be an IP address or a host name to listen on (0.0.0.0, 127.0.0.1, ::)",
    ]);
  });

  it("checks the Telegram webhook as Telegram will: an https:// URL, a secret of its characters", () => {
    const webhook = { TELEGRAM_BOT_TOKEN: "123:abc" };
    expect(
      problemsOf({
        ...webhook,
        TELEGRAM_WEBHOOK_URL: "http://bot.example.com/telegram/webhook",
        TELEGRAM_WEBHOOK_SECRET: "has spaces and a secret-value",
      }),
    ).toEqual([
      "TELEGRAM_WEBHOOK_URL must be an https:// URL (Telegram delivers webhooks over HTTPS only)",
      "TELEGRAM_WEBHOOK_SECRET must be 1-256 characters of A-Z, a-z, 0-9, _ and -",
    ]);
    expect(problemsOf({ ...webhook, TELEGRAM_WEBHOOK_SECRET: "x".repeat(257) })).toEqual([
      "TELEGRAM_WEBHOOK_SECRET must be 1-256 characters of A-Z, a-z, 0-9, _ and -",
    ]);
    const config = loadConfig({
      ...webhook,
      TELEGRAM_WEBHOOK_URL: "https://bot.example.com/telegram/webhook",
      TELEGRAM_WEBHOOK_SECRET: "Az09_-",
    });
    expect(config.telegram?.webhookSecret).toBe("Az09_-");
  });

  it("names the missing bot token when only a platform's other settings are set", () => {
    expect(
      problemsOf({
        SLACK_APP_TOKEN: "xapp-1",
        SLACK_SIGNING_SECRET: "s",
        TELEGRAM_WEBHOOK_SECRET: "w",
      }),
    ).toEqual([
      "SLACK_BOT_TOKEN is required when SLACK_APP_TOKEN or SLACK_SIGNING_SECRET is set",
      "TELEGRAM_BOT_TOKEN is required when TELEGRAM_WEBHOOK_URL or TELEGRAM_WEBHOOK_SECRET is set",
    ]);
  });

  it("checks each token's shape before any call: a swapped or malformed one is named at once, never shown", () => {
    const problems = problemsOf({
      SLACK_BOT_TOKEN: "xapp-1-A0-secret-part",
      SLACK_APP_TOKEN: "xoxb-2-secret-part",
      TELEGRAM_BOT_TOKEN: "AAHfoo-secret-part",
    });
    expect(problems).toEqual([
      "SLACK_BOT_TOKEN must be the bot token, xoxb-… (OAuth & Permissions: Bot User OAuth Token), not a xapp-… token",
      "SLACK_APP_TOKEN must be an app-level token, xapp-… (Basic Information: App-Level Tokens), not a xoxb-… token",
      "TELEGRAM_BOT_TOKEN must be the token @BotFather gave, such as 123456789:AAF…",
    ]);
    expect(problems.join("\n")).not.toContain("secret-part");
  });

  it("warns of a variable that looks like one of its settings but is none, naming the one meant", () => {
    expect(
      unknownSettings({
        SLACK_TOKEN: "xoxb-secret",
        STORE_ULR: "redis://x",
        MAX_ACTIVE_ANSWER: "3",
        TELEGRAM_MODE: "x",
        // Not ours, or Kubernetes' service links: left alone.
        HOME: "/root",
        HOSTNAME: "pod-1",
        PATH: "/bin",
        NODE_ENV: "production",
        CHATBOT_BRIDGE_SERVICE_HOST: "10.0.0.1",
        CHATBOT_BRIDGE_PORT_3000_TCP_ADDR: "10.0.0.1",
        SLACK_BOT_TOKEN: "xoxb-1",
      }),
    ).toEqual([
      "SLACK_TOKEN is not a setting of this bot, and is ignored: did you mean SLACK_BOT_TOKEN or SLACK_APP_TOKEN?",
      "STORE_ULR is not a setting of this bot, and is ignored: did you mean STORE_URL?",
      "MAX_ACTIVE_ANSWER is not a setting of this bot, and is ignored: did you mean MAX_ACTIVE_ANSWERS?",
      "TELEGRAM_MODE is not a setting of this bot, and is ignored",
    ]);
  });

  it("says what STORE_URL should be when it is no URL at all, as for any other scheme", () => {
    for (const url of ["127.0.0.1:6379", "redis", "redis//localhost"]) {
      expect(problemsOf({ STORE_URL: url })).toEqual([
        "STORE_URL must be a redis:// or rediss:// URL",
      ]);
    }
  });

  it("takes only a number as STORE_URL's database", () => {
    expect(problemsOf({ STORE_URL: "redis://:pw@127.0.0.1:6379/cache" })).toEqual([
      "STORE_URL must name its database by number (the path after the port), like redis://host:6379/3",
    ]);
    expect(loadConfig({ STORE_URL: "redis://127.0.0.1:6379/3" }).storeUrl).toBe(
      "redis://127.0.0.1:6379/3",
    );
    expect(loadConfig({ STORE_URL: "redis://127.0.0.1:6379/" }).storeUrl).toBe(
      "redis://127.0.0.1:6379/",
    );
  });

  it("takes Redis through Sentinel: the Sentinels and the primary's name, each needing the other", () => {
    expect(
      loadConfig({
        STORE_SENTINELS: "10.0.0.5:26379, sentinel-1.internal:26380,[::1]:26379",
        STORE_SENTINEL_NAME: "mymaster",
      }).storeSentinel,
    ).toEqual({
      nodes: [
        { host: "10.0.0.5", port: 26379 },
        { host: "sentinel-1.internal", port: 26380 },
        { host: "::1", port: 26379 },
      ],
      name: "mymaster",
    });
    expect(loadConfig({}).storeSentinel).toBeUndefined();
    expect(problemsOf({ STORE_SENTINELS: "10.0.0.5", STORE_SENTINEL_NAME: "m" })).toEqual([
      'STORE_SENTINELS has "10.0.0.5": write host:port entries, comma-separated (10.0.0.5:26379,10.0.0.6:26379)',
    ]);
    expect(problemsOf({ STORE_SENTINELS: "10.0.0.5:26379" })).toEqual([
      "STORE_SENTINEL_NAME is required when STORE_SENTINELS is set",
    ]);
    expect(problemsOf({ STORE_SENTINEL_NAME: "mymaster" })).toEqual([
      "STORE_SENTINELS is required when STORE_SENTINEL_NAME is set",
    ]);
    expect(
      problemsOf({
        STORE_SENTINELS: "10.0.0.5:26379",
        STORE_SENTINEL_NAME: "m",
        STORE_URL: "rediss://:pw@x/0",
      }),
    ).toEqual([
      "STORE_URL is rediss:// while STORE_SENTINELS is set: through Sentinel the bot speaks plain redis://",
    ]);
  });

  describe("several chatbots (CHATBOTS)", () => {
    const account = { CHATBOT_BASE_URL: "https://api.example.com", CHATBOT_API_KEY: "key-1" };

    it("names each chatbot of the account, the first being every channel's default", () => {
      const config = loadConfig({ ...account, CHATBOTS: " support:uid-1 , sales:uid-2" });
      expect(config.backend).toEqual({
        ...{ baseUrl: "https://api.example.com", apiKey: "key-1" },
        chatbots: [
          { name: "support", botUid: "uid-1" },
          { name: "sales", botUid: "uid-2" },
        ],
        chatbotsVariable: "CHATBOTS",
      });
    });

    it("keeps CHATBOT_BOT_UID alone working as one chatbot, named default", () => {
      const config = loadConfig({ ...account, CHATBOT_BOT_UID: "uid-1" });
      expect(config.backend?.chatbots).toEqual([{ name: "default", botUid: "uid-1" }]);
      expect(config.backend?.chatbotsVariable).toBe("CHATBOT_BOT_UID");
    });

    it("refuses CHATBOTS with CHATBOT_BOT_UID, naming both", () => {
      expect(problemsOf({ ...account, CHATBOT_BOT_UID: "uid-1", CHATBOTS: "sales:uid-2" })).toEqual(
        [
          "CHATBOTS and CHATBOT_BOT_UID are both set: name every chatbot in CHATBOTS and unset CHATBOT_BOT_UID, or keep CHATBOT_BOT_UID alone for one chatbot",
        ],
      );
    });

    it("checks every entry: a name people can type, a bot_uid, no name or bot_uid twice", () => {
      expect(problemsOf({ ...account, CHATBOTS: "Sales:uid-1,support" })).toEqual([
        'CHATBOTS has the name "Sales": a name is lowercase letters, digits and _ (at most 32)',
        'CHATBOTS has "support" without its bot_uid: write support:<bot_uid>',
      ]);
      expect(problemsOf({ ...account, CHATBOTS: "sales:uid-1,,sales:uid-2" })).toEqual([
        "CHATBOTS has an empty entry: write name:<bot_uid>,name:<bot_uid>",
        "CHATBOTS names sales twice",
      ]);
      expect(problemsOf({ ...account, CHATBOTS: "support:uid-1,sales:uid-1" })).toEqual([
        "CHATBOTS names one bot_uid twice: each chatbot once",
      ]);
      // Blank counts as unset: with a base URL, one chatbot must still be named.
      expect(problemsOf({ ...account, CHATBOTS: " " })).toEqual([
        "CHATBOT_BOT_UID is required when CHATBOT_BASE_URL is set, unless CHATBOTS names the chatbots",
      ]);
    });

    it("says where a space was typed for the colon, or for the comma between entries", () => {
      expect(problemsOf({ ...account, CHATBOTS: "support bot-x" })).toEqual([
        'CHATBOTS has "support bot-x", with a space where the colon goes: an entry is name:bot_uid (write support:bot-x)',
      ]);
      expect(problemsOf({ ...account, CHATBOTS: "support:uid-1 sales:uid-2" })).toEqual([
        'CHATBOTS has the bot_uid "uid-1 sales:uid-2" for support, with a space in it: an entry is name:bot_uid, and a comma goes between entries (name:<bot_uid>,name:<bot_uid>)',
      ]);
    });

    it("reads the simulated backend's chatbots from SIMULATOR_BOTS, one named default when unset", () => {
      expect(loadConfig({}).simulatorBots).toEqual(["default"]);
      expect(loadConfig({ SIMULATOR_BOTS: "support, sales" }).simulatorBots).toEqual([
        "support",
        "sales",
      ]);
      expect(problemsOf({ SIMULATOR_BOTS: "support,support" })).toEqual([
        "SIMULATOR_BOTS names support twice",
      ]);
    });
  });
});
