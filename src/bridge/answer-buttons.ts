import type { FeedbackVotes, Rating } from "../feedback/votes.ts";
import type { Metrics } from "../metrics.ts";
import type { Button, PressedButton } from "../ports.ts";
import type { AnswerStops } from "./answer-stops.ts";
import type { ButtonHandlers } from "./button-handlers.ts";
import {
  nothingToStop,
  stopLabel,
  stopRefused,
  voteThanks,
  voteTooLate,
} from "./stop-feedback-texts.ts";

const STOP = "answer.stop";
const VOTE = "answer.vote";

/** The Stop button under an answer that is being written. */
export function stopButton(answerId: string): Button {
  return { action: STOP, id: answerId, label: stopLabel(), style: "danger" };
}

/** 👍 and 👎 under a finished answer. */
export function voteButtons(answerId: string): Button[] {
  return [
    { action: VOTE, id: `up:${answerId}`, label: "👍", feedback: "positive" },
    { action: VOTE, id: `down:${answerId}`, label: "👎", feedback: "negative" },
  ];
}

/**
 * Registers what the answer buttons do: Stop stops the answer for its asker or an admin (and
 * tells anyone else privately); a vote is recorded (one per person and answer, the last one
 * counts) and thanked privately. The ids come back from the person's client, so each is only
 * a name that is looked up: an unknown one does nothing but say so.
 */
export function registerAnswerButtons(
  handlers: ButtonHandlers,
  deps: { stops: AnswerStops; votes: FeedbackVotes; metrics?: Metrics | undefined },
): void {
  handlers.on(STOP, async (pressed) => {
    const { person } = pressed;
    const outcome = await deps.stops.stopById(pressed.id, pressed.channelKey, {
      id: person.id,
      name: person.name,
      isAdmin: () => person.isAdmin(),
    });
    if (outcome === "refused") await pressed.replyPrivately(stopRefused());
    else if (outcome === "none") await pressed.replyPrivately(nothingToStop());
  });
  handlers.on(VOTE, (pressed) => vote(pressed, deps));
}

async function vote(
  pressed: PressedButton,
  deps: { votes: FeedbackVotes; metrics?: Metrics | undefined },
): Promise<void> {
  const match = /^(up|down):([A-Za-z0-9_-]{1,40})$/.exec(pressed.id);
  if (!match) return;
  const rating = match[1] as Rating;
  const answerId = match[2] as string;
  const outcome = await deps.votes.vote(answerId, pressed.channelKey, pressed.person.id, rating);
  if (outcome.kind === "unknown-answer") {
    await pressed.replyPrivately(voteTooLate());
    return;
  }
  if (outcome.previous !== rating) {
    deps.metrics?.feedbackVotes.inc({ platform: pressed.channel, rating });
  }
  await pressed.replyPrivately(voteThanks(rating, outcome.changed));
}
