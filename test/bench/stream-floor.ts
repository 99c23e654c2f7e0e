// What this machine charges to read the whole-bot rows' answers and do nothing with them:
// undici's dispatcher (the bot's HTTP client) receiving the stamp backend's answers, at the
// same concurrency, pace and rounds as the bot. The bot's CPU per answer can only add to it,
// so a goal below this floor cannot be met here by any change to the bot.
import { Agent, type Dispatcher } from "undici";
import { rampSlots } from "./ramp.ts";
import { QUICK, STAMP_ANSWER_MS } from "./stamp-backend.ts";
import { startStampBackendProcess } from "./stamp-backend-process.ts";
import { cpuMsSince, round } from "./stats.ts";
import { warmUpRounds } from "./warm-up.ts";

export interface StreamFloorOptions {
  concurrency: number;
  /** Answers each conversation asks for in a row. Default 3, as the whole-bot rows. */
  rounds?: number;
}

export interface StreamFloorRow {
  concurrency: number;
  answers: number;
  cpuMsPerAnswer: number;
}

const CHAT_PATH = "/api/v1/backend/chatbot/bench-bot/chat";
/** As the whole-bot warm-up (bot-bench.ts): connections open, then paced answers (warm-up.ts). */
const WARM_UP_CONVERSATIONS = 200;

export async function benchStreamFloor(options: StreamFloorOptions): Promise<StreamFloorRow> {
  const backend = await startStampBackendProcess();
  const agent = new Agent();
  try {
    const ask = (question: string) => readAnswer(agent, backend.info.url, question);
    await converse(WARM_UP_CONVERSATIONS, 2, 0, () => ask(`warm up ${QUICK}`));
    const warmUp = warmUpRounds(options.concurrency);
    await converse(options.concurrency, warmUp, STAMP_ANSWER_MS, () =>
      ask("warm up: how does it work?"),
    );
    const cpu = process.cpuUsage();
    const rounds = options.rounds ?? 3;
    await converse(options.concurrency, rounds, STAMP_ANSWER_MS, () => ask("how does it work?"));
    const answers = options.concurrency * rounds;
    return {
      concurrency: options.concurrency,
      answers,
      cpuMsPerAnswer: round(cpuMsSince(cpu) / answers),
    };
  } finally {
    await agent.close();
    await backend.close();
  }
}

/** `concurrency` conversations started evenly over `rampMs`, each asking `rounds` in a row. */
async function converse(
  concurrency: number,
  rounds: number,
  rampMs: number,
  ask: () => Promise<void>,
): Promise<void> {
  await rampSlots(concurrency, rampMs, async () => {
    for (let round = 0; round < rounds; round++) await ask();
  });
}

/** One streamed answer, read by callbacks as the bot's transport reads it, then dropped. */
function readAnswer(agent: Agent, origin: string, question: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart: noop,
      onResponseStart: noop,
      onResponseData: noop,
      onResponseEnd: () => resolve(),
      onResponseError: (_controller, error) => reject(error),
    };
    agent.dispatch(
      {
        origin,
        path: CHAT_PATH,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ q: question, stream: true }),
      },
      handler,
    );
  });
}

function noop(): void {}
