import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  END_STATES,
  FIRST_STATES,
  type Life,
  move,
  NEXT,
  QUESTION_STATES,
} from "../../src/bridge/question-life.ts";

const ROOT = resolve(import.meta.dirname, "../..");

/** The states the question's state diagram in docs/architecture.md names, and its edges. */
async function diagram(): Promise<{ states: string[]; edges: string[] }> {
  const doc = await readFile(resolve(ROOT, "docs/architecture.md"), "utf8");
  const block = /```mermaid\nstateDiagram-v2\n([\s\S]*?)```/.exec(doc)?.[1] ?? "";
  const names = new Map<string, string>([["[*]", "[*]"]]);
  for (const [, name, alias] of block.matchAll(/^\s*state "([^"]+)" as (\w+)$/gm)) {
    names.set(alias ?? "", name ?? "");
  }
  const edges: string[] = [];
  for (const [, from, to] of block.matchAll(/^\s*(\w+|\[\*\]) --> (\w+|\[\*\])/gm)) {
    edges.push(`${names.get(from ?? "") ?? from} -> ${names.get(to ?? "") ?? to}`);
  }
  return { states: [...names.values()].filter((s) => s !== "[*]"), edges };
}

/** NEXT's edges, with where a life begins and where it ends. */
function codeEdges(): string[] {
  return [
    ...FIRST_STATES.map((state) => `[*] -> ${state}`),
    ...QUESTION_STATES.flatMap((from) => NEXT[from].map((to) => `${from} -> ${to}`)),
    ...END_STATES.map((state) => `${state} -> [*]`),
  ];
}

describe("docs/architecture.md draws the question's life as the code runs it", () => {
  it("names exactly the states question-life.ts declares", async () => {
    const { states } = await diagram();
    expect(states.sort()).toEqual([...QUESTION_STATES].sort());
  });

  it("draws NEXT's edge table, edge for edge", async () => {
    const { edges } = await diagram();
    expect(edges.sort()).toEqual(codeEdges().sort());
  });

  it("has the code enter each state it names only along NEXT", async () => {
    const code = await readFile(resolve(ROOT, "src/bridge/question-life.ts"), "utf8");
    const entered = new Set(
      // A move to a state by name, or an answer's end as END_OF maps it.
      [...code.matchAll(/#to\(\{\s*at: "([^"]+)"|#end\("([^"]+)"|^\s+\w+: "([^"]+)",$/gm)].map(
        (m) => m[1] ?? m[2] ?? m[3],
      ),
    );
    const targets = new Set(QUESTION_STATES.flatMap((state) => NEXT[state]));
    // Every state entered is an edge's end, and every edge's end is entered somewhere.
    expect([...entered].filter((state) => !targets.has(state as never))).toEqual([]);
    expect([...targets].filter((state) => !entered.has(state))).toEqual([]);
  });
});

describe("move(): the one transition", () => {
  /** A resource that says when it was let go. */
  const held = (log: string[], name: string) => ({
    release: () => log.push(name),
    free: () => log.push(name),
    end: () => log.push(name),
    close: async () => void log.push(name),
  });

  it("refuses an edge NEXT does not have", () => {
    expect(() => move({ at: "received" }, { at: "answering" } as Life)).toThrow(
      /cannot go from "received" to "answering"/,
    );
    expect(() => move({ at: "done", why: "" }, { at: "failed", why: "" })).toThrow();
  });

  it("lets go of exactly what the state left held and the next does not carry", () => {
    const log: string[] = [];
    const ticket = held(log, "ticket");
    const record = held(log, "record");
    const waiting = { at: "waiting for its thread", ticket, record } as unknown as Life;
    const slot = held(log, "slot");
    const stop = held(log, "stop");
    const answering = { at: "answering", ticket, record, slot, stop } as unknown as Life;
    move(waiting, answering);
    expect(log).toEqual([]);
    move(answering, { at: "done", why: "complete" });
    expect(log.sort()).toEqual(["record", "slot", "stop", "ticket"]);
  });

  it("keeps a ticket an end carries: handed over with its question to another process", () => {
    const log: string[] = [];
    const ticket = held(log, "ticket");
    const notice = held(log, "notice");
    const listed = () => log.push("listed");
    const queued = { at: "queued", ticket, notice, listed } as unknown as Life;
    move(queued, { at: "handed over", why: "taken", ticket } as unknown as Life);
    expect(log.sort()).toEqual(["listed", "notice"]);
  });
});
