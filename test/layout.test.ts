import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ADAPTERS = resolve(import.meta.dirname, "../adapters");
const ROOT = resolve(import.meta.dirname, "..");

/** What every channel has, so a new one copies a shape (docs/architecture.md, "Layout"). */
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

/** The project's own modules that `file` imports (types included), as paths from the root. */
async function importsOf(file: string): Promise<string[]> {
  const text = await readFile(join(ROOT, file), "utf8");
  const specifiers = [
    ...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g),
  ];
  return specifiers.map((m) => relative(ROOT, resolve(ROOT, dirname(file), m[1] ?? "")));
}

/** Each import of a module in folder `to` by a module in folder `from`: "importer → imported". */
async function importsBetween(from: string, to: string): Promise<string[]> {
  const files = await readdir(join(ROOT, from), { recursive: true });
  const found: string[] = [];
  for (const file of files.filter((f) => f.endsWith(".ts")).map((f) => join(from, f))) {
    for (const imported of await importsOf(file)) {
      if (imported.startsWith(`${to}/`)) found.push(`${file} → ${imported}`);
    }
  }
  return found;
}

describe("the store and coordination", () => {
  it("depend one way only: the stores implement coordination's port, and coordination needs no store module", async () => {
    const storeOnCoordination = await importsBetween("src/store", "src/coordination");
    const coordinationOnStore = await importsBetween("src/coordination", "src/store");
    // Each way alone is a layering; both ways at once is the cycle issue 26 took apart.
    const cycle =
      storeOnCoordination.length > 0 && coordinationOnStore.length > 0
        ? { storeOnCoordination, coordinationOnStore }
        : undefined;
    expect(cycle).toBeUndefined();
    // The walk reads imports at all: the key-value port's file names the coordination port.
    expect(storeOnCoordination).toContain("src/store/types.ts → src/coordination/port.ts");
  });
});
