import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CountingBackend, startCountingBackend } from "../support/counting-backend.ts";
import { type Expectation, loadTelegramPayloads } from "../support/real-payloads.ts";
import { openWebhook, type Rig, startRig, type WebhookEndpoint } from "./rig.ts";

// Read when the file is collected; skipped with one line where ../shared is not there.
const recorded = loadTelegramPayloads();

const SECRET = "real-payloads-secret";
// Calls that put something in front of a person (a draft and a typing sign included).
const VISIBLE = new Set([
  "sendMessage",
  "sendRichMessage",
  "sendMessageDraft",
  "sendRichMessageDraft",
  "editMessageText",
  "sendChatAction",
]);

let rig: Rig;
let backend: CountingBackend;
let webhook: WebhookEndpoint;
/** The conversation each payload's question went into, by payload id. */
const conversationOf = new Map<string, string>();

beforeAll(async () => {
  if (!recorded) return;
  backend = await startCountingBackend();
  rig = await startRig({
    fake: { botId: recorded.bot.id, botUsername: recorded.bot.username },
    backend,
    channel: { webhookUrl: "https://bot.example.com/telegram/webhook", webhookSecret: SECRET },
  });
  webhook = await openWebhook(rig);
});

afterAll(async () => {
  await webhook?.close();
  await rig?.close();
  await backend?.close();
});

/**
 * Every recorded update, in the file's order, through the real entry point (Telegram's POST
 * to /telegram/webhook with the secret), against the fake Telegram and a chatbot that counts
 * its questions. Later payloads build on earlier ones (a follow-up in the same chat).
 */
describe.runIf(recorded)("real Telegram payloads", () => {
  for (const payload of recorded?.payloads ?? []) {
    it(`${payload.id}: ${payload.title}`, async () => {
      const { expect: want, update } = payload;
      rig.fake.receive(update);
      const before = snapshot(want);
      const status = await webhook.post(update, SECRET);
      await rig.channel.settled();
      const seen = since(before, want);

      expect(status, "HTTP status").toBeGreaterThanOrEqual(200);
      expect(status, "HTTP status").toBeLessThanOrEqual(want.maxStatus ?? 299);
      if (!want.logMayComplain) expect(seen.complaints, "warnings and errors logged").toEqual([]);
      if (want.notToBackend !== undefined) {
        expect(seen.asked.filter((q) => q.q.includes(want.notToBackend ?? ""))).toEqual([]);
      }
      const [question] = seen.asked;
      if (question) conversationOf.set(payload.id, question.conversation);
      if (want.sameConversationAs !== undefined) {
        const earlier = conversationOf.get(want.sameConversationAs);
        expect(earlier, `${want.sameConversationAs} started a conversation`).toBeDefined();
        expect(question?.sent, "the conversation continued").toBe(earlier);
      }
      expect(seen.elsewhere, "calls into other chats").toEqual([]);
      checkKind(want, seen);
    });
  }
});

interface Seen {
  /** The bot's new messages in the expected chat. */
  messages: { text: string; replyTo: number | undefined }[];
  /** Visible calls into the expected chat. */
  calls: string[];
  /** Visible calls into any other chat. */
  elsewhere: string[];
  asked: typeof backend.questions;
  complaints: string[];
}

function checkKind(want: Expectation, seen: Seen): void {
  const replyTo = () => {
    if (want.replyTo === undefined) return;
    expect(seen.messages[0]?.replyTo, "the reply quotes the message").toBe(want.replyTo);
  };
  switch (want.kind) {
    case "answer":
      expect(seen.asked, "questions to the chatbot").toHaveLength(1);
      expect(seen.messages.at(-1)?.text).toContain(seen.asked[0]?.answer);
      replyTo();
      return;
    case "command":
      // The bot's own reply (help, a greeting), never a question for the chatbot.
      expect(seen.asked, "questions to the chatbot").toHaveLength(0);
      expect(seen.messages).toHaveLength(1);
      replyTo();
      return;
    case "one-reply":
      // Addressed to the bot: exactly one reply, an answer or a note of its own.
      expect(seen.asked.length).toBeLessThanOrEqual(1);
      expect(seen.messages).toHaveLength(1);
      replyTo();
      return;
    case "note-or-nothing":
      expect(seen.asked, "questions to the chatbot").toHaveLength(0);
      expect(seen.messages.length).toBeLessThanOrEqual(1);
      return;
    case "none":
      expect(seen.asked, "questions to the chatbot").toHaveLength(0);
      expect(seen.calls, "anything shown").toEqual([]);
      return;
    default:
      throw new Error(`telegram.json uses an expect kind this test does not know: ${want.kind}`);
  }
}

interface Snapshot {
  messages: Set<number>;
  calls: number;
  asked: number;
  logs: number;
}

function snapshot(want: Expectation): Snapshot {
  const chat = want.chat;
  return {
    messages: new Set(
      chat === undefined ? [] : rig.fake.botMessages(chat).map((m) => m.message_id),
    ),
    calls: rig.fake.calls.length,
    asked: backend.questions.length,
    logs: rig.logs.length,
  };
}

function since(before: Snapshot, want: Expectation): Seen {
  const visible = rig.fake.calls.slice(before.calls).filter((c) => VISIBLE.has(c.method));
  const inChat = (chatId: unknown) => want.chat !== undefined && Number(chatId) === want.chat;
  return {
    messages:
      want.chat === undefined
        ? []
        : rig.fake
            .botMessages(want.chat)
            .filter((m) => !before.messages.has(m.message_id))
            .map((m) => ({ text: m.text, replyTo: m.replyTo })),
    calls: visible.filter((c) => inChat(c.params.chat_id)).map((c) => c.method),
    elsewhere: visible
      .filter((c) => !inChat(c.params.chat_id))
      .map((c) => `${c.method} ${c.params.chat_id}`),
    asked: backend.questions.slice(before.asked),
    complaints: rig.logs
      .slice(before.logs)
      .flatMap((chunk) => chunk.split("\n").filter(Boolean))
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level >= 40)
      .map((line) => `${line.level} ${line.msg}`),
  };
}
