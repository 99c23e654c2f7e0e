/**
 * What each setting means and what it is when unset, in the order docs/configuration.md lists
 * them: `npm run docs:config` writes that table and `.env.example` from this list and from the
 * schema in config.ts (each value the schema takes when the variable is unset), and a test
 * fails when either file is stale or a variable of the schema is missing here.
 */
export interface SettingDoc {
  /** The variables the row is about (a few go together, such as a URL and its secret). */
  names: readonly string[];
  /** What it is, its values and bounds (Markdown, as the table shows it). */
  meaning: string;
  /** What it is when unset (Markdown). */
  unset: string;
  /** The system's own variables (the locale): read, but not the bot's to set in `.env`. */
  system?: true;
}

export const SETTING_DOCS: readonly SettingDoc[] = [
  {
    names: ["CHATBOT_BASE_URL"],
    meaning: "the API's {base_url}",
    unset: "unset: the built-in simulated backend",
  },
  {
    names: ["CHATBOT_API_KEY"],
    meaning: "bearer key",
    unset: "required with `CHATBOT_BASE_URL`",
  },
  {
    names: ["CHATBOT_BOT_UID"],
    meaning: "the chatbot to talk to (one chatbot, named `default`)",
    unset: "required with `CHATBOT_BASE_URL`, unless `CHATBOTS` is set; not with it",
  },
  {
    names: ["CHATBOTS"],
    meaning:
      "several chatbots of the account: `support:<bot_uid>,sales:<bot_uid>` (names of lowercase letters, digits and `_`, each once; an entry typed with a space for its colon or for the comma between entries is refused with a line saying so); the first is every channel's default, `/chatbot use <name>` picks one per channel, `/leads subscribe <name>` per lead channel (see [Several chatbots](chatbot.md#several-chatbots))",
    unset: "unset: `CHATBOT_BOT_UID` alone",
  },
  {
    names: ["SIMULATOR_BOTS"],
    meaning:
      "with no `CHATBOT_BASE_URL`: the built-in simulated backend's chatbots, by name (`support,sales`), each served as `sim-<name>`",
    unset: "one chatbot",
  },
  {
    names: ["CHATBOT_TIMEOUT_MS"],
    meaning: "wait for the response headers; 1000 to 600000 (1 s to 10 min)",
    unset: "30000",
  },
  {
    names: ["CHATBOT_IDLE_TIMEOUT_MS"],
    meaning: "longest silence inside a streaming answer; 1000 to 3600000 (1 s to 1 h)",
    unset: "60000",
  },
  {
    names: ["CHATBOT_ANSWER_TIMEOUT_MS"],
    meaning:
      "longest whole answer; past it the bot hangs up on the backend and the answer ends with the text so far and the cut note; 1000 to 3600000 (1 s to 1 h)",
    unset: "300000 (5 minutes)",
  },
  {
    names: ["STORE_URL"],
    meaning: "`redis://[:password@]host:port[/db]` for Redis, `rediss://…` for Redis over TLS",
    unset: "unset: embedded store under `DATA_DIR`",
  },
  {
    names: ["STORE_SENTINELS"],
    meaning:
      "Redis through Sentinel: the Sentinels, `host:port,host:port`; the bot asks them where the primary is and follows a failover (see [Redis that fails over](deploy.md#redis-that-fails-over)); `STORE_URL` then gives the password and the database only (`redis://:password@sentinel/0`: its host is not used)",
    unset: "unset: STORE_URL's host",
  },
  {
    names: ["STORE_SENTINEL_NAME"],
    meaning: "the name the Sentinels monitor the primary by (`sentinel monitor <name> …`)",
    unset: "unset; required with STORE_SENTINELS",
  },
  {
    names: ["DATA_DIR"],
    meaning: "where the embedded store lives (and the built-in simulated backend's conversations)",
    unset: "`./data`",
  },
  {
    names: ["DEFAULT_LANGUAGE"],
    meaning: "language when a channel has none set; any code `/language` takes",
    unset: "`auto`",
  },
  {
    names: ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"],
    system: true,
    meaning:
      "the system locale, read as gettext does: the console's own texts speak it when no `/language` is set (see [Languages](using.md#languages))",
    unset: "the system's",
  },
  {
    names: ["SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"],
    meaning: "Slack over HTTP: Events API and slash commands at `POST /slack/events`",
    unset: "Slack off when no token (Slack's other settings without the token stop start-up)",
  },
  {
    names: ["SLACK_APP_TOKEN"],
    meaning: "when set, Slack over Socket Mode instead of HTTP",
    unset: "",
  },
  {
    names: ["SLACK_API_URL"],
    meaning: "base of the Slack Web API, ending in `/api/`",
    unset: "Slack's",
  },
  {
    names: ["SLACK_ADMIN_USERS"],
    meaning: "extra admin user IDs, comma-separated",
    unset: "",
  },
  {
    names: ["SLACK_EDIT_INTERVAL_MS"],
    meaning: "shortest time between two changes of one answer; 0 to 60000 (1 min)",
    unset: "1000",
  },
  {
    names: ["SLACK_UPDATES_PER_MINUTE"],
    meaning: "the workspace's `chat.update` allowance (Tier 3), shared by its answers",
    unset: "50",
  },
  {
    names: ["SLACK_APPENDS_PER_MINUTE"],
    meaning:
      "the workspace's `chat.appendStream` allowance (Tier 4): calls in any minute, 30 of them at once",
    unset: "100",
  },
  {
    names: ["SLACK_NATIVE_STREAMING"],
    meaning: "`false`: always post and edit instead of Slack's native streaming",
    unset: "true",
  },
  {
    names: ["TELEGRAM_BOT_TOKEN"],
    meaning: "Telegram on",
    unset: "Telegram off when unset (a webhook URL or secret without it stops start-up)",
  },
  {
    names: ["TELEGRAM_API_ROOT"],
    meaning: "base of the Bot API",
    unset: "Telegram's",
  },
  {
    names: ["TELEGRAM_WEBHOOK_URL", "TELEGRAM_WEBHOOK_SECRET"],
    meaning:
      "webhook mode at `POST /telegram/webhook`: an `https://` URL, and the secret (1-256 of A-Z a-z 0-9 _ -) required with it",
    unset: "long polling",
  },
  {
    names: ["TELEGRAM_ADMIN_USERS"],
    meaning: "extra admin user IDs, comma-separated",
    unset: "",
  },
  {
    names: ["TELEGRAM_EDIT_INTERVAL_MS"],
    meaning: "shortest time between two updates of an answer in a private chat; 0 to 60000 (1 min)",
    unset: "1000",
  },
  {
    names: ["TELEGRAM_GROUP_EDIT_INTERVAL_MS"],
    meaning: "the same in groups and forum topics; 0 to 60000 (1 min)",
    unset: "3000",
  },
  {
    names: ["TELEGRAM_GROUP_MESSAGES_PER_MINUTE"],
    meaning: "Telegram's budget per group (calls in any minute), shared by all answers there",
    unset: "20",
  },
  {
    names: ["TELEGRAM_DRAFTS"],
    meaning:
      "`on`: private chats stream as native drafts (see [Drafts](telegram.md#drafts-telegram_drafts)); Telegram for macOS and Android show them badly",
    unset: "`off`: one message edited as it grows",
  },
  {
    names: ["TELEGRAM_RICH_MESSAGES"],
    meaning:
      "`on`: answers as Bot API 10.1+ rich messages (real tables, one message to 32,768 characters); Telegram Web, the macOS app, AyuGram and bridges such as Beeper cannot show them (see [Rich messages](telegram.md#rich-messages-telegram_rich_messages))",
    unset: "`off`: HTML messages (4,096 characters a message, tables as a monospaced grid)",
  },
  {
    names: ["TELEGRAM_BUSINESS"],
    meaning:
      "`on`: answer the private chats of the Telegram Business accounts that connected the bot, on their behalf (see [Telegram Business](telegram.md#telegram-business-telegram_business))",
    unset: "`off`",
  },
  {
    names: ["TELEGRAM_BUSINESS_QUIET_MINUTES"],
    meaning:
      "after a business account's owner writes in a customer's chat, the chatbot stays quiet there this long; 1 to 1440",
    unset: "30",
  },
  {
    names: ["TELEGRAM_GUEST"],
    meaning:
      "`on`: answer a mention of the bot in a chat it is not a member of, once (see [Guest mode](telegram.md#guest-mode-telegram_guest))",
    unset: "`off`",
  },
  {
    names: ["LEADS_POLL_INTERVAL"],
    meaning: "seconds between lead polls, at most 86400 (1 day); 0 turns the poll off",
    unset: "300",
  },
  {
    names: ["LEADS_AFTER_ANSWER_S"],
    meaning:
      "a chatbot's leads are polled again this many seconds after an answer of it (whichever process answered), once however many answers came meanwhile: a lead captured in a chat the bot carries is announced in seconds; at most 3600; 0: only at `LEADS_POLL_INTERVAL`",
    unset: "10",
  },
  {
    names: ["HANDOVER_IDLE_MINUTES"],
    meaning:
      "a hand-over (**Talk to them** on a lead card) with no message from the customer or the seller this many minutes ends, and the chatbot answers the customer again; 1 to 1440",
    unset: "30",
  },
  {
    names: ["LEADS_SLACK_CHANNELS", "LEADS_TELEGRAM_CHATS"],
    meaning: "channels that always get lead announcements",
    unset: "",
  },
  {
    names: ["ALLOWED_CHANNELS"],
    meaning:
      "only these channel/chat IDs may use the bot, comma-separated (the terminal chat's is `console`)",
    unset: "every channel",
  },
  {
    names: ["ALLOWED_USERS"],
    meaning:
      "only these user IDs may ask, comma-separated (the terminal chat's person is `console`)",
    unset: "everyone",
  },
  {
    names: ["MAX_QUESTION_CHARS"],
    meaning: "longer questions are refused with a message",
    unset: "4000",
  },
  {
    names: ["MAX_ANSWER_CHARS"],
    meaning: 'longer answers end with "(truncated)"',
    unset: "30000",
  },
  {
    names: ["CONTEXT_MAX_MESSAGES"],
    meaning:
      "a question that starts a conversation inside a discussion (a Slack thread, a Telegram reply) carries at most this many of its latest earlier messages, 0 to 1000; 0 turns it off (see [What the chatbot receives](chatbot.md#what-the-chatbot-receives))",
    unset: "20",
  },
  {
    names: ["CONTEXT_MAX_CHARS"],
    meaning:
      "… and at most this many characters of them, names included, 0 to 100000 (0 turns it off too)",
    unset: "6000",
  },
  {
    names: ["RATE_LIMIT_QUESTIONS", "RATE_LIMIT_WINDOW_SECONDS"],
    meaning:
      'questions per user per window (0 turns it off): a person may ask that many at once, then one more each window ÷ that many; more get "slow down, try again in N s". With Redis, counted across all processes. The window is 1 to 86400 s (1 day)',
    unset: "10 per 60 s",
  },
  {
    names: ["MAX_ACTIVE_ANSWERS"],
    meaning:
      "answers one process streams at once; more questions wait in the queue (with Redis, one queue for every process), each told its place (see [Sizing the answer cap](operations.md#sizing-the-answer-cap))",
    unset: "100",
  },
  {
    names: ["MAX_QUEUED_QUESTIONS"],
    meaning:
      'questions waiting at most in the queue (with Redis, the deployment\'s one queue); past it a new question is told "the bot is busy right now: please try again in a minute"',
    unset: "1000",
  },
  {
    names: ["PORT"],
    meaning:
      "the HTTP server: `/slack/events`, `/telegram/webhook`, `/healthz`, `/readyz`, `/metrics`",
    unset: "3000",
  },
  {
    names: ["HOST"],
    meaning:
      "the address the HTTP server binds (`127.0.0.1`: this machine only; `::`: every IPv6 and IPv4 interface)",
    unset: "unset: every interface",
  },
  {
    names: ["SHUTDOWN_GRACE_MS"],
    meaning:
      "after SIGTERM/SIGINT, how long running answers may finish before they are cut with a note; 0 to 3600000 (1 h)",
    unset: "10000",
  },
  {
    names: ["TAKEOVER_MS"],
    meaning:
      "with Redis: how long a process that died keeps its work (its threads, answers in flight, the lead poll, the Telegram poller role) before another process takes it over: the length of each process's presence in Redis, renewed every third of it; shorter means faster takeover and more Redis traffic; 1000 to 600000 (1 s to 10 min)",
    unset: "10000",
  },
  {
    names: ["LOG_LEVEL"],
    meaning: "`trace`, `debug`, `info`, `warn`, `error`, `fatal` or `silent`",
    unset: "`info` (`warn` for the terminal chat while stderr is a terminal)",
  },
  {
    names: ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"],
    meaning:
      "export OpenTelemetry traces over OTLP/HTTP: the collector's base URL (`/v1/traces` is added), or the traces endpoint itself, which wins (see [Traces](operations.md#traces))",
    unset: "unset: no tracing, no cost",
  },
  {
    names: ["OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"],
    meaning: "`http/protobuf` or `http/json` (the traces' own wins)",
    unset: "`http/protobuf`",
  },
  {
    names: ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"],
    meaning:
      "headers for the collector, `key=value,key=value` with URL-encoded values (an API key: kept out of the log)",
    unset: "none",
  },
  {
    names: ["OTEL_SERVICE_NAME"],
    meaning: "the traces' `service.name`",
    unset: "`chatbot-bridge`",
  },
  {
    names: ["OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER"],
    meaning:
      "`OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` turn the traces off, an endpoint set or not",
    unset: "`false`, `otlp`",
  },
];
