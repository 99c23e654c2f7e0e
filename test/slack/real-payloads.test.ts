import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CountingBackend, startCountingBackend } from "../support/counting-backend.ts";
import {
  type Expectation,
  loadSlackPayloads,
  type SlackDelivery,
  type SlackPayload,
} from "../support/real-payloads.ts";
import { type Ack, type SlackHarness, startSlackHarness } from "../support/slack-harness.ts";

// Read when the file is collected; skipped with one line where ../shared is not there.
const recorded = loadSlackPayloads();

let h: SlackHarness;
let backend: CountingBackend;
/** The conversation each payload's question went into, by payload id. */
const conversationOf = new Map<string, string>();

beforeAll(async () => {
  if (!recorded) return;
  backend = await startCountingBackend();
  h = await startSlackHarness({
    backend,
    fake: {
      team: recorded.bot.team,
      botUserId: recorded.bot.user,
      botId: recorded.bot.bot_id,
      channels: channelsIn(recorded.payloads),
    },
  });
});

afterAll(async () => {
  await h?.close();
  await backend?.close();
});

/**
 * Every recorded delivery, in the file's order, through the real entry point (a signed POST
 * to /slack/events), against the fake Slack and a chatbot that counts its questions. Later
 * payloads build on earlier ones (a reply in a thread the bot answers in), as in the recording.
 */
describe.runIf(recorded)("real Slack payloads", () => {
  for (const payload of recorded?.payloads ?? []) {
    it(`${payload.id}: ${payload.title}`, async () => {
      const before = snapshot();
      const acks: Ack[] = [];
      for (const delivery of payload.deliveries) acks.push(await deliver(delivery));
      await h.settle();
      const seen = since(before);
      const { expect: want } = payload;
      // Interactivity is on (issue 16): a button press, even one no feature knows, is
      // acknowledged 200 and passed over quietly, stricter than the recording asks.
      const press = payload.deliveries.some(isInteractive);

      for (const ack of acks) {
        expect(ack.status, "HTTP status").toBeGreaterThanOrEqual(200);
        expect(ack.status, "HTTP status").toBeLessThanOrEqual(
          press ? 200 : (want.maxStatus ?? 299),
        );
      }
      if (!want.logMayComplain || press)
        expect(seen.complaints, "warnings and errors logged").toEqual([]);
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
      checkKind(want, acks, seen);
    });
  }
});

interface Seen {
  /** Messages the bot posted (deleted ones too: nothing is posted only to be deleted). */
  posted: { channel: string; threadTs: string | undefined; text: string; deleted: boolean }[];
  ephemerals: number;
  /** Replies sent to a response_url. */
  responses: number;
  asked: typeof backend.questions;
  complaints: string[];
}

function checkKind(want: Expectation, acks: Ack[], seen: Seen): void {
  // What stays on screen. (A "…" placeholder that a native stream replaces is deleted
  // today: one owner per answer, issue 13, removes it; a "none" payload may post nothing.)
  const shown = seen.posted.filter((m) => !m.deleted);
  const replies = shown.length + seen.ephemerals + seen.responses;
  const inPlace = (threadTs: (t: string | undefined) => boolean) =>
    shown.every((m) => m.channel === want.channel && threadTs(m.threadTs));
  switch (want.kind) {
    case "challenge":
      // Saving the Request URL: Slack reads the challenge back from the response.
      expect(acks[0]?.body).toContain(want.challenge);
      expect(replies).toBe(0);
      return;
    case "answer":
    case "dm-answer": {
      // One question, answered where it was asked: in its thread (a DM may also answer
      // beside the message, at the top level).
      expect(seen.asked, "questions to the chatbot").toHaveLength(1);
      const thread =
        want.kind === "answer"
          ? (t: string | undefined) => t === want.thread_ts
          : (t: string | undefined) => t === undefined || t === want.ts;
      expect(inPlace(thread), "every message in the question's thread").toBe(true);
      expect(shown.at(-1)?.text).toContain(seen.asked[0]?.answer);
      expect(seen.ephemerals + seen.responses).toBe(0);
      return;
    }
    case "dm-one-reply":
      // The text that came with a file: an answer, or one short note, in the DM.
      expect(seen.asked.length).toBeLessThanOrEqual(1);
      expect(replies).toBe(1);
      expect(inPlace((t) => t === undefined || t === want.ts)).toBe(true);
      return;
    case "greeting":
      // Opening the assistant pane: at most one greeting there, and no question.
      expect(seen.asked).toHaveLength(0);
      expect(replies).toBeLessThanOrEqual(1);
      expect(inPlace((t) => t === want.thread_ts)).toBe(true);
      return;
    case "command-reply":
      // A slash command: one reply to the person who typed it, never a chatbot answer.
      expect(seen.asked).toHaveLength(0);
      expect(replies).toBe(1);
      return;
    case "none":
      expect(seen.asked, "questions to the chatbot").toHaveLength(0);
      expect(seen.posted, "messages posted").toEqual([]);
      expect(seen.ephemerals + seen.responses, "private replies").toBe(0);
      return;
    default:
      throw new Error(`slack.json uses an expect kind this test does not know: ${want.kind}`);
  }
}

/** A form-encoded interactivity payload (block_actions and its kin), as Slack posts a press. */
function isInteractive(delivery: SlackDelivery): boolean {
  return delivery.as === "form" && delivery.form.payload !== undefined;
}

async function deliver(delivery: SlackDelivery): Promise<Ack> {
  // Real response_urls point at Slack; the recording points them at the fake.
  const local = (text: string) => text.replaceAll("{FAKE_SLACK}", h.fake.baseUrl);
  if (delivery.as === "event") {
    return h.sendRaw(local(JSON.stringify(delivery.json)), "application/json");
  }
  const form = Object.fromEntries(
    Object.entries(delivery.form).map(([key, value]) => [key, local(value)]),
  );
  return h.sendRaw(new URLSearchParams(form).toString(), "application/x-www-form-urlencoded");
}

interface Snapshot {
  messages: Set<string>;
  ephemerals: number;
  responses: number;
  asked: number;
  logs: number;
}

function snapshot(): Snapshot {
  return {
    messages: new Set(h.fake.messages.keys()),
    ephemerals: h.fake.ephemerals.length,
    responses: h.fake.responses.length,
    asked: backend.questions.length,
    logs: h.logs.length,
  };
}

function since(before: Snapshot): Seen {
  return {
    posted: [...h.fake.messages.values()]
      .filter((m) => !before.messages.has(m.ts))
      .map((m) => ({
        channel: m.channel,
        threadTs: m.threadTs,
        text: h.fake.view(m).visible,
        deleted: m.deleted,
      })),
    ephemerals: h.fake.ephemerals.length - before.ephemerals,
    responses: h.fake.responses.length - before.responses,
    asked: backend.questions.slice(before.asked),
    complaints: h.logs.slice(before.logs).map((line) => `${line.level} ${line.msg}`),
  };
}

/**
 * The conversations the payloads name, as the fake Slack must know them to accept the bot's
 * posts there: DMs (ids starting with D) and channels the bot is in.
 */
function channelsIn(payloads: readonly SlackPayload[]): Record<string, { type: "channel" | "im" }> {
  const ids = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) {
        if ((key === "channel" || key === "channel_id") && typeof inner === "string")
          ids.add(inner);
        else walk(inner);
      }
    }
  };
  for (const payload of payloads) walk(payload.deliveries);
  return Object.fromEntries(
    [...ids].map((id) => [id, { type: id.startsWith("D") ? "im" : "channel" }] as const),
  );
}
