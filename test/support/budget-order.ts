import type { Budget } from "../../src/reply/call-budget.ts";

/**
 * Empties `budget`, then asks for two routine edits and an urgent final text at once:
 * the order in which the budget let them go.
 */
export async function serviceOrder(budget: Budget): Promise<string[]> {
  await budget.acquire();
  const order: string[] = [];
  await Promise.all([
    budget.acquire().then(() => order.push("edit 1")),
    budget.acquire().then(() => order.push("edit 2")),
    budget.acquire({ urgent: true }).then(() => order.push("final")),
  ]);
  return order;
}
