import type { Budget } from "../../src/coordination/call-budget.ts";
import { PerKey } from "../../src/coordination/per-key.ts";
import { createRateBudget } from "../../src/coordination/shared-budget.ts";
import type { Logger } from "../../src/log.ts";
import type { KeyValueStore } from "../../src/store/types.ts";
import { StatusGate } from "./status-gate.ts";

export interface WorkspaceLimits {
  /** Slack's chat.update allowance for the workspace (Tier 3). */
  updatesPerMinute: number;
  /** Slack's chat.appendStream allowance for the workspace (Tier 4). */
  appendsPerMinute: number;
  /** Calls that may go at once after a quiet spell. */
  burst: number;
}

/**
 * What every answer in one workspace shares: Slack counts a method's calls per workspace,
 * so all answers streaming there draw on one chat.update budget and one chat.appendStream
 * budget (urgent first and final texts go ahead of routine edits), and a workspace where
 * native streaming failed for good stops trying it. On Redis the budgets are shared by every
 * process serving the workspace.
 */
export class Workspace {
  readonly updates: Budget;
  readonly appends: Budget;
  /** Why native streaming is off here (a Slack error), once it is. */
  streamingOff: string | undefined;
  /** Whether the loading status may be asked for here. */
  readonly status: StatusGate;

  constructor(teamId: string, limits: WorkspaceLimits, store: KeyValueStore, log?: Logger) {
    this.status = new StatusGate((reason) =>
      log?.warn(
        { reason },
        "Slack refused the loading status in this workspace: answers show no 'is thinking…' (add the assistant:write scope, or reinstall from the current manifest)",
      ),
    );
    this.updates = budget(limits.updatesPerMinute, limits.burst, {
      store,
      key: `budget:slack:${teamId}:chat.update`,
    });
    this.appends = budget(limits.appendsPerMinute, limits.burst, {
      store,
      key: `budget:slack:${teamId}:chat.appendStream`,
    });
  }
}

/**
 * A bucket that refills at 90% of Slack's rate and holds `burst` calls: no 60-second window
 * can then exceed the tier, whatever the burst.
 */
function budget(
  perMinute: number,
  burst: number,
  shared: { store: KeyValueStore; key: string },
): Budget {
  const rate = Math.max(1, perMinute * 0.9 - burst);
  return createRateBudget({ perMinute: rate, burst: Math.max(1, burst) }, shared);
}

/**
 * The workspaces met so far. One stays once made: it keeps whether streaming and the loading
 * status work there, which a workspace made anew would have to learn again.
 */
export class Workspaces extends PerKey<Workspace> {
  constructor(limits: WorkspaceLimits, store: KeyValueStore, log?: Logger) {
    super((teamId) => new Workspace(teamId, limits, store, log));
  }
}
