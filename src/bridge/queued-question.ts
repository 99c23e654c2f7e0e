import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import type { Coordination } from "../coordination/port.ts";
import { CATALOG_LANGUAGES, type CatalogLanguage } from "../i18n/languages.ts";
import type { Logger } from "../log.ts";
import type { Channel, IncomingMessage, MessageRef, ReplySurface } from "../ports.ts";
import type { KeyValueStore } from "../store/types.ts";
import type { HandedTicket } from "./thread-queue.ts";

/** A question may wait this long in the deployment's queue and still keep its thread's order. */
export const QUEUED_TICKET_MS = 60 * 60 * 1000;

/** A question in the deployment's queue: all another process needs to answer it. */
const queuedRecord = z.object({
  /** The question's id in the logs of every process (none from a process of an earlier version). */
  question: z.string().optional(),
  message: z.object({
    channel: z.string(),
    deliveryId: z.string(),
    channelKey: z.string(),
    channelId: z.string(),
    threadKey: z.string(),
    authorId: z.string(),
    text: z.string(),
    bareCommands: z.boolean().optional(),
    replyPlace: z.unknown(),
  }),
  /** Its place in its thread's line, taken on arrival: the taker waits for those ahead. */
  ticket: z.object({ number: z.number(), owner: z.string() }).optional(),
  /** When the receiving process got it (epoch ms). */
  receivedAt: z.number(),
  /** The language the bot speaks to its asker (none from a process of an earlier version). */
  language: z.enum(CATALOG_LANGUAGES).optional(),
  /**
   * What the chatbot receives, as the receiving process read it (a first question with its
   * discussion); none from a process of an earlier version: the message's text.
   */
  asked: z.string().optional(),
});

/** A question taken from the deployment's queue, as the taking process answers it. */
export interface QueuedQuestion {
  id: string | undefined;
  message: IncomingMessage;
  ticket: HandedTicket | undefined;
  /** When the receiving process got it (epoch ms). */
  receivedAt: number;
  language: CatalogLanguage;
  /** What the chatbot receives (undefined: the message's text). */
  asked: string | undefined;
}

/** What goes into the deployment's queue for a question this process has no room for. */
export function queuedRecordOf(
  id: string,
  message: IncomingMessage,
  ticket: HandedTicket | undefined,
  language: CatalogLanguage,
  asked?: string,
): z.input<typeof queuedRecord> {
  return {
    question: id,
    message: {
      channel: message.channel,
      deliveryId: message.deliveryId,
      channelKey: message.channelKey,
      channelId: message.channelId,
      threadKey: message.threadKey,
      authorId: message.authorId,
      text: message.text,
      bareCommands: message.bareCommands,
      replyPlace: message.replyPlace,
    },
    ticket,
    receivedAt: Date.now(),
    language,
    ...(asked !== undefined && asked !== message.text && { asked }),
  };
}

/** The question in a queue entry; undefined when the entry cannot be read. */
export function readQueuedQuestion(value: unknown): QueuedQuestion | undefined {
  const parsed = queuedRecord.safeParse(value);
  if (!parsed.success) return undefined;
  const { question, message, ticket, receivedAt, language, asked } = parsed.data;
  return {
    id: question,
    // Commands never go through the queue, and only they ask who is an admin.
    message: { ...message, isAdmin: () => Promise.resolve(false) },
    ticket,
    receivedAt,
    language: language ?? "en",
    asked,
  };
}

/** The queued notice the receiving process posted, as the answering process takes it over. */
export interface ShownNotice {
  saved: unknown;
  text: string;
}

// A question taken this soon is answered without a "queued" notice first.
const NOTICE_DELAY_MS = 250;
// How long the answering process waits for the notice being posted (a post under a 429).
const NOTICE_WAIT_MS = 5_000;
const NOTICE_POLL_MS = 25;
const NOTICE_TTL_MS = 60 * 60 * 1000;

const noticeKey = (id: string) => `queue:notice:${id}`;
const noticeRefKey = (id: string) => `queue:notice-ref:${id}`;
const fateKey = (id: string) => `queue:fate:${id}`;

/**
 * Tells the asker of queued question `id` its place (`notice()` says it as of now: undefined
 * once the question left the line), unless a process took the question within
 * NOTICE_DELAY_MS. Whoever claims the notice first decides, this process or the one that took
 * the question: a notice is posted only while no answer began, and the answer then takes it
 * over (takeQueuedNotice). Never throws for the post itself. Returns the notice shown.
 */
export async function showQueuedNotice(
  deps: { store: KeyValueStore & Coordination; log: Logger },
  id: string,
  surface: ReplySurface,
  notice: () => Promise<{ place: number; text: string } | undefined>,
): Promise<{ ref: MessageRef; place: number } | undefined> {
  if (!surface.persistRef) return undefined;
  await sleep(NOTICE_DELAY_MS);
  const { store } = deps;
  if (!(await store.claim(noticeKey(id), "shown", NOTICE_TTL_MS))) return undefined;
  let shown: ShownNotice | null = null;
  try {
    const now = await notice();
    if (!now) return undefined;
    await surface.budgetFor?.("post")?.acquire({ urgent: true });
    const ref = await surface.send({
      call: "post",
      text: surface.renderer.note(now.text),
      final: false,
    });
    shown = { saved: surface.persistRef(ref), text: now.text };
    return { ref, place: now.place };
  } catch (error) {
    deps.log.warn({ err: error }, "could not show that a question is queued");
    return undefined;
  } finally {
    await store.set(noticeRefKey(id), shown, NOTICE_TTL_MS);
  }
}

/**
 * The queued notice the receiving process posted for question `id`, if it did: claims the
 * notice first, so none is posted once the answer begins here.
 */
export function takeQueuedNotice(
  store: KeyValueStore & Coordination,
  id: string,
): Promise<ShownNotice | undefined> {
  return waitForNoticeRef(store, id, "answered");
}

/**
 * The queued notice posted for question `id`, if one was: claims the notice as `by` first, so
 * none is posted from now on (its answer began, or it was withdrawn).
 */
export async function waitForNoticeRef(
  store: KeyValueStore & Coordination,
  id: string,
  by: "answered" | "withdrawn",
): Promise<ShownNotice | undefined> {
  if (await store.claim(noticeKey(id), by, NOTICE_TTL_MS)) return undefined;
  // Taken before by a process that died: it had claimed the notice, none was posted.
  if ((await store.get(noticeKey(id))) !== "shown") return undefined;
  const deadline = performance.now() + NOTICE_WAIT_MS;
  while (performance.now() < deadline) {
    const shown = await store.get<ShownNotice | null>(noticeRefKey(id));
    if (shown !== undefined) return shown ?? undefined;
    await sleep(NOTICE_POLL_MS);
  }
  return undefined;
}

/**
 * Decides queued question `id`'s fate, once for every process: its answer begins
 * ("answered") or its asker withdrew it ("withdrawn"). True for the call that decided.
 */
export function decideFate(
  store: Coordination,
  id: string,
  fate: "answered" | "withdrawn",
): Promise<boolean> {
  return store.claim(fateKey(id), fate, QUEUED_TICKET_MS);
}

/** The fate decided for each of `ids` (undefined: still open). */
export function fateOf(
  store: KeyValueStore,
  ids: readonly string[],
): Promise<(string | undefined)[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return store.getMany<string>(ids.map(fateKey));
}

/** What the first of `channels` that has it gives `pick` (a notice reopened, a surface). */
export function firstOf<T>(
  channels: readonly Channel[],
  pick: (c: Channel) => T | undefined,
): T | undefined {
  for (const channel of channels) {
    const found = pick(channel);
    if (found !== undefined) return found;
  }
  return undefined;
}
