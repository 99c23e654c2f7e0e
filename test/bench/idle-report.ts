import type { IdleRow, QuestionsCost } from "./idle-bench.ts";
import { type Verdict, verdictOf } from "./report.ts";
import { formatTable } from "./table.ts";

/** Issue 26's goals for a bot nobody writes to, and for the Redis work of one question. */
export const MAX_IDLE_CPU_MS_PER_SECOND = 1;
export const MAX_REDIS_COMMANDS_PER_QUESTION = 12;

const KINDS = [
  ["quick", (r: IdleRow) => r.quick],
  ["usual", (r: IdleRow) => r.standard],
] as const;

/** The idle bot's CPU, and on Redis the commands per answered question, each command apart. */
export function idleLines(rows: readonly IdleRow[], idleSeconds: number): string[] {
  const table = formatTable(
    [
      { heading: "store", cell: (r: IdleRow) => r.store },
      { heading: "idle CPU ms/s after start", cell: (r) => r.idleCpuMsPerSecond.afterStart },
      { heading: "after answering", cell: (r) => r.idleCpuMsPerSecond.afterAnswers },
      { heading: "Redis commands/answer quick", cell: (r) => commandTotal(r.quick) },
      { heading: "usual", cell: (r) => commandTotal(r.standard) },
      { heading: "answered", cell: (r) => answered(r) },
    ],
    rows,
  );
  const lines = [table];
  for (const row of rows.filter((r) => r.quick || r.standard)) {
    lines.push(
      "",
      `Redis commands per answered question by command, ${row.store}:`,
      commandTable(row),
    );
  }
  const questions = rows.find((r) => r.quick)?.quick?.questions ?? 0;
  lines.push(
    "",
    "Idle: the bot as the bot section runs it (Slack and Telegram configured, no lead poll),",
    "nobody writing, once its start has settled and again after the questions; CPU of all its",
    `threads over ${idleSeconds} s (/proc/<pid>/task/*/schedstat). Questions: ${questions} in one person's Slack DM,`,
    "each asked once the previous answer closed, to one bot on a redis-server of its own: quick",
    "answers (5 chunks at once, as a short reply) and the usual ones (100 chunks over ~3.7 s).",
    "Commands: INFO commandstats over the whole run ÷ answered questions, the bot's timers",
    `included (idle, a second: the same over the ${idleSeconds} s of nobody writing after the answers, its`,
    "timers alone); a script counts as its EVALSHA and again as each command it runs; the",
    "connections' keep-alive PINGs (one every 5 s each) apart.",
  );
  return lines;
}

/** One line a command, most called first in the usual answers, then the total and the PINGs. */
function commandTable(row: IdleRow): string {
  const quick = row.quick?.redisCommands ?? {};
  const usual = row.standard?.redisCommands ?? {};
  const idle = row.idleRedisCommandsPerSecond ?? {};
  const usualTotal = commandTotal(row.standard);
  const names = [...new Set([quick, usual, idle].flatMap((counts) => Object.keys(counts)))].sort(
    (a, b) => (usual[b] ?? 0) - (usual[a] ?? 0) || (quick[b] ?? 0) - (quick[a] ?? 0),
  );
  type Line = {
    command: string;
    quick: number | null;
    usual: number | null;
    share?: number;
    idle?: number;
  };
  const lines: Line[] = [
    ...names.map((name) => ({
      command: name,
      quick: quick[name] ?? 0,
      usual: usual[name] ?? 0,
      ...(usualTotal && { share: Math.round(((usual[name] ?? 0) / usualTotal) * 1000) / 10 }),
      idle: idle[name] ?? 0,
    })),
    {
      command: "total",
      quick: commandTotal(row.quick),
      usual: usualTotal,
      idle: Math.round(Object.values(idle).reduce((sum, n) => sum + n, 0) * 100) / 100,
    },
    {
      command: "(keep-alive PINGs, apart)",
      quick: row.quick?.redisPings ?? null,
      usual: row.standard?.redisPings ?? null,
    },
  ];
  return formatTable(
    [
      { heading: "command", cell: (l: Line) => l.command },
      { heading: "quick answers", cell: (l) => l.quick },
      { heading: "usual answers", cell: (l) => l.usual },
      { heading: "share of usual %", cell: (l) => l.share ?? "" },
      { heading: "idle, a second", cell: (l) => l.idle ?? "" },
    ],
    lines,
  );
}

export function idleVerdict(rows: readonly IdleRow[]): Verdict {
  const checks: [boolean, string][] = [];
  for (const row of rows) {
    const worst = worstIdleCpu(row);
    checks.push([
      worst <= MAX_IDLE_CPU_MS_PER_SECOND,
      `${row.store}: idle CPU ≤ ${MAX_IDLE_CPU_MS_PER_SECOND} ms/s (${worst})`,
    ]);
    for (const [kind, costOf] of KINDS) {
      const cost = costOf(row);
      if (!cost) continue;
      const total = commandTotal(cost);
      checks.push(
        [
          total !== null && total <= MAX_REDIS_COMMANDS_PER_QUESTION,
          `${row.store}: ≤ ${MAX_REDIS_COMMANDS_PER_QUESTION} Redis commands per answered question, ${kind} answers (${total})`,
        ],
        [cost.answered === cost.questions, `${row.store}: every question answered (${kind})`],
      );
    }
  }
  return verdictOf("idle", checks);
}

/** The idle CPU figure: the worse of after the start and after the answers, ms a second. */
export function worstIdleCpu(row: IdleRow): number {
  return Math.max(row.idleCpuMsPerSecond.afterStart, row.idleCpuMsPerSecond.afterAnswers);
}

/** Redis commands per answered question, all commands together (PINGs apart). */
export function commandTotal(cost: QuestionsCost | undefined): number | null {
  if (!cost) return null;
  const total = Object.values(cost.redisCommands).reduce((sum, n) => sum + n, 0);
  return Math.round(total * 100) / 100;
}

function answered(row: IdleRow): string | null {
  const costs = [row.quick, row.standard].filter((c) => c !== undefined);
  if (costs.length === 0) return null;
  return costs.map((c) => `${c.answered}/${c.questions}`).join(", ");
}
