/**
 * `npm run feedback -- --since 7d`: every vote on answers to questions of the last days, one
 * JSON object a line on stdout (the API has no feedback endpoint, so the records leave the bot
 * this way). Reads the store the bot is configured with (STORE_URL or DATA_DIR, from the
 * environment and `.env`). The embedded store belongs to one process: stop the bot first, or
 * use Redis.
 */
import { parseArgs } from "node:util";
import { config as loadDotenv } from "dotenv";
import { z } from "zod";
import { feedbackDays } from "../bridge/commands.ts";
import { loadConfig } from "../config.ts";
import { BridgeError } from "../errors.ts";
import { openStoreAtStart } from "../store/open-store.ts";
import { FeedbackVotes, MAX_FEEDBACK_DAYS } from "./votes.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

// The days `/feedback` takes, followed by a "d".
const sinceDays = z
  .string()
  .regex(/d$/)
  .transform((value) => value.slice(0, -1))
  .pipe(feedbackDays);

const USAGE = `usage: npm run feedback -- --since <days>d
Prints every vote on answers to questions of the last <days> days (1d to ${MAX_FEEDBACK_DAYS}d, default 7d),
one JSON object a line, from the store in STORE_URL or DATA_DIR (.env is read).`;

async function run(): Promise<number> {
  let since: number;
  try {
    const { values } = parseArgs({
      options: { since: { type: "string", default: "7d" }, help: { type: "boolean", short: "h" } },
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const parsed = sinceDays.safeParse(values.since);
    if (!parsed.success) throw new Error(`--since takes 1d to ${MAX_FEEDBACK_DAYS}d`);
    since = parsed.data;
  } catch (error) {
    process.stderr.write(
      `usage: npm run feedback -- --since <days>d (${(error as Error).message})\n`,
    );
    return 2;
  }
  loadDotenv({ quiet: true });
  try {
    const config = loadConfig(process.env);
    // Reads what a bot wrote: a DATA_DIR with no store in it is a setting to fix.
    const store = await openStoreAtStart({
      storeUrl: config.storeUrl,
      storeSentinel: config.storeSentinel,
      dataDir: config.dataDir,
      existing: true,
    });
    try {
      const from = new Date(Date.now() - since * DAY_MS);
      const votes = await new FeedbackVotes(store).since(from);
      for (const vote of votes) process.stdout.write(`${JSON.stringify(vote)}\n`);
      // Said apart from the export (stdout stays JSON lines): an empty file is not a failure.
      if (votes.length === 0) {
        process.stderr.write(
          `no votes since ${from.toISOString().slice(0, 10)}: nothing to export\n`,
        );
      }
    } finally {
      await store.close();
    }
    return 0;
  } catch (error) {
    // Config and store errors carry no secret (errors.ts); anything else is unexpected.
    const message = error instanceof BridgeError ? error.message : String(error);
    process.stderr.write(`feedback export failed: ${message}\n`);
    return 1;
  }
}

process.exitCode = await run();
