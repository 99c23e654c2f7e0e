import { STREAM_DELIMITER } from "../../src/backend/stream-parser.ts";
import { startRawBackend } from "./raw-backend.ts";

export interface HeldBackend {
  url: string;
  apiKey: string;
  botUid: string;
  /** Every question asked, in the order the requests came. */
  readonly asked: readonly string[];
  /** Requests open now (asked, answer not ended). */
  readonly open: number;
  /** The most requests that were open at one moment. */
  readonly mostOpen: number;
  /** Ends the answer to every question held now, and to every one asked from now on. */
  releaseAll(): void;
  /** Ends the answers to the questions held now that `which` picks. */
  release(which: (question: string) => boolean): void;
  close(): Promise<void>;
}

/**
 * A chatbot that holds each answer open until the test releases it: its header and first
 * words go out at once (the answer is on screen), the end of `Answer to <question>.` only on
 * release. It counts
 * requests open at once, so a test can see how many answers the bot runs in parallel.
 */
export async function startHeldBackend(): Promise<HeldBackend> {
  const asked: string[] = [];
  const held = new Map<string, () => void>();
  let open = 0;
  let mostOpen = 0;
  let releasing = false;
  const raw = await startRawBackend(async (ctx) => {
    const question = String((JSON.parse(ctx.request.body || "{}") as { q?: unknown }).q ?? "");
    asked.push(question);
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    try {
      const header = {
        answer: "",
        question,
        related_docs: [],
        conversation_uid: `conv-${asked.length}`,
        is_qa_mode: false,
        system_message: "",
      };
      ctx.res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      await ctx.write(`${JSON.stringify(header)}${STREAM_DELIMITER}Answer to ${question}`, 0);
      if (!releasing) {
        await Promise.race([
          new Promise<void>((resolve) => held.set(question, resolve)),
          ctx.closedPromise,
        ]);
      }
      await ctx.write(".", 0);
      ctx.res.end();
    } finally {
      held.delete(question);
      open -= 1;
    }
  });
  const release = (which: (question: string) => boolean) => {
    for (const [question, go] of held) if (which(question)) go();
  };
  return {
    url: raw.url,
    apiKey: "held-key",
    botUid: "held-bot",
    asked,
    get open() {
      return open;
    },
    get mostOpen() {
      return mostOpen;
    },
    releaseAll() {
      releasing = true;
      release(() => true);
    },
    release,
    close: () => raw.close(),
  };
}
