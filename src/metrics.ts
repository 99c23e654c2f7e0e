import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

const PREFIX = "chatbot_bridge_";

// Seconds from a message's arrival: first visible text is expected well under a second,
// a whole answer within tens of seconds.
const LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/**
 * The process's Prometheus metrics (DESIGN.md, operations contract). Labels carry only
 * channel kinds, outcomes and error codes: never text, ids of people or lead data.
 */
export class Metrics {
  readonly registry = new Registry();
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
  readonly backendErrors = new Counter({
    name: `${PREFIX}backend_errors_total`,
    help: "Failed chatbot backend calls, by kind",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });
  readonly activeAnswers = new Gauge({
    name: `${PREFIX}active_answers`,
    help: "Answers streaming now",
    registers: [this.registry],
  });
  readonly storeErrors = new Counter({
    name: `${PREFIX}store_errors_total`,
    help: "Store operations that failed",
    registers: [this.registry],
  });
  readonly storeSeconds = new Histogram({
    name: `${PREFIX}store_seconds`,
    help: "Store operation latency, by operation",
    labelNames: ["operation"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });
  readonly leadPolls = new Counter({
    name: `${PREFIX}lead_polls_total`,
    help: "Lead polls, by outcome (ok, failed, not-leader)",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });
  readonly leadsPolled = new Counter({
    name: `${PREFIX}leads_polled_total`,
    help: "Leads read from the backend by lead polls",
    registers: [this.registry],
  });
  readonly leadsAnnounced = new Counter({
    name: `${PREFIX}leads_announced_total`,
    help: "Lead announcements posted, by channel",
    labelNames: ["channel"] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
  }
}
