import { END_STATES, QUESTION_STATES } from "../../src/bridge/question-life.ts";
import type { Simulator } from "../../src/simulator/index.ts";
import { until } from "./run-bot.ts";

// The rounds of a bot that a test waits for, to show that something did not happen: after
// the round that would have done it, not after a sleep.

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

/** A JSON log line of the bot, as far as a question's changes of state need it. */
interface LogLine {
  msg: string;
  question?: unknown;
}

const STATES: ReadonlySet<string> = new Set(QUESTION_STATES);
const ENDS: ReadonlySet<string> = new Set(END_STATES);

/**
 * The ids of the questions in a bot's log (at LOG_LEVEL=debug) that have not reached an end
 * state yet: the bot logs each change of a question's state as `question <state>` with the
 * question's id (src/bridge/question-life.ts). None: every delivery it took is over.
 */
export function questionsUnderWay(lines: readonly LogLine[]): string[] {
  const last = new Map<string, string>();
  for (const { msg, question } of lines) {
    const state = msg.replace(/^question /, "");
    if (typeof question === "string" && msg !== state && STATES.has(state))
      last.set(question, state);
  }
  return [...last].filter(([, state]) => !ENDS.has(state)).map(([id]) => id);
}
