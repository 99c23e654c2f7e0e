import type { Budget } from "../../src/coordination/call-budget.ts";
import { PerKey } from "../../src/coordination/per-key.ts";
import type { Coordination } from "../../src/coordination/port.ts";
import { createRateBudget, type SharedAt } from "../../src/coordination/shared-budget.ts";
import type { Logger } from "../../src/log.ts";
import { SESSIONS_REFUSED_FOR_GOOD } from "./agent-session.ts";
import { StatusGate } from "./status-gate.ts";

/** One of Slack's tiers as a workspace budget keeps it. */
export interface TierLimit {
  /** Calls Slack allows in one rate window. */
  perWindow: number;
  /** Calls that may go at once after a quiet spell. */
  burst: number;
}

export interface WorkspaceLimits {
  /** Slack's chat.update allowance for the workspace (Tier 3). */
  updates: TierLimit;
  /** Slack's chat.appendStream allowance for the workspace (Tier 4). */
  appends: TierLimit;
  /** The window Slack counts calls in: a minute (RATE_WINDOW_MS); tests shorten it. */
  windowMs: number;
}

/**
 * What every answer in one workspace shares: Slack counts a method's calls per workspace,
 * so all answers streaming there draw on one chat.update budget and one chat.appendStream
 * budget (urgent first and final texts go ahead of routine edits), and a workspace where
 * native streaming failed for good stops trying it, as one where the loading status or agent
 * sessions were refused for good stops asking for them. On Redis the budgets are shared by
 * every process serving the workspace.
 */
export class Workspace {
  readonly updates: Budget;
  readonly appends: Budget;
  /** Why native streaming is off here (a Slack error), once it is. */
  streamingOff: string | undefined;
  /** Whether the loading status may be asked for here. */
  readonly status: StatusGate;
  /** Whether answers' agent sessions may be set here (the app is an agent). */
  readonly sessions: StatusGate;

  constructor(teamId: string, limits: WorkspaceLimits, store: Coordination, log?: Logger) {
    this.status = new StatusGate("assistant.threads.setStatus", (reason) =>
      log?.warn(
        { reason },
        "Slack refused the loading status in this workspace: answers show no 'is thinking…' (add the assistant:write scope, or reinstall from the current manifest)",
      ),
    );
    this.sessions = new StatusGate(
      "agents.sessions.setStatus",
      (reason) =>
        log?.info(
          { reason },
          "Slack refused agent sessions in this workspace: answers show no Stop of Slack's own; ⏹ Stop and `@bot stop` work as before (reinstall from the current manifest, whose agent_view declares the app an agent)",
        ),
      SESSIONS_REFUSED_FOR_GOOD,
    );
    this.updates = budget(limits.updates, limits.windowMs, {
      store,
      key: `budget:slack:${teamId}:chat.update`,
    });
    this.appends = budget(limits.appends, limits.windowMs, {
      store,
      key: `budget:slack:${teamId}:chat.appendStream`,
    });
  }
}

/**
 * A bucket that holds the tier's burst and refills at 90% of the tier's rate less the burst:
 * no window of Slack's can then hold more than 90% of the tier, however the calls fall, and
 * what a window allows beyond the burst is spent evenly, with no stall. A burst takes at most
 * a third of that 90%, so a tier set lower than Slack's (SLACK_APPENDS_PER_MINUTE) still
 * paces most of its calls. The same bucket in the store when processes share it.
 */
function budget(tier: TierLimit, windowMs: number, shared: SharedAt): Budget {
  const spent = tier.perWindow * 0.9;
  const burst = Math.max(1, Math.min(tier.burst, Math.floor(spent / 3)));
  const perWindow = Math.max(1, spent - burst);
  return createRateBudget({ perMinute: (perWindow * 60_000) / windowMs, burst }, shared);
}

/**
 * The workspaces met so far. One stays once made: it keeps whether streaming and the loading
 * status work there, which a workspace made anew would have to learn again.
 */
export class Workspaces extends PerKey<Workspace> {
  constructor(limits: WorkspaceLimits, store: Coordination, log?: Logger) {
    super((teamId) => new Workspace(teamId, limits, store, log));
  }
}
