import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import packageJson from "../package.json" with { type: "json" };
import { LOOP_DELAY_METRICS, LoopDelay } from "./loop-delay.ts";

const PREFIX = "chatbot_bridge_";

// Seconds from a message's arrival: first visible text is expected well under a second, a
// whole answer within tens of seconds, and the longest last as long as Slack lets one
// stream run (about 5 minutes: https://docs.slack.dev/reference/methods/chat.appendStream).
const LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 180, 300];

// Seconds a question waits for room: none at all while the process has room (the first
// bucket), seconds to minutes when it is at its cap.
const QUEUE_WAIT_BUCKETS = [0.001, 0.01, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

// The label values known in advance: their series start at 0, so a dashboard's rate() and
// "no errors yet" read as 0 instead of "no data". The console serves no /metrics.
const CHANNELS = ["slack", "telegram"] as const;
const OUTCOMES = ["complete", "cut", "error", "stopped"] as const;
const RATINGS = ["up", "down"] as const;
const LEAD_POLL_OUTCOMES = ["ok", "failed", "not-leader"] as const;
const BACKEND_ERROR_KINDS = [
  "BACKEND_NETWORK",
  "BACKEND_TIMEOUT",
  "BACKEND_SERVER",
  "BACKEND_API",
  "BACKEND_PROTOCOL",
  "BACKEND_AUTHENTICATION",
  "BACKEND_PERMISSION",
  "BACKEND_NOT_FOUND",
] as const;

/**
 * How a platform API call ended, as a label: `ok`; `429` (told to slow down); `4xx` (the
 * platform refused the call, Slack's `ok: false` answers included); `5xx`; `network` (no
 * HTTP answer: refused, reset, timed out).
 */
export type CallStatus = "ok" | "429" | "4xx" | "5xx" | "network";

/** The label of a failed call from its HTTP status (undefined: no answer came). */
export function callStatusOf(httpStatus: number | undefined): Exclude<CallStatus, "ok"> {
  if (httpStatus === undefined) return "network";
  if (httpStatus === 429) return "429";
  return httpStatus >= 500 ? "5xx" : "4xx";
}

/**
 * The process's Prometheus metrics (docs/operations.md, "Metrics: `GET /metrics`"). Labels carry only
 * channel kinds, outcomes, API method names and error codes: never text, ids of people or
 * lead data. Node's default metrics keep their usual names (`process_cpu_seconds_total`,
 * `nodejs_…`), so stock dashboards and alerts read them as they are.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly #loopDelay = new LoopDelay(defaultMetrics(this.registry));
  readonly buildInfo = new Gauge({
    name: `${PREFIX}build_info`,
    help: "Always 1: the bot's version and the Node.js version it runs on",
    labelNames: ["version", "node"] as const,
    registers: [this.registry],
  });
  readonly ready = new Gauge({
    name: `${PREFIX}ready`,
    help: "1 while /readyz says to send this process work (started, not shutting down, store and platform connections up), else 0; /healthz only says the process answers",
    registers: [this.registry],
  });
  readonly questions = new Counter({
    name: `${PREFIX}questions_total`,
    help: "Questions handled, by channel and outcome",
    labelNames: ["channel", "outcome"] as const,
    registers: [this.registry],
  });
  readonly firstText = new Histogram({
    name: `${PREFIX}first_text_seconds`,
    help: "From message received to the first answer text visible",
    labelNames: ["channel"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly answer = new Histogram({
    name: `${PREFIX}answer_seconds`,
    help: "From message received to the complete answer visible",
    labelNames: ["channel"] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly backendFirstByte = new Histogram({
    name: `${PREFIX}backend_first_byte_seconds`,
    help: "From a question sent to the chatbot backend to the first byte of its streamed answer",
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly edits = new Counter({
    name: `${PREFIX}edits_total`,
    help: "Messages posted or edited to show answers",
    labelNames: ["channel"] as const,
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: `${PREFIX}rate_limited_total`,
    help: "Platform answers that said to slow down (429)",
    labelNames: ["channel"] as const,
    registers: [this.registry],
  });
  readonly platformCalls = new Counter({
    name: `${PREFIX}platform_calls_total`,
    help: "Slack and Telegram API calls, by platform, API method and status (ok, 429, 4xx, 5xx, network)",
    labelNames: ["platform", "method", "status"] as const,
    registers: [this.registry],
  });
  readonly backendErrors = new Counter({
    name: `${PREFIX}backend_errors_total`,
    help: "Failed chatbot backend calls, by kind",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });
  readonly activeAnswers = new ActiveAnswers(
    new Gauge({
      name: `${PREFIX}active_answers`,
      help: "Answers streaming now",
      registers: [this.registry],
    }),
    this.#loopDelay,
  );
  readonly queuedQuestions = new Gauge({
    name: `${PREFIX}queued_questions`,
    help: "Questions accepted whose answer has not begun (waiting for room under MAX_ACTIVE_ANSWERS, or for their thread)",
    registers: [this.registry],
  });
  readonly queueWait = new Histogram({
    name: `${PREFIX}queue_wait_seconds`,
    help: "From a question accepted into the answer queue to its answer beginning",
    buckets: QUEUE_WAIT_BUCKETS,
    registers: [this.registry],
  });
  readonly questionsRefused = new Counter({
    name: `${PREFIX}questions_refused_total`,
    help: "Questions told the bot is busy because MAX_QUEUED_QUESTIONS were already waiting",
    labelNames: ["channel"] as const,
    registers: [this.registry],
  });
  readonly storeErrors = new Counter({
    name: `${PREFIX}store_errors_total`,
    help: "Store operations that failed",
    registers: [this.registry],
  });
  readonly storeDataLost = new Counter({
    name: `${PREFIX}store_data_lost_total`,
    help: "Times this process found the store had lost its data (Redis restarted empty, a failover to an empty replica) and wrote back what it held",
    registers: [this.registry],
  });
  readonly storeSeconds = new Histogram({
    name: `${PREFIX}store_seconds`,
    help: "Store operation latency, by operation",
    labelNames: ["operation"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });
  readonly deliverySeconds = new Histogram({
    name: `${PREFIX}delivery_seconds`,
    help: "Time from a platform's delivery (a Slack event, a Telegram webhook update) being read by the HTTP server to the bot's response, by route: Slack retries a delivery not answered within 3 s",
    labelNames: ["route"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 3, 10],
    registers: [this.registry],
  });
  readonly leadPolls = new Counter({
    name: `${PREFIX}lead_polls_total`,
    help: "Lead polls run, by outcome (ok, failed, not-leader)",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });
  readonly leadsFetched = new Counter({
    name: `${PREFIX}leads_fetched_total`,
    help: "Lead records read from the backend by lead polls (a lead is read again by every poll whose window holds it)",
    registers: [this.registry],
  });
  readonly leadsAnnounced = new Counter({
    name: `${PREFIX}leads_announced_total`,
    help: "Lead announcements posted, by channel",
    labelNames: ["channel"] as const,
    registers: [this.registry],
  });
  readonly feedbackVotes = new Counter({
    name: `${PREFIX}feedback_votes_total`,
    help: "Votes on answers (👍 up, 👎 down), by platform and rating; a changed vote counts under its new rating",
    labelNames: ["platform", "rating"] as const,
    registers: [this.registry],
  });

  constructor() {
    this.buildInfo.set({ version: packageJson.version, node: process.version }, 1);
    for (const channel of CHANNELS) {
      for (const outcome of OUTCOMES) this.questions.inc({ channel, outcome }, 0);
      this.firstText.zero({ channel });
      this.answer.zero({ channel });
      this.edits.inc({ channel }, 0);
      this.rateLimited.inc({ channel }, 0);
      this.leadsAnnounced.inc({ channel }, 0);
      this.questionsRefused.inc({ channel }, 0);
      for (const rating of RATINGS) this.feedbackVotes.inc({ platform: channel, rating }, 0);
    }
    for (const kind of BACKEND_ERROR_KINDS) this.backendErrors.inc({ kind }, 0);
    for (const outcome of LEAD_POLL_OUTCOMES) this.leadPolls.inc({ outcome }, 0);
  }

  /** Counts one Slack or Telegram API call (`method`: the API's method name, never an id). */
  countPlatformCall(platform: "slack" | "telegram", method: string, status: CallStatus): void {
    this.platformCalls.inc({ platform, method, status });
  }
}

/** Longer than any process runs: prom-client's own loop monitor, which cannot be paused, never looks. */
const NEVER_MS = 2 ** 31 - 1;

/** prom-client's default metrics in `registry`, their event-loop delay figures measured by LoopDelay. */
function defaultMetrics(registry: Registry): Registry {
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: NEVER_MS });
  for (const name of LOOP_DELAY_METRICS) registry.removeSingleMetric(name);
  return registry;
}

/** Answers streaming now: their gauge, and the event-loop monitor, which runs while there are any. */
class ActiveAnswers {
  #count = 0;

  constructor(
    readonly gauge: Gauge,
    readonly loopDelay: LoopDelay,
  ) {}

  inc(): void {
    this.gauge.inc();
    if (++this.#count === 1) this.loopDelay.start();
  }

  dec(): void {
    this.gauge.dec();
    if (--this.#count === 0) this.loopDelay.stop();
  }
}
