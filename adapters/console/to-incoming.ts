import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "../../src/ports.ts";

/** The console's one channel, as its settings (its language) are kept. */
export const CHANNEL_KEY = "console";

/**
 * The console is one channel with one thread: its conversation lasts until `/new`.
 * `signal` fires when the person stops the answer (Ctrl+C); `authorLocale` is the system's.
 */
export function toIncoming(
  line: string,
  context: Pick<IncomingMessage, "signal" | "authorLocale"> = {},
): IncomingMessage {
  return {
    channel: "console",
    // Unique per line: the same words typed twice are two questions.
    deliveryId: randomUUID(),
    channelKey: CHANNEL_KEY,
    channelId: "console",
    threadKey: "console",
    authorId: "console",
    authorName: "you",
    text: line,
    // Whoever runs the terminal runs the bot.
    isAdmin: async () => true,
    isBotAdmin: async () => true,
    ...context,
  };
}
