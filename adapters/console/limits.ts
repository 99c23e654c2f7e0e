/**
 * The terminal's numbers. A terminal sets no limits of its own: each number here is ours,
 * with why.
 */

/** Longest message: a terminal prints any length, so an answer is never split. */
export const MAX_MESSAGE_LENGTH = Number.POSITIVE_INFINITY;

/**
 * Shortest time between two redraws of an answer on a terminal. A terminal has no rate
 * limit, but each update parses the whole answer again (about 20 ms for 10,000 characters):
 * ten a second read as smooth text and leave the CPU mostly idle.
 */
export const STYLED_EDIT_INTERVAL_MS = 100;

/** Piped output is only ever added to (nothing is redrawn): each piece goes as it comes. */
export const PIPED_EDIT_INTERVAL_MS = 0;
