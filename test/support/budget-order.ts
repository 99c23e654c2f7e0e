import type { Budget } from "../../src/coordination/call-budget.ts";

/**
 * Empties `budget`, then asks at once for two routine edits, an urgent final text and an
 * answer's first text: the order in which the budget let them go.
 */
export async function serviceOrder(budget: Budget): Promise<string[]> {
  await budget.acquire();
  const order: string[] = [];
  await Promise.all([
    budget.acquire().then(() => order.push("edit 1")),
    budget.acquire().then(() => order.push("edit 2")),
    budget.acquire({ urgent: true }).then(() => order.push("final")),
    budget.acquire({ first: true, urgent: true }).then(() => order.push("first text")),
  ]);
  return order;
}
