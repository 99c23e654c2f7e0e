import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "../../src/ports.ts";

/**
 * The console is one channel with one thread: its conversation lasts until `/new`.
 * `signal` fires when the person stops the answer (Ctrl+C).
 */
export function toIncoming(line: string, signal?: AbortSignal): IncomingMessage {
  return {
    channel: "console",
    // Unique per line: the same words typed twice are two questions.
    deliveryId: randomUUID(),
    channelKey: "console",
    channelId: "console",
    threadKey: "console",
    authorId: "console",
    authorName: "you",
    text: line,
    // Whoever runs the terminal runs the bot.
    isAdmin: async () => true,
    signal,
  };
}
