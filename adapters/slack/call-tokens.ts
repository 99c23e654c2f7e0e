import type { Budget } from "../../src/coordination/call-budget.ts";
import type { Workspace } from "./workspace.ts";

/** Which of the workspace's budgets a Web API call draws on. */
export type CallKind = "update" | "append" | "other";

/**
 * The tokens one answer takes from its workspace's shared budgets. The reply engine asks for
 * a token before each send, with the freshest text still to come; the surface says which
 * call will most likely follow (`prepay`), and each call takes its token (`spend`): the one
 * prepaid when the guess was right, else one of its own, ahead of routine edits.
 */
export class CallTokens {
  readonly #workspace: Workspace;
  #prepaid: CallKind | undefined;

  constructor(workspace: Workspace) {
    this.#workspace = workspace;
  }

  async prepay(kind: CallKind, options: { urgent?: boolean; signal?: AbortSignal }): Promise<void> {
    await this.budgetFor(kind)?.acquire(options);
    this.#prepaid = kind;
  }

  async spend(kind: CallKind): Promise<void> {
    const prepaid = this.#prepaid;
    this.#prepaid = undefined;
    if (prepaid === kind) return;
    await this.budgetFor(kind)?.acquire({ urgent: true });
  }

  budgetFor(kind: CallKind): Budget | undefined {
    if (kind === "update") return this.#workspace.updates;
    if (kind === "append") return this.#workspace.appends;
    return undefined;
  }
}
