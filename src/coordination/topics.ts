/**
 * Messages between processes (Coordination.publish and subscribe): Redis pub/sub, and this
 * in-memory twin for the embedded store, whose one process is every subscriber there is.
 * Messages are delivered after the publisher's turn, as a Redis subscriber would get them.
 */
export class MemoryTopics {
  readonly #subscribers = new Map<string, Set<(message: string) => void>>();

  publish(topic: string, message: string): number {
    const subscribers = [...(this.#subscribers.get(topic) ?? [])];
    for (const onMessage of subscribers) queueMicrotask(() => onMessage(message));
    return subscribers.length;
  }

  subscribe(topic: string, onMessage: (message: string) => void): () => void {
    const subscribers = this.#subscribers.get(topic) ?? new Set();
    this.#subscribers.set(topic, subscribers);
    subscribers.add(onMessage);
    return () => {
      subscribers.delete(onMessage);
      if (subscribers.size === 0) this.#subscribers.delete(topic);
    };
  }
}
