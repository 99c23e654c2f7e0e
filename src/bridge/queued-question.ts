import { z } from "zod";
import { CATALOG_LANGUAGES, type CatalogLanguage } from "../i18n/languages.ts";
import type { IncomingMessage } from "../ports.ts";

/**
 * A question in the deployment's queue: all another process needs to answer it. A record of
 * an earlier version (a process not upgraded yet) lacks some fields: it is answered without
 * its notice and its place in its thread's line.
 */
const queuedRecord = z.object({
  /** The question's id in the logs of every process. */
  question: z.string().default(() => "earlier"),
  /** The process that received it: it shows the question's notice while it waits. */
  receiver: z.string().default(""),
  message: z.object({
    channel: z.string(),
    deliveryId: z.string(),
    channelKey: z.string(),
    channelId: z.string(),
    threadKey: z.string(),
    authorId: z.string(),
    authorName: z.string().optional(),
    text: z.string(),
    bareCommands: z.boolean().optional(),
    replyPlace: z.unknown(),
    origin: z.unknown().optional(),
    direct: z.boolean().optional(),
  }),
  /** Its ticket in its thread's line, taken on arrival: the taker holds it from then on. */
  ticket: z.unknown().transform((ticket) => (typeof ticket === "string" ? ticket : undefined)),
  /** When the receiving process got it (epoch ms). */
  receivedAt: z.number(),
  /** The language the bot speaks to its asker. */
  language: z.enum(CATALOG_LANGUAGES).default("en"),
  /** What the chatbot receives, as the receiving process read it (a first question with its discussion). */
  asked: z.string().optional(),
  /** The question's trace (a W3C traceparent), when the receiving process traces. */
  trace: z.string().optional(),
});

/** A question taken from the deployment's queue, as the taking process answers it. */
export interface QueuedQuestion {
  id: string;
  receiver: string;
  message: IncomingMessage;
  /** Its ticket in its thread's line (none from an earlier version). */
  ticket: string | undefined;
  /** When the receiving process got it (epoch ms). */
  receivedAt: number;
  language: CatalogLanguage;
  /** What the chatbot receives. */
  asked: string;
  /** The trace the taker goes on with (src/tracing.ts). */
  trace?: string | undefined;
}

/** What goes into the deployment's queue for a question this process has no room for. */
export function queuedRecordOf(
  question: Omit<QueuedQuestion, "receivedAt">,
): z.input<typeof queuedRecord> {
  const { message } = question;
  return {
    question: question.id,
    receiver: question.receiver,
    message: {
      channel: message.channel,
      deliveryId: message.deliveryId,
      channelKey: message.channelKey,
      channelId: message.channelId,
      threadKey: message.threadKey,
      authorId: message.authorId,
      ...(message.authorName !== undefined && { authorName: message.authorName }),
      text: message.text,
      bareCommands: message.bareCommands,
      replyPlace: message.replyPlace,
      ...(message.origin !== undefined && { origin: message.origin }),
      ...(message.direct && { direct: true }),
    },
    ticket: question.ticket,
    receivedAt: Date.now(),
    language: question.language,
    asked: question.asked,
    ...(question.trace !== undefined && { trace: question.trace }),
  };
}

/** The question in a queue entry; undefined when the entry cannot be read. */
export function readQueuedQuestion(value: unknown): QueuedQuestion | undefined {
  const parsed = queuedRecord.safeParse(value);
  if (!parsed.success) return undefined;
  const { question, message, asked, ...rest } = parsed.data;
  return {
    id: question,
    // Commands never go through the queue, and only they ask who is an admin.
    message: { ...message, isAdmin: () => Promise.resolve(false) },
    asked: asked ?? message.text,
    ...rest,
  };
}
