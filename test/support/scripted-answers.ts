import { STREAM_DELIMITER } from "../../src/backend/stream-parser.ts";
import { type RawBackend, startRawBackend } from "./raw-backend.ts";

/** One streamed answer, written piece by piece when the test says. */
export class AnswerFeed {
  readonly #parts: (string | null)[] = [];
  #wake: (() => void) | undefined;

  /** Sends a piece of the answer's text. */
  send(text: string): void {
    this.#parts.push(text);
    this.#wake?.();
  }

  /** Ends the answer. */
  end(): void {
    this.#parts.push(null);
    this.#wake?.();
  }

  async next(): Promise<string | null> {
    while (this.#parts.length === 0) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
    return this.#parts.shift() as string | null;
  }
}

/**
 * A backend whose every streamed answer the test writes: `answer(n)` is the n-th chat
 * request's (1-based), whether it has arrived yet or not. The header goes out at once.
 */
export interface ScriptedBackend {
  backend: RawBackend;
  answer(n: number): AnswerFeed;
  /** Chat requests received so far. */
  readonly asked: number;
  close(): Promise<void>;
}

export async function startScriptedBackend(): Promise<ScriptedBackend> {
  const feeds: AnswerFeed[] = [];
  const answer = (n: number) => {
    while (feeds.length < n) feeds.push(new AnswerFeed());
    return feeds[n - 1] as AnswerFeed;
  };
  const backend = await startRawBackend(async (ctx) => {
    const feed = answer(ctx.hit);
    ctx.res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    const header = {
      answer: "",
      question: "",
      related_docs: [],
      conversation_uid: "conv-1",
      is_qa_mode: false,
      system_message: "",
    };
    await ctx.write(`${JSON.stringify(header)}${STREAM_DELIMITER}`, 0);
    for (let part = await feed.next(); part !== null; part = await feed.next()) {
      await ctx.write(part, 0);
    }
    ctx.res.end();
  });
  return {
    backend,
    answer,
    get asked() {
      return backend.requests.length;
    },
    close: () => backend.close(),
  };
}
