import type { Window } from "./flood-limits.ts";

/** Slack's minute, in which it counts a method's calls. */
export const SLACK_MINUTE_MS = 60_000;

/**
 * Slack's per-workspace limits as Slack documents them, for the fakes: "Your app's requests
 * to the Web API are evaluated per method, per workspace. Rate limit windows are per
 * minute." chat.update is Tier 3 ("50+ per minute … Sporadic bursts are welcome"),
 * chat.appendStream Tier 4 ("100+ per minute … including generous burst behavior"). So a
 * fake refuses the call past a tier's figure in any minute, and never a burst within it.
 * `minuteMs` shrinks Slack's minute for a test that runs Slack's time faster; the counts stay
 * Slack's. Written apart from the bot's limits (adapters/slack/limits.ts) on purpose, as
 * flood-limits.ts says. https://docs.slack.dev/apis/web-api/rate-limits#tiers
 */
export function slackTiers(minuteMs = SLACK_MINUTE_MS): Record<string, Window> {
  return {
    "chat.update": { limit: 50, windowMs: minuteMs },
    "chat.appendStream": { limit: 100, windowMs: minuteMs },
  };
}
