/**
 * Keeps the part of handling that reads a message (which thread it belongs to: a store
 * look-up for reply chains) in the order Telegram delivered a chat's messages, so the bridge
 * receives them in that order and its thread queue answers them in it. Different chats never
 * wait for each other, and nothing waits for an answer to finish.
 */
export class ChatOrder {
  readonly #intakes = new Map<number | string, Promise<void>>();

  /**
   * Runs `intake` after the chat's earlier intakes; then starts what it returns (the answer)
   * at once. Resolves when that answer is complete.
   */
  run(
    chatId: number | string,
    intake: () => Promise<(() => Promise<void>) | undefined>,
  ): Promise<void> {
    const previous = this.#intakes.get(chatId) ?? Promise.resolve();
    let answering: Promise<void> = Promise.resolve();
    const taken = previous.then(async () => {
      const start = await intake();
      if (start) answering = start();
    });
    const tail = taken.catch(() => undefined);
    this.#intakes.set(chatId, tail);
    void tail.then(() => {
      if (this.#intakes.get(chatId) === tail) this.#intakes.delete(chatId);
    });
    return taken.then(() => answering);
  }

  /** Intakes not yet done. */
  pending(): Promise<void>[] {
    return [...this.#intakes.values()];
  }
}
