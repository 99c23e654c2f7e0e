import type { Rating } from "../feedback/votes.ts";

/**
 * Every text a person sees from stopping an answer and rating one, in one place, so the
 * message catalog (issue 15) can take them over whole. Names are people's own display names:
 * the surface renders these as plain notes, which escapes them for the platform.
 */

/** The last line of a stopped answer. */
export function stoppedNote(name: string | undefined): string {
  return name ? `⏹ stopped by ${name}` : "⏹ stopped";
}

/** `/stop` where no answer is being written. */
export function nothingToStop(): string {
  return "Nothing to stop: no answer is being written in this thread.";
}

/** `/stop` with words after it. */
export function stopUsage(): string {
  return "expected `/stop`";
}

/** Someone else's Stop, said only to them. */
export function stopRefused(): string {
  return "Only the person who asked or an admin of this channel can stop this answer.";
}

/** The Stop button's label. */
export function stopLabel(): string {
  return "⏹ Stop";
}

/** A vote taken (or changed), said only to the voter. */
export function voteThanks(rating: Rating, changed: boolean): string {
  const mark = rating === "up" ? "👍" : "👎";
  return changed ? `Your vote is now ${mark}. Thanks!` : `Thanks for your ${mark}!`;
}

/** A vote on an answer the bot no longer knows (older than the records it keeps). */
export function voteTooLate(): string {
  return "This answer is too old to rate.";
}

/** `/feedback` asked by someone who is not an admin here. */
export function feedbackAdminsOnly(): string {
  return "Only an admin of this channel can see the feedback.";
}

/** `/feedback` with arguments it cannot read. */
export function feedbackUsage(maxDays: number): string {
  return `expected \`/feedback\` or \`/feedback <days>\` (1 to ${maxDays})`;
}

/** What `/feedback [days]` shows. `all`: every channel's votes (an admin's DM). */
export function feedbackSummary(counts: {
  up: number;
  down: number;
  days: number;
  all: boolean;
}): string {
  const where = counts.all ? "in all channels" : "in this channel";
  const period = counts.days === 1 ? "the last day" : `the last ${counts.days} days`;
  const total = counts.up + counts.down;
  if (total === 0) return `No votes on answers ${where} in ${period}.`;
  const share = Math.round((counts.up / total) * 100);
  return `Votes on answers ${where} in ${period}: 👍 ${counts.up} · 👎 ${counts.down} (${share}% 👍)`;
}
