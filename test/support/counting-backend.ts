import { STREAM_DELIMITER } from "../../src/backend/stream-parser.ts";
import { startRawBackend } from "./raw-backend.ts";

/** One question the chatbot was asked. */
export interface AskedQuestion {
  /** 1 for the first question this backend got. */
  n: number;
  q: string;
  /** The conversation the bot asked to continue, if any. */
  sent: string | undefined;
  /** The conversation the answer belongs to (`sent`, or a new one). */
  conversation: string;
  /** The answer's whole text: `Answer <n>.` */
  answer: string;
}

export interface CountingBackend {
  url: string;
  apiKey: string;
  botUid: string;
  questions: readonly AskedQuestion[];
  close(): Promise<void>;
}

/**
 * A chatbot that counts what it is asked: each question gets a short streamed answer naming
 * its number, and a conversation uid of its own (`conv-<n>`) unless it continues one, so a
 * test can tell which question an answer on screen belongs to and which conversation a
 * follow-up continued.
 */
export async function startCountingBackend(): Promise<CountingBackend> {
  const questions: AskedQuestion[] = [];
  const raw = await startRawBackend(async (ctx) => {
    const body = JSON.parse(ctx.request.body || "{}") as {
      q?: unknown;
      conversation_uid?: unknown;
    };
    const n = questions.length + 1;
    const sent = typeof body.conversation_uid === "string" ? body.conversation_uid : undefined;
    const asked: AskedQuestion = {
      n,
      q: String(body.q ?? ""),
      sent,
      conversation: sent ?? `conv-${n}`,
      answer: `Answer ${n}.`,
    };
    questions.push(asked);
    const header = {
      answer: "",
      question: asked.q,
      related_docs: [],
      conversation_uid: asked.conversation,
      is_qa_mode: false,
      system_message: "",
    };
    ctx.res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    await ctx.write(`${JSON.stringify(header)}${STREAM_DELIMITER}`, 0);
    await ctx.write(asked.answer, 0);
    ctx.res.end();
  });
  return {
    url: raw.url,
    apiKey: "counting-key",
    botUid: "counting-bot",
    questions,
    close: () => raw.close(),
  };
}
