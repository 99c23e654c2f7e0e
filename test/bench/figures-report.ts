import { cpuOverFloor, MAX_CPU_OVER_FLOOR } from "./bot-report.ts";
import type { BotRow } from "./bot-summary.ts";
import type { IdleRow } from "./idle-bench.ts";
import {
  commandTotal,
  MAX_IDLE_CPU_MS_PER_SECOND,
  MAX_REDIS_COMMANDS_PER_QUESTION,
  worstIdleCpu,
} from "./idle-report.ts";
import type { PathRow } from "./path-bench.ts";
import { MAX_PATH_FILES } from "./path-report.ts";
import { formatTable } from "./table.ts";

/** What the sections of this run measured; a section not run leaves its part out. */
export interface MeasuredFigures {
  path?: readonly PathRow[];
  idle?: readonly IdleRow[];
  bot?: readonly BotRow[];
}

interface Figure {
  figure: string;
  measured: string;
  goal: string;
}

/** Issue 35's figures that the bench measures, each beside its goal: the bench's last table. */
export function figuresTable(measured: MeasuredFigures): string {
  const path = (platform: PathRow["platform"]) => {
    const row = measured.path?.find((r) => r.platform === platform);
    return row ? `${row.files.length} / ${row.functions}` : notRun(measured.path, "path");
  };
  const redis = measured.idle?.find((r) => r.store === "redis");
  const levels = (measured.bot ?? []).filter(
    (r) => r.store === "embedded" && r.ackEventsPerSecond === 0,
  );
  const figures: Figure[] = [
    {
      figure: "product files / functions that run for one Slack mention after a warm-up",
      measured: path("slack"),
      goal: `≤ ${MAX_PATH_FILES} files`,
    },
    {
      figure: "the same for one Telegram private message",
      measured: path("telegram"),
      goal: `≤ ${MAX_PATH_FILES} files`,
    },
    {
      figure:
        "Redis commands per answered question (one process, 20 Slack questions one after another; usual, quick answers)",
      measured: redis
        ? `${commandTotal(redis.standard) ?? "–"}, ${commandTotal(redis.quick) ?? "–"}`
        : notRun(measured.idle, "idle"),
      goal: `≤ ${MAX_REDIS_COMMANDS_PER_QUESTION}`,
    },
    {
      figure:
        "CPU of the idle bot on Redis, ms a second (the worse of after its start, after answering)",
      measured: redis ? String(worstIdleCpu(redis)) : notRun(measured.idle, "idle"),
      goal: `≤ ${MAX_IDLE_CPU_MS_PER_SECOND}`,
    },
    {
      figure: `bot CPU per answer ÷ the floor the bench prints, at ${levels.map((r) => r.concurrency.toLocaleString("en-US")).join(" / ") || "100 / 500 / 1,000"}`,
      measured:
        levels.length > 0
          ? levels.map((r) => String(cpuOverFloor(r) ?? "–")).join(" / ")
          : notRun(measured.bot, "bot"),
      goal: `≤ ${MAX_CPU_OVER_FLOOR}`,
    },
  ];
  return formatTable(
    [
      { heading: "figure", cell: (f: Figure) => f.figure },
      { heading: "measured", cell: (f) => f.measured },
      { heading: "goal", cell: (f) => f.goal },
    ],
    figures,
  );
}

/** Why a figure is missing: its section was not run, or it ran and could not measure it. */
function notRun(rows: readonly unknown[] | undefined, section: string): string {
  return rows === undefined ? `– (no ${section} section)` : "– (not measured)";
}
