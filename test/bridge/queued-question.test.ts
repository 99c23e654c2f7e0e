import { describe, expect, it } from "vitest";
import { queuedRecordOf, readQueuedQuestion } from "../../src/bridge/queued-question.ts";
import type { IncomingMessage } from "../../src/ports.ts";

const message: IncomingMessage = {
  channel: "telegram",
  deliveryId: "-1001:7",
  channelKey: "telegram:-1001",
  channelId: "-1001",
  threadKey: "telegram:-1001:chain:7",
  authorId: "42",
  authorName: "Ann",
  text: "a quote, please",
  replyPlace: { chatId: -1001, replyTo: 7 },
  origin: { chat: -1001, type: "supergroup", title: "Team", message: 7 },
  isAdmin: async () => false,
};

describe("a question in the deployment's queue", () => {
  it("reaches the process that takes it with all it needs: where to reply and where its conversation is", () => {
    const record = queuedRecordOf({
      id: "q1",
      receiver: "process-a",
      message,
      ticket: "ticket-1",
      language: "en",
      asked: message.text,
    });
    // Through the store as JSON, as the queue carries it.
    const taken = readQueuedQuestion(JSON.parse(JSON.stringify(record)));
    expect(taken?.message).toMatchObject({
      threadKey: message.threadKey,
      authorName: "Ann",
      replyPlace: message.replyPlace,
      origin: message.origin,
    });
    const { origin: _, ...earlier } = record.message;
    expect(readQueuedQuestion({ ...record, message: earlier })?.message.origin).toBeUndefined();
  });
});
