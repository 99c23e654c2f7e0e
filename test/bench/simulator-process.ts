import { type ChildServer, startChildServer } from "./child-server.ts";

export interface SimulatorAddress {
  url: string;
  apiKey: string;
  botUid: string;
}

/**
 * The simulated backend (src/simulator/cli.ts, as `npm run simulator` runs it) in a process
 * of its own on a free port. Its pacing is the default one (10–60 ms between chunks of 2–16
 * characters): the CLI reads no variable for chunkDelayMs or chunkChars, only
 * SIMULATOR_FAULTS, so a faster answer is asked for with `#fast` in the question.
 */
export function startSimulatorProcess(faults = ""): Promise<ChildServer<SimulatorAddress>> {
  return startChildServer(
    "src/simulator/cli.ts",
    { SIMULATOR_PORT: "0", SIMULATOR_FAULTS: faults },
    (stdout) => {
      const url = /^CHATBOT_BASE_URL=(\S+)$/m.exec(stdout)?.[1];
      const apiKey = /^CHATBOT_API_KEY=(\S+)$/m.exec(stdout)?.[1];
      const botUid = /^CHATBOT_BOT_UID=(\S+)$/m.exec(stdout)?.[1];
      return url && apiKey && botUid ? { url, apiKey, botUid } : undefined;
    },
  );
}
