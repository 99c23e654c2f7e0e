/**
 * Answers like the measured ones (paced, 100 chunks) that a process streams before its
 * figures are taken, so that V8 has compiled what an answer runs (pacing, stream appends,
 * edits, the journal's updates): the figures are a running process's, not its first
 * minutes'. A function run a few times per answer is compiled only after hundreds of
 * answers: in the whole bot at 100 concurrent answers, V8 compiled 97 functions for the first
 * time within the measured window after 200 such answers (`--trace-opt`), and its compiler
 * threads took 14 % of the bot's CPU there (Linux perf); after 1,000, 52 functions and 5 %.
 */
export const WARM_UP_ANSWERS = 1_000;

/** Rounds of `concurrency` paced answers at once that make WARM_UP_ANSWERS, two at least. */
export function warmUpRounds(concurrency: number): number {
  return Math.max(2, Math.ceil(WARM_UP_ANSWERS / concurrency));
}
