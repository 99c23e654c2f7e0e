import { benchChat } from "./bot-bench-chats.ts";
import type { BotDeliveries } from "./bot-deliveries.ts";
import type { FakePlatforms } from "./fake-platforms-process.ts";
import { rampSlots } from "./ramp.ts";
import { epochMs } from "./stats.ts";

export interface BotLoadOptions {
  /** Where the questions go: one bot's deliveries, or several behind a balancer. */
  deliveries: Pick<BotDeliveries, "question">;
  platforms: FakePlatforms;
  /** Answers streaming at once: one conversation ("slot") per concurrent answer. */
  concurrency: number;
  /** Questions each conversation asks, each after the previous answer closed. */
  rounds: number;
  /** Conversations start evenly over this time, so answers do not move in lockstep. */
  rampMs: number;
  /** An answer not closed by then counts as failed, and its conversation goes on. */
  answerTimeoutMs: number;
  /** The first slot's number (warm-up conversations are kept apart from measured ones). */
  firstSlot?: number;
  question(slot: number, round: number): string;
  /** Resident memory of the bot now (sampled while the load runs). */
  botRss(): number;
  /** Called once every conversation has asked its first question. */
  onFull?: () => void;
}

export interface AskedQuestion {
  key: string;
  round: number;
  /** When it was handed to the bot, in this process's epoch ms. */
  sentAt: number;
  /** The bot's HTTP status for the delivery (200: taken), and how long it took to answer. */
  status: number;
  ackMs: number;
  /** The fake platform saw the answer close. */
  closed: boolean;
}

export interface MemorySample {
  at: number;
  rss: number;
  /** Questions delivered whose answers had not closed yet. */
  active: number;
}

export interface BotLoadResult {
  questions: AskedQuestion[];
  samples: MemorySample[];
  /** From the moment every conversation had started until the first was done: all busy. */
  fullFrom: number;
  fullUntil: number;
}

const SAMPLE_EVERY_MS = 250;

/**
 * Drives the bot as `concurrency` people who each ask `rounds` questions in their own
 * conversation, the next once the fake platform shows the previous answer closed; samples
 * the bot's memory against the answers open meanwhile.
 */
export async function runBotLoad(options: BotLoadOptions): Promise<BotLoadResult> {
  const questions: AskedQuestion[] = [];
  const samples: MemorySample[] = [];
  let active = 0;
  let started = 0;
  let fullFrom = Number.POSITIVE_INFINITY;
  let fullUntil = Number.POSITIVE_INFINITY;
  const sampler = setInterval(() => {
    samples.push({ at: performance.now(), rss: options.botRss(), active });
  }, SAMPLE_EVERY_MS);

  const converse = async (index: number) => {
    const slot = (options.firstSlot ?? 0) + index;
    const chat = benchChat(slot);
    for (let round = 0; round < options.rounds; round++) {
      // Listening before asking: the answer cannot close before it is awaited.
      const closed = options.platforms.closed(chat.key, options.answerTimeoutMs);
      const asked: AskedQuestion = {
        key: chat.key,
        round,
        sentAt: epochMs(),
        status: 0,
        ackMs: Number.NaN,
        closed: false,
      };
      questions.push(asked);
      active++;
      if (round === 0 && ++started === options.concurrency) {
        fullFrom = performance.now();
        options.onFull?.();
      }
      const delivered = await options.deliveries
        .question(chat, options.question(slot, round))
        .catch(() => ({ status: 0, ms: Number.NaN }));
      asked.status = delivered.status;
      asked.ackMs = delivered.ms;
      asked.closed = asked.status === 200 && (await closed);
      active--;
    }
    fullUntil = Math.min(fullUntil, performance.now());
  };

  try {
    await rampSlots(options.concurrency, options.rampMs, converse);
  } finally {
    clearInterval(sampler);
  }
  return { questions, samples, fullFrom, fullUntil };
}
