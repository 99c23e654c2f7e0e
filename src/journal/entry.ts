import { z } from "zod";
import { CATALOG_LANGUAGES } from "../i18n/languages.ts";

/**
 * The journal's records in the store. The store cannot list keys, so everything a later
 * process must find hangs off one well-known key. A run is a process, named by its id, alive
 * while ProcessPresence.alive says so:
 *
 *   journal:runs               the set of processes (runs) that may have answers in flight
 *   journal:run:<run>          the run's answers in flight: a map, one field per answer
 *   journal:recovering:<run>   claimed by the process that finishes a dead run's answers
 */
export const RUNS_KEY = "journal:runs";
/** Where a run says it was listed in RUNS_KEY (its id), so that a process alone reads the set. */
export const RUN_LISTED_TOPIC = "journal:run-listed";
export const runKey = (run: string) => `journal:run:${run}`;
export const recoveringKey = (run: string) => `journal:recovering:${run}`;

/** A button under a message (ports.ts Button), as a record keeps it. */
const button = z.object({
  action: z.string(),
  id: z.string(),
  label: z.string(),
  style: z.enum(["primary", "danger"]).optional(),
  stops: z.literal(true).optional(),
  feedback: z.enum(["positive", "negative"]).optional(),
});

const journalEntry = z.object({
  /** The channel that posted the messages (Channel.name, IncomingMessage.channel). */
  channel: z.string(),
  /**
   * The answer's messages whose text was not final yet, oldest first: each with what the
   * surface's persistRef saved and the chatbot's Markdown it showed (written at the pace of
   * the edits: what a message showed one edit before is there). "" for a placeholder.
   */
  messages: z.array(
    z.object({
      ref: z.unknown(),
      markdown: z.string(),
      /**
       * Its final text was on its way (FinishingMessage): its end note and buttons. A restart
       * shows it as final with these, not with the interrupted note.
       */
      end: z
        .object({ note: z.string().optional(), buttons: z.array(button).optional() })
        .optional(),
    }),
  ),
  /** The language of the answer's notes (none in an entry of an earlier version: English). */
  language: z.enum(CATALOG_LANGUAGES).optional(),
  /** The question's thread (IncomingMessage.threadKey): a stop there finds it. */
  thread: z.string().optional(),
  /** The answer's id in its Stop button (RunningAnswer.id), and its channel: a press finds it. */
  answer: z.string().optional(),
  channelKey: z.string().optional(),
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
