import type { PathFile, PathRow } from "./path-bench.ts";
import { formatTable } from "./table.ts";

/** Issue 35's goal: product files that run for one message. */
export const MAX_PATH_FILES = 35;

const PLATFORM_LABEL: Record<PathRow["platform"], string> = {
  slack: "Slack @mention",
  telegram: "Telegram private",
};

/** Files and functions that ran for the message, and those of them that did not run idle too. */
function pathFigures(row: PathRow): {
  files: number;
  functions: number;
  ownFiles: number;
  ownFunctions: number;
} {
  const own = row.files.filter((f) => f.functions.length > f.alsoIdle);
  return {
    files: row.files.length,
    functions: row.functions,
    ownFiles: own.length,
    ownFunctions: row.files.reduce((sum, f) => sum + f.functions.length - f.alsoIdle, 0),
  };
}

/** Each message's figures, then every file that ran for one of them, beside each other. */
export function pathLines(rows: readonly PathRow[]): string[] {
  const lines = rows.map((row) => {
    const f = pathFigures(row);
    return [
      `${PLATFORM_LABEL[row.platform]}: ${f.files} product files, ${f.functions} functions (goal ≤ ${MAX_PATH_FILES} files) for ${row.message},`,
      `  after ${row.warmUp} answered in the same conversation; counted over ${(row.windowMs / 1000).toFixed(1)} s, delivery to the answer's end.`,
      `  Less the functions that also ran in ${(row.idleMs / 1000).toFixed(0)} s with nobody writing (${row.idleFunctions}, the process's timers): ${f.ownFiles} files, ${f.ownFunctions} functions.`,
      ...(row.answers === row.warmUp + 1
        ? []
        : [`  WARNING: the bot gave ${row.answers} answers to ${row.warmUp + 1} messages.`]),
      ...(row.problems.length > 0 ? [`  The bot logged: ${row.problems.join(" | ")}`] : []),
    ].join("\n");
  });
  return [...lines, "", fileTable(rows)];
}

/** One line a file: the functions that ran in it for each message, and how many of them ran idle too. */
function fileTable(rows: readonly PathRow[]): string {
  const byFile = new Map<string, Map<PathRow["platform"], PathFile>>();
  for (const row of rows) {
    for (const file of row.files) {
      const entry = byFile.get(file.file) ?? new Map();
      entry.set(row.platform, file);
      byFile.set(file.file, entry);
    }
  }
  // By path: a folder's files stand together.
  const files = [...byFile].sort(([a], [b]) => a.localeCompare(b));
  return formatTable(
    [
      {
        heading: "file (functions that ran; idle: those of them that ran with nobody writing too)",
        cell: ([file]) => file,
      },
      ...rows.flatMap((row) => [
        {
          heading: PLATFORM_LABEL[row.platform],
          cell: ([, entry]: (typeof files)[number]) =>
            entry.get(row.platform)?.functions.length ?? "",
        },
        {
          heading: "idle",
          cell: ([, entry]: (typeof files)[number]) => entry.get(row.platform)?.alsoIdle || "",
        },
      ]),
    ],
    files,
  );
}
