import { STREAM_DELIMITER } from "../../src/backend/stream-parser.ts";
import { type FakeTelegram, startFakeTelegram } from "./fake-telegram.ts";
import { cleanupAfterEach } from "./process-test.ts";
import { startRawBackend } from "./raw-backend.ts";

export interface HeldBackend {
  url: string;
  apiKey: string;
  botUid: string;
  /** Every question asked, in the order the requests came. */
  readonly asked: readonly string[];
  /** The conversation_uid each question came with (undefined: a new conversation). */
  readonly conversations: readonly (string | undefined)[];
  /** Questions whose request the bot closed before their answer ended. */
  readonly dropped: readonly string[];
  /** Requests open now (asked, answer not ended). */
  readonly open: number;
  /** The most requests that were open at one moment. */
  readonly mostOpen: number;
  /** Ends the answer to every question held now, and to every one asked from now on. */
  releaseAll(): void;
  /** Holds the answers to questions asked from now on again, as before releaseAll. */
  holdAgain(): void;
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
  const conversations: (string | undefined)[] = [];
  const dropped: string[] = [];
  const held = new Map<string, () => void>();
  let open = 0;
  let mostOpen = 0;
  let releasing = false;
  const raw = await startRawBackend(async (ctx) => {
    const body = JSON.parse(ctx.request.body || "{}") as {
      q?: unknown;
      conversation_uid?: unknown;
    };
    const question = String(body.q ?? "");
    asked.push(question);
    conversations.push(
      typeof body.conversation_uid === "string" ? body.conversation_uid : undefined,
    );
    open += 1;
    mostOpen = Math.max(mostOpen, open);
    // Held from the moment it is asked: a release that comes before its first words went out
    // (a test that saw it in `asked`) still ends it.
    const released = releasing
      ? Promise.resolve()
      : new Promise<void>((resolve) => held.set(question, resolve));
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
      const closed = ctx.closedPromise.then(() => "closed" as const);
      if ((await Promise.race([released, closed])) === "closed") dropped.push(question);
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
    conversations,
    dropped,
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
    holdAgain() {
      releasing = false;
    },
    release,
    close: () => raw.close(),
  };
}

/**
 * Starts, per test, a held backend and a bot on it (`startOn`). After the test the answers
 * still held are let go, since one held would keep the bot from closing; then the bot closes,
 * then the backend.
 */
export function heldBackendPerTest(): <T extends { close(): Promise<unknown> }>(
  startOn: (backend: HeldBackend) => Promise<T>,
) => Promise<{ bot: T; backend: HeldBackend }> {
  const track = cleanupAfterEach();
  return async (startOn) => {
    const backend = track(await startHeldBackend(), (held) => held.close());
    const bot = track(await startOn(backend), async (started) => {
      backend.releaseAll();
      await started.close();
    });
    return { bot, backend };
  };
}

/**
 * A fake Telegram that shows every message the bot sends as a message (no drafts, so each is
 * seen where it stands), and a held backend; both closed after the test by `track`, the
 * answers still held let go first.
 */
export async function telegramWithHeldBackend(
  track: ReturnType<typeof cleanupAfterEach>,
): Promise<{ fake: FakeTelegram; backend: HeldBackend }> {
  const fake = track(await startFakeTelegram({ draftsAvailable: false }), (f) => f.close());
  const backend = track(await startHeldBackend(), (b) => {
    b.releaseAll();
    return b.close();
  });
  return { fake, backend };
}
