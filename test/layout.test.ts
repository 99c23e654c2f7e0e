import { readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ADAPTERS = resolve(import.meta.dirname, "../adapters");

/** What every channel has, so a new one copies a shape (README, "Layout"). */
const SHAPE = ["index.ts", "to-incoming.ts", "surface.ts", "render.ts", "limits.ts"];

async function adapters(): Promise<string[]> {
  const entries = await readdir(ADAPTERS, { withFileTypes: true });
  return entries.filter((e) => e.isDirectory()).map((e) => e.name);
}

describe("the adapters' shape", () => {
  it("gives every adapter index.ts, to-incoming.ts, surface.ts, render.ts and limits.ts", async () => {
    const missing: string[] = [];
    for (const adapter of await adapters()) {
      const files = new Set(await readdir(join(ADAPTERS, adapter)));
      for (const file of SHAPE) if (!files.has(file)) missing.push(`adapters/${adapter}/${file}`);
    }
    expect(missing).toEqual([]);
  });

  it("has every index.ts create its channel (create…Channel), the console's too", async () => {
    const without: string[] = [];
    for (const adapter of await adapters()) {
      const index = await readFile(join(ADAPTERS, adapter, "index.ts"), "utf8");
      if (!/^export function create\w+Channel\(/m.test(index)) without.push(adapter);
    }
    expect(without).toEqual([]);
  });
});
