import type { AnswerStops, StopOutcome } from "../coordination/answer-stops.ts";
import type { FeedbackVotes, Rating } from "../feedback/votes.ts";
import type { ChannelLanguages } from "../i18n/channel-language.ts";
import type { Translator } from "../i18n/translator.ts";
import type { Metrics } from "../metrics.ts";
import type { Button, PressedButton } from "../ports.ts";
import { type ButtonHandlers, presserLanguage, toldOnFailure } from "./button-handlers.ts";

const STOP = "answer.stop";
const VOTE = "answer.vote";

/** The Stop button under an answer that is being written. */
export function stopButton(answerId: string, t: Translator): Button {
  return { action: STOP, id: answerId, label: t.t("stopButton"), style: "danger", stops: true };
}

/**
 * What the presser of a Stop (this button, or a platform's own stop control) is told privately
 * when the answer did not stop: a stop that went through says so in the answer itself.
 */
export function stopReply(outcome: Exclude<StopOutcome, "stopped">, t: Translator): string {
  return t.t(outcome === "refused" ? "stopRefused" : "nothingToStop");
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
 * a name that is looked up: an unknown one does nothing but say so. Private replies speak the
 * channel's language, else the presser's.
 */
export function registerAnswerButtons(
  handlers: ButtonHandlers,
  deps: {
    stops: AnswerStops;
    votes: FeedbackVotes;
    languages: ChannelLanguages;
    metrics?: Metrics | undefined;
  },
): void {
  const told = toldOnFailure(deps.languages);
  handlers.on(
    STOP,
    told(async (pressed) => {
      const { person } = pressed;
      const outcome = await deps.stops.stopById(pressed.id, pressed.channelKey, {
        id: person.id,
        name: person.name,
        isAdmin: () => person.isAdmin(),
      });
      if (outcome === "stopped") return;
      const t = await presserLanguage(pressed, deps.languages);
      await pressed.replyPrivately(stopReply(outcome, t));
    }),
  );
  handlers.on(
    VOTE,
    told((pressed) => vote(pressed, deps)),
  );
}

async function vote(
  pressed: PressedButton,
  deps: { votes: FeedbackVotes; languages: ChannelLanguages; metrics?: Metrics | undefined },
): Promise<void> {
  const match = /^(up|down):([A-Za-z0-9_-]{1,40})$/.exec(pressed.id);
  if (!match) return;
  const rating = match[1] as Rating;
  const answerId = match[2] as string;
  const outcome = await deps.votes.vote(answerId, pressed.channelKey, pressed.person.id, rating);
  const t = await presserLanguage(pressed, deps.languages);
  if (outcome.kind === "unknown-answer") {
    await pressed.replyPrivately(t.t("voteTooLate"));
    return;
  }
  if (outcome.previous !== rating) {
    deps.metrics?.feedbackVotes.inc({ platform: pressed.channel, rating });
  }
  const mark = rating === "up" ? "👍" : "👎";
  await pressed.replyPrivately(t.t(outcome.changed ? "voteChanged" : "voteThanks", { mark }), {
    brief: true,
  });
}
