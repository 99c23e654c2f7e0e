import { randomUUID } from "node:crypto";
import { z } from "zod";
import { storeFailureLevel } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { Coordination } from "./port.ts";

/** A request's handler: its reply, or undefined when this process has nothing to say. */
export type RequestHandler = (body: unknown, from: string) => Promise<unknown> | unknown;

/** What a request gathered: each reply with the process that sent it, and who got it at all. */
export interface Replies {
  replies: { from: string; body: unknown }[];
  /** Processes other than this one that got the request (the store's count). */
  reached: number;
}

const envelope = z.object({
  /** What the message is about: the kind its handlers are registered for. */
  k: z.string(),
  /** The sending process (ProcessPresence.id). */
  from: z.string(),
  /** The request a reply answers, or that wants replies. */
  req: z.string().optional(),
  body: z.unknown(),
});

type Envelope = z.infer<typeof envelope>;

const BROADCAST = "signals";
const direct = (process: string) => `signals:${process}`;
const REPLY = "reply";

/**
 * Messages between the processes of a deployment, pushed through the store
 * (Coordination.publish): a stop pressed in one process reaches the answer streaming in
 * another, a thread's turn reaches the process whose question is next, without any process
 * polling for them (docs/architecture.md, "What the processes share"). Each process listens on
 * two topics: one every process hears, and one of its own. On the embedded store the one
 * process hears its own messages, on the same code path.
 *
 * A message is a hint, never a record: one sent while a process's connection is down is lost,
 * so every feature that relies on one also recovers by itself (a waiting ticket looks again on
 * the presence's beat).
 */
export class ProcessSignals {
  readonly #store: Coordination;
  readonly #id: string;
  readonly #log: Logger;
  readonly #handlers = new Map<string, (body: unknown, from: string) => void>();
  readonly #requestHandlers = new Map<string, RequestHandler>();
  readonly #pending = new Map<string, (reply: { from: string; body: unknown }) => void>();
  readonly #unsubscribe: (() => void)[] = [];
  #started: Promise<void> | undefined;

  constructor(options: { store: Coordination; processId: string; log: Logger }) {
    this.#store = options.store;
    this.#id = options.processId;
    this.#log = options.log;
  }

  /** Starts listening (once); resolves when both topics are subscribed. */
  start(): Promise<void> {
    this.#started ??= (async () => {
      const receive = (raw: string) => this.#receive(raw);
      this.#unsubscribe.push(
        await this.#store.subscribe(BROADCAST, receive),
        await this.#store.subscribe(direct(this.#id), receive),
      );
    })().catch((error: unknown) => {
      this.#started = undefined;
      throw error;
    });
    return this.#started;
  }

  /** Calls `handler` for each message of `kind` another process sends or broadcasts. */
  on(kind: string, handler: (body: unknown, from: string) => void): void {
    this.#handlers.set(kind, handler);
  }

  /** Answers each request of `kind` another process broadcasts (see request). */
  onRequest(kind: string, handler: RequestHandler): void {
    this.#requestHandlers.set(kind, handler);
  }

  /** Sends a message of `kind` to process `to` (to this process itself: at once, in process). */
  async send(to: string, kind: string, body: unknown): Promise<void> {
    if (to === this.#id) {
      this.#handlers.get(kind)?.(body, this.#id);
      return;
    }
    await this.#publish(direct(to), { k: kind, from: this.#id, body });
  }

  /** Tells every other process. Resolves how many got it. */
  async broadcast(kind: string, body: unknown): Promise<number> {
    return this.#publish(BROADCAST, { k: kind, from: this.#id, body });
  }

  /**
   * Asks every other process and gathers their replies: resolves once each process that got
   * the request has answered, or after `timeoutMs` (a process that hangs), whichever is first.
   */
  async request(kind: string, body: unknown, timeoutMs: number): Promise<Replies> {
    const req = randomUUID();
    const replies: Replies["replies"] = [];
    let expected = Number.POSITIVE_INFINITY;
    let done = () => {};
    const complete = new Promise<void>((resolve) => {
      done = resolve;
    });
    this.#pending.set(req, (reply) => {
      replies.push(reply);
      if (replies.length >= expected) done();
    });
    const timer = setTimeout(done, timeoutMs);
    try {
      // This process hears its own broadcast: it does not count.
      const reached = Math.max(
        0,
        (await this.#publish(BROADCAST, { k: kind, from: this.#id, req, body })) - 1,
      );
      expected = reached;
      if (replies.length >= expected) done();
      await complete;
      return { replies, reached };
    } finally {
      clearTimeout(timer);
      this.#pending.delete(req);
    }
  }

  /**
   * Asks process `to` alone (this process itself: at once, in process) and resolves its reply,
   * or undefined when none came within `timeoutMs` (the process is gone or cut off).
   */
  async ask(to: string, kind: string, body: unknown, timeoutMs: number): Promise<unknown> {
    if (to === this.#id)
      return (await this.#requestHandlers.get(kind)?.(body, this.#id)) ?? undefined;
    const req = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    try {
      return await new Promise<unknown>((resolve) => {
        timer = setTimeout(() => resolve(undefined), timeoutMs);
        this.#pending.set(req, (reply) => resolve(reply.body));
        this.#publish(direct(to), { k: kind, from: this.#id, req, body }).catch(() =>
          resolve(undefined),
        );
      });
    } finally {
      clearTimeout(timer);
      this.#pending.delete(req);
    }
  }

  /** Stops listening. */
  async close(): Promise<void> {
    await this.#started?.catch(() => undefined);
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  async #publish(topic: string, message: Envelope): Promise<number> {
    return this.#store.publish(topic, JSON.stringify(message));
  }

  #receive(raw: string): void {
    let message: Envelope;
    try {
      const parsed = envelope.safeParse(JSON.parse(raw));
      if (!parsed.success) return;
      message = parsed.data;
    } catch {
      return;
    }
    // A broadcast comes back to its sender too: what concerns this process it handled already.
    if (message.from === this.#id) return;
    if (message.k === REPLY) {
      if (message.req) this.#pending.get(message.req)?.({ from: message.from, body: message.body });
      return;
    }
    if (message.req) {
      void this.#answer(message);
      return;
    }
    try {
      this.#handlers.get(message.k)?.(message.body, message.from);
    } catch (error) {
      this.#log.warn({ err: error, kind: message.k }, "a message from another process failed");
    }
  }

  async #answer({ k, from, req, body }: Envelope): Promise<void> {
    const handler = this.#requestHandlers.get(k);
    try {
      const reply = handler ? await handler(body, from) : undefined;
      await this.#publish(direct(from), { k: REPLY, from: this.#id, req, body: reply ?? null });
    } catch (error) {
      this.#log[storeFailureLevel(error)](
        { err: error, kind: k },
        "could not answer another process",
      );
    }
  }
}
