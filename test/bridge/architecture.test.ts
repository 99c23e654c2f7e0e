import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { QUESTION_STATES } from "../../src/bridge/question-life.ts";

const ROOT = resolve(import.meta.dirname, "../..");

/** The states the question's state diagram in docs/architecture.md names, and its transitions. */
async function diagram(): Promise<{ states: string[]; transitions: [string, string][] }> {
  const doc = await readFile(resolve(ROOT, "docs/architecture.md"), "utf8");
  const block = /```mermaid\nstateDiagram-v2\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";
  const names = new Map<string, string>();
  for (const [, name, alias] of block.matchAll(/^\s*state "([^"]+)" as (\w+)$/gm)) {
    names.set(alias ?? "", name ?? "");
  }
  const transitions: [string, string][] = [];
  for (const [, from, to] of block.matchAll(/^\s*(\w+) --> (\w+)/gm)) {
    transitions.push([names.get(from ?? "") ?? "", names.get(to ?? "") ?? ""]);
  }
  return { states: [...names.values()], transitions };
}

describe("docs/architecture.md draws the question's life as the code runs it", () => {
  it("names exactly the states question-life.ts declares", async () => {
    const { states } = await diagram();
    expect(states.sort()).toEqual([...QUESTION_STATES].sort());
  });

  it("has every state it names entered somewhere in question-life.ts", async () => {
    const code = await readFile(resolve(ROOT, "src/bridge/question-life.ts"), "utf8");
    const entered = new Set(
      [...code.matchAll(/#(?:to|end)\("([^"]+)"|return "([^"]+)"|(\w+): "([^"]+)",/g)].map(
        (m) => m[1] ?? m[2] ?? m[4],
      ),
    );
    // "received" is where every life starts: it is the initial value, not a change.
    const unreached = QUESTION_STATES.filter((s) => s !== "received" && !entered.has(s));
    expect(unreached).toEqual([]);
  });

  it("draws only transitions between states it names", async () => {
    const { transitions } = await diagram();
    expect(transitions.length).toBeGreaterThan(10);
    expect(transitions.filter(([from, to]) => !from || !to)).toEqual([]);
  });
});
