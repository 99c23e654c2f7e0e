import type { NoticeOptions, ReplySurface } from "../ports.ts";
import { splitToFit } from "./split.ts";

/**
 * Shows a note of the bot's own (a command reply, a refusal, a system message) apart from
 * any answer: rendered as plain text, split below the platform's length limit (a long
 * `/leads` list). Pacing notices is the surface's own job, as for any post.
 */
export async function sendNotice(
  surface: ReplySurface,
  text: string,
  options: NoticeOptions = {},
): Promise<void> {
  const { renderer, limits } = surface;
  const fits = (part: string) => renderer.measure(renderer.note(part)) <= limits.maxMessageLength;
  let rest = text;
  for (;;) {
    const split = splitToFit(rest, fits);
    const part = split ? split.head : rest;
    await surface.notice(renderer.note(part.trim()), options);
    if (!split) return;
    rest = split.tail;
  }
}
