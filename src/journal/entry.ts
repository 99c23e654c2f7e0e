import { z } from "zod";
import { CATALOG_LANGUAGES } from "../i18n/languages.ts";

/**
 * The journal's records in the store. The store cannot list keys, so everything a later
 * process must find hangs off one well-known key. A run is a process, named by its id, alive
 * while its presence is (process-presence.ts):
 *
 *   journal:runs               ids of the processes (runs) that may have answers in flight
 *   journal:runs:lock          a short claim that serializes changes to journal:runs
 *   journal:run:<run>          ids of the run's answers in flight (its index)
 *   journal:answer:<id>        one answer in flight: its channel and unfinished messages
 *   journal:recovering:<run>   claimed by the process that finishes a dead run's answers
 */
export const RUNS_KEY = "journal:runs";
export const RUNS_LOCK_KEY = "journal:runs:lock";
export const indexKey = (run: string) => `journal:run:${run}`;
export const entryKey = (answerId: string) => `journal:answer:${answerId}`;
export const recoveringKey = (run: string) => `journal:recovering:${run}`;

const journalEntry = z.object({
  /** The channel that posted the messages (Channel.name, IncomingMessage.channel). */
  channel: z.string(),
  /**
   * The answer's messages whose text was not final yet, oldest first: each with what the
   * surface's persistRef saved and the chatbot's Markdown it showed (close to it: the
   * journal is written every few seconds, not on every edit). "" for a placeholder.
   */
  messages: z.array(z.object({ ref: z.unknown(), markdown: z.string() })),
  /** The language of the answer's notes (none in an entry of an earlier version: English). */
  language: z.enum(CATALOG_LANGUAGES).optional(),
  /**
   * Where the question was asked (IncomingMessage.replyPlace), while it waits for its thread
   * with nothing on screen: a kill then leaves a note there, so it is never lost unsaid.
   */
  waitingIn: z.unknown().optional(),
});

/** One answer in flight, as the journal keeps it. */
export type JournalEntry = z.infer<typeof journalEntry>;

/** A stored entry, or undefined for a missing or unreadable one. */
export function readEntry(value: unknown): JournalEntry | undefined {
  const parsed = journalEntry.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** A stored list of ids; anything else reads as empty. */
export function readIds(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((id): id is string => typeof id === "string") : [];
}
