import { setTimeout as sleep } from "node:timers/promises";

/**
 * Runs `count` slots at once, each started `rampMs / count` after the one before, so that a
 * load's answers do not move in lockstep; resolves once every slot has.
 */
export async function rampSlots(
  count: number,
  rampMs: number,
  slot: (index: number) => Promise<void>,
): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      await sleep((index * rampMs) / count);
      await slot(index);
    }),
  );
}
