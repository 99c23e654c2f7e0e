import { SLACK_ANSWERS_PER_WORKSPACE } from "./bot-bench-chats.ts";
import type { BotRow } from "./bot-summary.ts";
import { list, type Verdict, verdictOf } from "./report.ts";
import { formatTable } from "./table.ts";

const label = (r: BotRow) => {
  const level = `${r.concurrency.toLocaleString("en-US")}${r.store === "redis" ? " on Redis" : ""}`;
  return r.ackEventsPerSecond > 0 ? `${level} + ${r.ackEventsPerSecond} Slack events/s` : level;
};

export function botTables(rows: readonly BotRow[]): string {
  const latency = formatTable(
    [
      { heading: "concurrent", cell: (r: BotRow) => label(r) },
      { heading: "answers", cell: (r) => r.answers },
      { heading: "failed", cell: (r) => r.failures },
      { heading: "added p50 ms", cell: (r) => r.addedLatencyMs.p50 },
      { heading: "p95 ms", cell: (r) => r.addedLatencyMs.p95 },
      { heading: "p99 ms", cell: (r) => r.addedLatencyMs.p99 },
      { heading: "max ms", cell: (r) => r.addedLatencyMs.max },
      { heading: "msg→text p50 ms", cell: (r) => r.firstTextMs.p50 },
      { heading: "p99 ms", cell: (r) => r.firstTextMs.p99 },
      { heading: "final delay p50 ms", cell: (r) => r.finalDelayMs.p50 },
      { heading: "p99 ms", cell: (r) => r.finalDelayMs.p99 },
      {
        heading: "p99 Telegram/Slack ms",
        cell: (r) => `${r.finalDelayP99MsBy.telegram}/${r.finalDelayP99MsBy.slack}`,
      },
      { heading: "loop delay p99 ms", cell: (r) => r.eventLoopDelayMs.p99 },
      { heading: "bot's response p99 ≤ ms", cell: (r) => r.botDeliveryP99Ms },
      { heading: "Slack ack p99 ms", cell: (r) => r.ack?.p99 ?? null },
      { heading: "acks late", cell: (r) => (r.ack ? `${r.ack.late}/${r.ack.events}` : null) },
    ],
    rows,
  );
  const cost = formatTable(
    [
      { heading: "concurrent", cell: (r: BotRow) => label(r) },
      { heading: "edits/answer", cell: (r) => r.editsPerAnswer },
      { heading: "429s", cell: (r) => total(r.rateLimited) },
      { heading: "CPU ms/answer", cell: (r) => r.cpuMsPerAnswer },
      { heading: "floor CPU ms", cell: (r) => r.floorCpuMsPerAnswer ?? null },
      { heading: "÷ floor", cell: (r) => cpuOverFloor(r) ?? null },
      { heading: "bot CPU %", cell: (r) => r.botCpuPercent },
      { heading: "fakes CPU %", cell: (r) => r.platformsCpuPercent },
      { heading: "backend CPU %", cell: (r) => r.backendCpuPercent },
      { heading: "bench CPU %", cell: (r) => r.benchCpuPercent },
      { heading: "others CPU %", cell: (r) => r.othersCpuPercent },
      { heading: "active answers", cell: (r) => r.activeAnswers },
      { heading: "RSS idle MB", cell: (r) => r.rssIdleMb },
      // On Redis a burst of queued warm-up questions leaves the heap larger than the load grows
      // it at 100 answers; the goal is the embedded rows'.
      { heading: "RSS KB/answer", cell: (r) => (r.store === "redis" ? null : r.rssKbPerAnswer) },
      { heading: "store trips/msg", cell: (r) => r.storeRoundTripsPerMessage },
      { heading: "wall s", cell: (r) => r.wallMs / 1000 },
    ],
    rows,
  );
  return `${latency}\n\n${cost}`;
}

/**
 * The whole bot's goals (issue 13), by concurrent answers: CPU per answer and p99 added
 * latency at each level; at every level, RSS per active answer and the final text's delay.
 */
const BOT_GOALS: Readonly<Record<number, { cpuMs: number; addedP99Ms: number }>> = {
  100: { cpuMs: 6, addedP99Ms: 10 },
  500: { cpuMs: 4, addedP99Ms: 10 },
  1000: { cpuMs: 4, addedP99Ms: 50 },
};
const MAX_KB_PER_ANSWER = 150;
const MAX_FINAL_DELAY_P99_MS = 50;
const MAX_ACK_P99_MS = 100;

/** Each row against its goals; 429s anywhere; failed answers where every question has room. */
export function botVerdict(rows: readonly BotRow[]): Verdict {
  const checks: [boolean, string][] = [];
  for (const row of rows) {
    const at = label(row);
    const goal = BOT_GOALS[row.concurrency];
    if (goal && row.store === "redis") {
      // On Redis the goal is the added latency's alone (issue 26): the other figures are the
      // embedded rows'.
      checks.push([
        row.addedLatencyMs.p99 <= goal.addedP99Ms,
        `${at}: p99 added ≤ ${goal.addedP99Ms} ms (${row.addedLatencyMs.p99})`,
      ]);
    } else if (goal && row.ackEventsPerSecond === 0) {
      checks.push(
        [
          row.cpuMsPerAnswer <= goal.cpuMs,
          `${at}: CPU ≤ ${goal.cpuMs} ms/answer (${row.cpuMsPerAnswer}${floorNote(row)})`,
        ],
        [
          row.addedLatencyMs.p99 <= goal.addedP99Ms,
          `${at}: p99 added ≤ ${goal.addedP99Ms} ms (${row.addedLatencyMs.p99})`,
        ],
        [
          row.rssKbPerAnswer <= MAX_KB_PER_ANSWER,
          `${at}: ≤ ${MAX_KB_PER_ANSWER} KB RSS/answer (${row.rssKbPerAnswer})`,
        ],
        [
          row.finalDelayMs.p99 <= MAX_FINAL_DELAY_P99_MS,
          `${at}: p99 final delay ≤ ${MAX_FINAL_DELAY_P99_MS} ms (${row.finalDelayMs.p99})`,
        ],
      );
    }
    if (row.ack) {
      checks.push([
        row.ack.p99 <= MAX_ACK_P99_MS && row.ack.late === 0,
        `${at}: Slack ack p99 ≤ ${MAX_ACK_P99_MS} ms, none late (${row.ack.p99} ms, ${row.ack.late} late; the bot's own response ≤ ${row.botDeliveryP99Ms} ms)`,
      ]);
    }
  }
  const limited = rows.reduce((sum, r) => sum + total(r.rateLimited), 0);
  // The ack row runs at the default MAX_ACTIVE_ANSWERS: questions past its queue are refused.
  const failed = rows.reduce((sum, r) => sum + (r.ackEventsPerSecond === 0 ? r.failures : 0), 0);
  checks.push(
    [limited === 0, `no 429s (${limited})`],
    [failed === 0, `no failed answers (${failed})`],
  );
  return verdictOf("whole-bot", checks);
}

/**
 * The floor beside a CPU figure: a goal at or near it leaves nothing for what the bot does
 * besides reading the answers.
 */
function floorNote(row: BotRow): string {
  const floor = row.floorCpuMsPerAnswer;
  return floor === undefined ? "" : `; undici alone reading the answers: ${floor}`;
}

function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

/** Above this share of a core used by other work, a row's latency says more about it. */
const CONTENDED_PERCENT = 30;

/** How the figures were taken, and what in them needs a second look. */
export function botNotes(rows: readonly BotRow[]): string[] {
  const notes = [
    "Processes: the bot (src/main.ts as `npm start` runs it: Slack over the HTTP Events API,",
    'Telegram by webhook, embedded store (a row "on Redis": a redis-server of its own as STORE_URL),',
    "LOG_LEVEL=warn); fake Slack and Telegram in one other",
    "process (they answer at once, keep timings only, and refuse with 429 what the platforms",
    "would: Slack chat.update 50 and chat.appendStream 100 a minute per workspace, 1 post/s per",
    "channel; Telegram 1 message/s per chat, bursts of 3); the stamp backend in a third. This",
    "process delivers the questions (webhook updates, signed Events API deliveries).",
    `Conversations: half Telegram private chats, half Slack DMs, ${SLACK_ANSWERS_PER_WORKSPACE} per workspace (Slack's edit budgets`,
    "are per workspace: in one, a thousand answers would share ~100 appends a minute). Each asks",
    "3 questions in a row, conversations starting evenly over one answer's time; latencies are",
    "those of the middle questions (every conversation busy). Answers: 100 chunks 10–60 ms apart.",
    "added: the backend writes the first chunk (stamped) → the fake receives the call showing it",
    "(chat.startStream, sendMessageDraft). msg→text: the question's delivery → that call (the",
    "backend's 240 ms think time included). final delay: the backend ends the stream (last chunk",
    "stamped) → the call that leaves the answer complete (chat.stopStream, sendMessage).",
    "edits/answer: calls showing text, at the fakes. CPU, RSS, loop delay, store trips: the bot's",
    "own, from its /metrics (loop delay: nodejs_eventloop_lag less the monitor's 10 ms period)",
    "and /proc. Where every answer streams at once, the bot answers 1,000 like the measured",
    "ones first (two rounds at least, test/bench/warm-up.ts), and so does the floor: the figures",
    "are a running process's, not its first minutes'. RSS per answer: median while all were",
    "busy in the first load at the row's concurrency (that warm-up, where there is one), minus",
    "idle after the quick warm-up answers, ÷ active.",
    "floor CPU ms: undici alone, in a process of its own, reading the same answers at the same",
    "concurrency and doing nothing with them: what the bot's CPU per answer can only add to.",
    "Slack ack: Events API deliveries of channel chatter (not for the bot: verified, acknowledged,",
    "dropped) while the answers stream, each on a connection of its own; time to the bot's HTTP",
    "response; late: after Slack's 3 s, or no connection at all (Slack would retry them).",
    "bot's response: the same time as the bot measures it, request to response, over every",
    "delivery of the row (its chatbot_bridge_delivery_seconds, so a bucket's bound). The sender's",
    "figure adds the wait before that: a new connection waits for the bot's event loop to accept",
    "it, one per turn of the loop (libuv), so a burst of new connections queues under load.",
  ];
  const peak = Math.max(...rows.map((r) => r.peakTelegramSendsPerSecond));
  notes.push(
    `Telegram: the bot sent up to ${peak} messages a second in all (Telegram's FAQ asks bulk senders to stay near 30/s; the fake does not enforce it).`,
  );
  const contended = rows.filter((r) => r.othersCpuPercent > CONTENDED_PERCENT);
  if (contended.length > 0) {
    notes.push(
      `WARNING: other work used more than ${CONTENDED_PERCENT} % of a core during ${contended.map(label).join(", ")}: rerun on a quiet machine for representative latency.`,
    );
  }
  for (const row of rows.filter((r) => r.botLog.lines > 0)) {
    notes.push(
      `The bot logged ${row.botLog.lines} warnings or errors at ${label(row)}, e.g.: ${row.botLog.first.join(" | ")}`,
    );
  }
  return notes;
}

/** The whole bot's cost against its goals (issue 26), one line a figure. */
const MAX_STORE_TRIPS_PER_MESSAGE = 6;
export const MAX_CPU_OVER_FLOOR = 1.5;
const MAX_ADDED_P99_MS = 10;

/** Each row's store round trips per answered message by operation: where they go. */
export function storeOpsByRow(rows: readonly BotRow[]): string[] {
  return rows
    .filter((r) => r.ackEventsPerSecond === 0)
    .map((r) => `store calls per answered message, ${label(r)}: ${list(r.storeOpsPerMessage)}`);
}

/** The bot's CPU per answer ÷ undici's alone reading the same answers; undefined without a floor. */
export function cpuOverFloor(row: BotRow): number | undefined {
  return row.floorCpuMsPerAnswer
    ? Math.round((row.cpuMsPerAnswer / row.floorCpuMsPerAnswer) * 100) / 100
    : undefined;
}

/**
 * The figures that say what the bot's own bookkeeping costs, each beside its goal: per level of
 * concurrent answers (embedded store) where it has one, else per store. The idle bot's and
 * Redis's figures are the idle section's.
 */
export function costSummary(rows: readonly BotRow[]): string {
  const levels = rows.filter((r) => r.store === "embedded" && r.ackEventsPerSecond === 0);
  const onRedis = rows.find((r) => r.store === "redis" && r.ackEventsPerSecond === 0);
  const each = (cell: (r: BotRow) => number | undefined) =>
    levels.map((r) => String(cell(r) ?? "–")).join(" / ");
  const at = levels.map((r) => r.concurrency.toLocaleString("en-US")).join(" / ");
  const lines: { figure: string; value: string; goal: string }[] = [
    {
      figure: `store round trips per answered message (embedded; ${at})`,
      value: each((r) => r.storeRoundTripsPerMessage),
      goal: `≤ ${MAX_STORE_TRIPS_PER_MESSAGE}`,
    },
    {
      figure: `bot CPU per answer ÷ the floor (${at})`,
      value: each(cpuOverFloor),
      goal: `≤ ${MAX_CPU_OVER_FLOOR}`,
    },
    {
      figure: "p99 added latency at 100 answers, ms (embedded, Redis)",
      value: [levels.find((r) => r.concurrency === 100), onRedis]
        .map((r) => String(r?.addedLatencyMs.p99 ?? "–"))
        .join(", "),
      goal: `≤ ${MAX_ADDED_P99_MS}`,
    },
    {
      figure: `RSS per active answer, KB (${at})`,
      value: each((r) => r.rssKbPerAnswer),
      goal: `≤ ${MAX_KB_PER_ANSWER}`,
    },
  ];
  return formatTable(
    [
      { heading: "figure", cell: (l: (typeof lines)[number]) => l.figure },
      { heading: "now", cell: (l) => l.value },
      { heading: "goal", cell: (l) => l.goal },
    ],
    lines,
  );
}
