/** A JSON log line of the bot, as far as a question's changes of state need it. */
interface LogLine {
  msg: string;
  question?: unknown;
}

/**
 * The ids of the questions whose last change of state in `lines` is "waiting for its thread":
 * each waits, showing nothing, behind an earlier question of its thread. The bot logs every
 * change of a question's state at debug level, as `question <state>` with the question's id
 * (src/bridge/question-life.ts), so a test knows a question waits without a notice to see.
 */
export function waitingForTheirThread(lines: readonly LogLine[]): string[] {
  const last = new Map<string, string>();
  for (const { msg, question } of lines) {
    if (typeof question === "string" && msg.startsWith("question ")) last.set(question, msg);
  }
  return [...last].filter(([, msg]) => msg === "question waiting for its thread").map(([id]) => id);
}
