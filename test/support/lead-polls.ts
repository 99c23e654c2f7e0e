import type { Simulator } from "../../src/simulator/index.ts";
import { until } from "./run-bot.ts";

/** The simulator's path for the leads of the chatbot `botUid`. */
const leadsPath = (botUid: string) => `/api/v1/backend/chatbot/${botUid}/leads`;

/**
 * Resolves once `rounds` more lead polls of each of these chatbots, begun from now, have run to
 * their end: the round that would announce a lead again has had its turn. A chatbot's polls run
 * one after another, so one is over once the next one asks the backend.
 */
export async function afterLeadPolls(
  simulator: Simulator,
  botUids: readonly string[],
  rounds = 1,
): Promise<void> {
  const from = botUids.map((botUid) => simulator.hits(leadsPath(botUid)));
  await until(`${rounds} more lead polls of ${botUids.join(", ")}`, () =>
    botUids.every((botUid, i) => simulator.hits(leadsPath(botUid)) >= (from[i] ?? 0) + rounds + 1)
      ? true
      : undefined,
  );
}
