import { setTimeout as sleep } from "node:timers/promises";
import { stopNote } from "../coordination/answer-stops.ts";
import {
  AbortedError,
  MessageGoneError,
  NotStartedError,
  RateLimitedError,
  userTextOf,
} from "../errors.ts";
import { type Translator, translator } from "../i18n/translator.ts";
import type { Logger } from "../log.ts";
import type {
  Channel,
  MessageRef,
  Renderer,
  ReopenedMessage,
  ReplySurface,
  SendRequest,
} from "../ports.ts";
import { sendNotice } from "../reply/notice.ts";
import { newMessage, renderSource } from "../reply/outgoing-message.ts";
import { splitToFit } from "../reply/split.ts";
import type { JournalEntry } from "./entry.ts";

/** The notes a finished answer ends with: under its text, and in a message that had none. */
interface EndNotes {
  /** Under text: "⚠️ answer cut off: interrupted". */
  cut: string;
  /** In a message that had none: "⚠️ interrupted". */
  bare: string;
}

/** The notes a drain leaves (see endFor in answer-question.ts): a kill reads the same. */
function interruptedNotes(t: Translator): EndNotes {
  const interrupted = new AbortedError().userText ?? { key: "errorInterrupted" };
  return {
    cut: t.t("failed", { reason: { key: "answerCut", values: { reason: interrupted } } }),
    bare: t.t("failed", { reason: interrupted }),
  };
}

/**
 * How an answer ends that a person stopped (see answerQuestion): "⏹ stopped by Ann", or "⏹
 * paused: Ann from Sales took over" for a hand-over.
 */
function stoppedNotes(t: Translator, name: string | undefined, tookOver: boolean): EndNotes {
  const note = stopNote(t, { name, tookOver });
  return { cut: note, bare: note };
}

/** Why the answer is finished by a process other than its own. */
export type FinishReason =
  | { kind: "interrupted" }
  | { kind: "stopped"; by: string | undefined; tookOver?: boolean };
const RATE_LIMIT_ATTEMPTS = 4;
const MAX_RETRY_WAIT_MS = 30_000;

/** The channels a recovery can finish answers on: those that can reopen a saved message. */
export type RecoveryChannel = Pick<Channel, "name" | "reopen" | "surfaceFor">;

/**
 * Finishes one answer a dead process left in flight: every message that was not final yet
 * shows the text last journaled and the cut note, as a drain would have left it (a Telegram
 * draft is sent as a message; a Slack stream is stopped and its text set), or, for an answer
 * a person stopped, the stopped note. A message that cannot be edited gets the note in a
 * message below it; one a person deleted is left alone. Never throws: what fails is logged,
 * and the record is done with either way.
 */
export async function finishInterrupted(
  entry: JournalEntry,
  channels: readonly RecoveryChannel[],
  log: Logger,
  reason: FinishReason = { kind: "interrupted" },
): Promise<void> {
  const channel = channels.find((c) => c.name === entry.channel);
  if (!channel?.reopen) {
    log.warn(
      { channel: entry.channel },
      "an interrupted answer cannot be finished: its channel is not running",
    );
    return;
  }
  const t = translator(entry.language ?? "en");
  if (entry.waitingIn !== undefined && entry.messages.length === 0) {
    await tellNotAnswered(channel, entry.waitingIn, t, log);
    return;
  }
  const notes =
    reason.kind === "stopped"
      ? stoppedNotes(t, reason.by, reason.tookOver === true)
      : interruptedNotes(t);
  for (const saved of entry.messages) {
    let reopened: ReopenedMessage | undefined;
    try {
      reopened = channel.reopen(saved.ref);
    } catch (error) {
      log.warn({ err: error, channel: channel.name }, "an interrupted message could not be read");
    }
    if (reopened) await finishMessage(reopened, saved, notes, log);
  }
}

/**
 * A question that waited for its thread with nothing on screen when its process died: its
 * asker is told to ask again, as a drain tells the questions it did not begin.
 */
async function tellNotAnswered(
  channel: RecoveryChannel,
  replyPlace: unknown,
  t: Translator,
  log: Logger,
): Promise<void> {
  try {
    const surface = channel.surfaceFor?.(replyPlace);
    if (!surface) return;
    await sendNotice(surface, t.t("failed", { reason: userTextOf(new NotStartedError()) }));
  } catch (error) {
    log.warn({ err: error }, "a question a dead process left unanswered could not be told so");
  }
}

async function finishMessage(
  { surface, ref, streaming }: ReopenedMessage,
  { markdown, end }: JournalEntry["messages"][number],
  notes: EndNotes,
  log: Logger,
): Promise<void> {
  // A live stream keeps all it was sent: it ends with the note appended, nothing taken back.
  if (ref !== undefined && streaming && !end) {
    const tail = surface.renderer.stream?.().text({ markdown: "", note: notes.cut }, true);
    if (tail !== undefined) return endStream(surface, ref, tail, notes.cut, log);
  }
  // Its final text was on its way: it may show already, and is shown again as it ended.
  const { text, note } = end
    ? { text: finalText(surface.renderer, markdown, end.note), note: undefined }
    : cutMessage(surface, markdown, notes);
  let current = ref;
  // A stream cannot be taken over by appending, and a platform refuses edits of a live one.
  if (current !== undefined && streaming) {
    const live = current;
    current = await surface.send({ call: "stop", ref: live }).catch(() => live);
  }
  const buttons = end?.buttons && { buttons: end.buttons };
  const request: SendRequest =
    current === undefined
      ? { call: "post", text, final: true, ...buttons }
      : { call: "edit", ref: current, text, final: true, ...buttons };
  const failure = await sendUrgently(surface, request);
  if (failure === undefined) return;
  if (note === undefined) {
    log.warn({ err: failure }, "a finished answer's last text could not be shown again");
    return;
  }
  log.warn({ err: failure }, "an interrupted message could not be edited; noting it below");
  await noteBelow(surface, note, log);
}

/** The note in a message of its own, below an answer that cannot take it. */
async function noteBelow(surface: ReplySurface, note: string, log: Logger): Promise<void> {
  await surface
    .notice(surface.renderer.note(note))
    .catch((error: unknown) => log.warn({ err: error }, "an interrupted answer stays unfinished"));
}

/**
 * Ends a live stream with `tail` (the note) appended. A stream the platform no longer takes
 * (it ended it itself) keeps what it showed: the note goes below it, as a message.
 */
async function endStream(
  surface: ReplySurface,
  ref: MessageRef,
  tail: string,
  note: string,
  log: Logger,
): Promise<void> {
  const failure = await sendUrgently(surface, { call: "end", ref, text: `\n\n${tail}` });
  if (failure === undefined) return;
  log.warn({ err: failure }, "an interrupted stream could not be ended; noting it below");
  await noteBelow(surface, note, log);
}

/**
 * Sends `request` ahead of routine calls, waiting out a few rate limits: undefined once it is
 * shown (or its message was deleted by a person: nobody waits on it), else why not.
 */
async function sendUrgently(surface: ReplySurface, request: SendRequest): Promise<unknown> {
  const budget = surface.budgetFor?.(request.call);
  for (let attempt = 1; ; attempt++) {
    try {
      await budget?.acquire({ urgent: true });
      await surface.send(request);
      return undefined;
    } catch (error) {
      if (error instanceof RateLimitedError && attempt < RATE_LIMIT_ATTEMPTS) {
        budget?.pause?.(error.retryAfterMs);
        await sleep(Math.min(error.retryAfterMs, MAX_RETRY_WAIT_MS));
        continue;
      }
      return error instanceof MessageGoneError ? undefined : error;
    }
  }
}

/** A message's text as the reply engine lays out its final showing (renderSource). */
function finalText(renderer: Renderer, markdown: string, note: string | undefined): string {
  const source = { markdown, note };
  return renderSource(renderer, newMessage(), { mode: "replace", source, final: true });
}

/**
 * The last state of an interrupted message: its text and the cut note, as the reply engine
 * lays out a final message (the text cut shorter when the note would not fit), or the note
 * alone for a message that showed no text yet (a placeholder).
 */
function cutMessage(
  surface: Pick<ReplySurface, "renderer" | "limits">,
  markdown: string,
  notes: EndNotes,
): { text: string; note: string } {
  const { renderer, limits } = surface;
  if (!markdown.trim()) return { text: renderer.note(notes.bare), note: notes.bare };
  const suffix = `\n\n${renderer.note(notes.cut)}`;
  const fits = (head: string) =>
    renderer.measure(renderer.render(head) + suffix) <= limits.maxMessageLength;
  const head = splitToFit(markdown, fits)?.head ?? markdown;
  return { text: renderer.render(head) + suffix, note: notes.cut };
}
