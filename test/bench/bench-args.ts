/** The bench's sections, in the order they run, each with what it measures. */
export const SECTIONS = {
  parse: "stream parsing, MB/s; a rendered answer, rich beside classic Telegram HTML",
  client: "the backend client, 500 concurrent streams",
  store: "one write and one read, embedded and Redis",
  pipeline: "message → bridge → backend → in-memory surface at 100, 500, 1,000",
  leads: "requests per lead poll as leads grow",
  bot: "the whole bot at 100, 500, 1,000 concurrent answers, CPU ÷ the floor",
  idle: "the idle bot's CPU, and Redis commands per answered question, by command",
  path: "product files and functions that run for one Slack mention, one Telegram message",
  pace: "the platforms' pace in real time",
  cap: "one process offered twice MAX_ACTIVE_ANSWERS",
  queue: "the shared answer queue on Redis",
  scale: "1, 2 and 3 bot processes on one Redis",
  memory: "the Redis keys an answered question leaves",
  traces: "CPU per answer with traces off and on, and what off costs a question",
} as const;

export type SectionName = keyof typeof SECTIONS;

export interface BenchArgs {
  /** The sections `--only` names; undefined: every one. */
  only: ReadonlySet<SectionName> | undefined;
  /** `--profile <dir>`: where the whole-bot rows keep their CPU profiles. */
  profileRoot: string | undefined;
}

const FLAGS_WITH_VALUE = new Set(["--only", "--profile"]);

/**
 * The bench's command line. `--help` prints the usage and exits 0; anything it does not know
 * (or a flag without its value) prints the usage and exits 2, before any section starts.
 */
export function benchArgs(args: readonly string[]): BenchArgs {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(usage());
    process.exit(0);
  }
  const values = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const flag = args[i] ?? "";
    const value = args[i + 1];
    if (!FLAGS_WITH_VALUE.has(flag) || value === undefined || value.startsWith("-")) {
      fail(FLAGS_WITH_VALUE.has(flag) ? `${flag} needs a value` : `unknown argument "${flag}"`);
    }
    values.set(flag, value ?? "");
    i++;
  }
  const only = values.get("--only");
  return {
    only: only === undefined ? undefined : sectionNames(only),
    profileRoot: values.get("--profile"),
  };
}

function sectionNames(value: string): Set<SectionName> {
  const names = value.split(",").filter(Boolean);
  const unknown = names.filter((n) => !(n in SECTIONS));
  if (names.length === 0 || unknown.length > 0) {
    fail(`--only takes section names, comma-separated; not ${unknown.join(", ") || "nothing"}`);
  }
  return new Set(names as SectionName[]);
}

function fail(problem: string): never {
  console.error(`${problem}\n\n${usage()}`);
  process.exit(2);
}

export function usage(): string {
  const width = Math.max(...Object.keys(SECTIONS).map((name) => name.length));
  return [
    "Usage: npm run bench [-- --only <section>[,<section>…]] [--profile <dir>]",
    "",
    "Prints the figures as tables, then issue 35's figures against their goals, and writes",
    "them to bench/results/latest.json (latest-only-<sections>.json with --only).",
    "The whole bench takes about twenty minutes on two cores.",
    "",
    "  --only <sections>  run only these sections (comma-separated)",
    "  --profile <dir>    record each whole-bot process's CPU profile in <dir>/bot-<row>/",
    "                     (summed up by `npx tsx test/bench/cpu-profile.ts <file>.cpuprofile`)",
    "  --help             this text",
    "",
    "Sections:",
    ...Object.entries(SECTIONS).map(([name, what]) => `  ${name.padEnd(width)}  ${what}`),
  ].join("\n");
}
