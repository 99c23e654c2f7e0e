import { RateBudget } from "../../src/reply/call-budget.ts";

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
 * native streaming failed for good stops trying it.
 */
export class Workspace {
  readonly updates: RateBudget;
  readonly appends: RateBudget;
  /** Why native streaming is off here (a Slack error), once it is. */
  streamingOff: string | undefined;

  constructor(limits: WorkspaceLimits) {
    this.updates = budget(limits.updatesPerMinute, limits.burst);
    this.appends = budget(limits.appendsPerMinute, limits.burst);
  }
}

/**
 * A bucket that refills at 90% of Slack's rate and holds `burst` calls: no 60-second window
 * can then exceed the tier, whatever the burst.
 */
function budget(perMinute: number, burst: number): RateBudget {
  const rate = Math.max(1, perMinute * 0.9 - burst);
  return new RateBudget({ perMinute: rate, burst: Math.max(1, burst) });
}

export class Workspaces {
  readonly #limits: WorkspaceLimits;
  readonly #all = new Map<string, Workspace>();

  constructor(limits: WorkspaceLimits) {
    this.#limits = limits;
  }

  for(teamId: string): Workspace {
    let workspace = this.#all.get(teamId);
    if (!workspace) {
      workspace = new Workspace(this.#limits);
      this.#all.set(teamId, workspace);
    }
    return workspace;
  }
}
