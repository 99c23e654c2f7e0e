import { setTimeout as sleep } from "node:timers/promises";
import type { BotDeliveries } from "./bot-deliveries.ts";

export interface AckProbe {
  events: number;
  /** Deliveries the bot did not answer 200 (Slack would retry them). */
  failed: number;
  /** From sending each signed delivery to the bot's complete response. */
  latenciesMs: number[];
}

const TICK_MS = 5;

/**
 * Delivers Events API messages at `perSecond` for `seconds`, each timed to its ack. They are
 * what a busy workspace sends an app all day: messages in a channel the bot is in that are
 * neither a mention nor in a thread it answers, so the bot verifies, acknowledges and drops
 * them, and the answers already streaming are the only other work. Slack wants the ack
 * within 3 s. https://docs.slack.dev/apis/events-api/#responding
 */
export async function probeSlackAcks(
  deliveries: BotDeliveries,
  perSecond: number,
  seconds: number,
): Promise<AckProbe> {
  const total = Math.round(perSecond * seconds);
  const acks: Promise<{ status: number; ms: number }>[] = [];
  const started = performance.now();
  while (acks.length < total) {
    // Sent on schedule whatever the responses do: a slow ack must not slow the rate.
    const due = Math.min(total, Math.floor(((performance.now() - started) * perSecond) / 1000));
    while (acks.length < due) {
      acks.push(
        deliveries
          .slackEvent("T0", {
            type: "message",
            channel_type: "channel",
            channel: "CCHATTER",
            user: "UCHATTER",
            text: "anyone up for lunch?",
          })
          // No connection or no answer (its listen backlog full): Slack would retry it.
          .catch(() => ({ status: 0, ms: Number.NaN })),
      );
    }
    await sleep(TICK_MS);
  }
  const results = await Promise.all(acks);
  return {
    events: results.length,
    failed: results.filter((r) => r.status !== 200).length,
    latenciesMs: results.filter((r) => r.status === 200).map((r) => r.ms),
  };
}
