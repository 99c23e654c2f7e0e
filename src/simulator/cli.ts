/**
 * `npm run simulator`: the simulated backend on its own, for pointing the bridge (or curl)
 * at it. A dev tool entry point, so it reads its four variables here:
 *   SIMULATOR_PORT    port to listen on (default 8787; 0 picks a free one)
 *   SIMULATOR_LEADS   number of generated leads (default 25, for each chatbot)
 *   SIMULATOR_FAULTS  directives applied to every chat, e.g. "#slow #docs"
 *   SIMULATOR_BOTS    several chatbots by name, e.g. "support,sales" (checked as the bot does)
 */
import { loadConfig } from "../config.ts";
import { ConfigError } from "../errors.ts";
import { FAULT_DIRECTIVES, type Simulator, simulatedBotUid, startSimulator } from "./index.ts";

function wholeNumber(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw)) {
    console.error(`${name} must be a whole number, got "${raw}"`);
    process.exit(2);
  }
  return Number(raw);
}

function simulatorBots(): string[] {
  try {
    return loadConfig({ SIMULATOR_BOTS: process.env.SIMULATOR_BOTS }).simulatorBots;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.problems.join("\n"));
    process.exit(2);
  }
}

const port = wholeNumber("SIMULATOR_PORT", 8787);
const bots = simulatorBots().map((name) => ({ name, botUid: simulatedBotUid(name) }));
let simulator: Simulator;
try {
  simulator = await startSimulator({
    bots: bots.map((bot) => bot.botUid),
    port,
    leads: wholeNumber("SIMULATOR_LEADS", 25),
    faults: process.env.SIMULATOR_FAULTS ?? "",
  });
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  console.error(
    code === "EADDRINUSE"
      ? `port ${port} is in use; set SIMULATOR_PORT to another port (0 picks a free one)`
      : `simulator failed to start: ${(error as Error).message}`,
  );
  process.exit(1);
}

const width = Math.max(...FAULT_DIRECTIVES.map((d) => d.directive.length));
console.log(
  [
    `Chatbot Backend API simulator listening on ${simulator.url}`,
    "",
    // Unindented, one per line: the block is copied as is into .env (or after `export`).
    "Paste these three lines into the bot's .env to point it at this simulator:",
    `CHATBOT_BASE_URL=${simulator.url}`,
    `CHATBOT_API_KEY=${simulator.apiKey}`,
    bots.length > 1
      ? `CHATBOTS=${bots.map((bot) => `${bot.name}:${bot.botUid}`).join(",")}`
      : `CHATBOT_BOT_UID=${simulator.botUid}`,
    "",
    "Fault directives (put them in a question):",
    ...FAULT_DIRECTIVES.map((d) => `  ${d.directive.padEnd(width)}  ${d.effect}`),
    "",
    "Ctrl-C stops it.",
  ].join("\n"),
);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await simulator.close();
  console.log("simulator stopped");
  process.exit(0);
}
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
