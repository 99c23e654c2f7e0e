/**
 * The bot's own words about claiming a lead, in one place so they can join the message
 * catalog. `name` is a person's name as the platform gave it: the caller's renderer escapes
 * the whole text for its platform.
 */

export const claimButtonLabel = (): string => "I'll take it";

export const releaseButtonLabel = (): string => "Release";

/** The line an announcement shows once the lead is taken. */
export const claimedBy = (name: string, time: string): string => `Claimed by ${name} at ${time}`;

/** To a later presser, privately. */
export const alreadyClaimed = (name: string, time: string): string =>
  `${name} already took this lead, at ${time}.`;

/** To the claimer, pressing a stale "I'll take it" again. */
export const youHaveIt = (): string => "You already have this lead.";

/** To anyone but the claimer who presses Release. */
export const onlyClaimerReleases = (name: string): string =>
  `Only ${name}, who took this lead, can release it.`;

/** Release pressed on a lead nobody holds (released meanwhile). */
export const notClaimed = (): string => "Nobody has this lead right now.";

/** A press the bot cannot match to a lead announced here (too old, or not a lead card). */
export const claimUnavailable = (): string => "This lead can no longer be claimed here.";

/** Two presses crossed (a release and a claim): nothing changed, the person may press again. */
export const claimTryAgain = (): string => "The lead just changed hands: please try again.";

/** A lead's claim in `/leads`. */
export const listedClaim = (name: string, time: string): string => `claimed by ${name} (${time})`;
