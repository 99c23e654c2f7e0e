import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FeedbackVotes } from "../../src/feedback/votes.ts";
import { openStore } from "../../src/store/open-store.ts";

let dataDir: string | undefined;
afterEach(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

const DAY_MS = 24 * 60 * 60 * 1000;

/** `npm run feedback -- <args>` with DATA_DIR set, as an operator runs it. */
function runExport(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", "feedback", "--", ...args], {
      cwd: join(import.meta.dirname, "../.."),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("npm run feedback", () => {
  it("prints the votes of the last days from the configured store as JSON lines", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "feedback-export-"));
    const store = await openStore({ dataDir });
    const now = Date.now();
    const recent = new FeedbackVotes(store);
    await recent.remember("a1", {
      platform: "slack",
      channelKey: "slack:T1:C1",
      conversationUid: "conv-1",
      questionAt: new Date(now - DAY_MS).toISOString(),
    });
    await recent.vote("a1", "slack:T1:C1", "U1", "up");
    await recent.vote("a1", "slack:T1:C1", "U2", "up");
    await recent.vote("a1", "slack:T1:C1", "U2", "down");
    // A question of ten days ago: outside --since 7d.
    await recent.remember("old", {
      platform: "telegram",
      channelKey: "telegram:-100",
      conversationUid: undefined,
      questionAt: new Date(now - 10 * DAY_MS).toISOString(),
    });
    await recent.vote("old", "telegram:-100", "7", "up");
    await store.close();

    const result = await runExport(["--since", "7d"], { DATA_DIR: dataDir });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((l) => l.rating).sort()).toEqual(["down", "up"]);
    for (const line of lines) {
      expect(line).toMatchObject({
        answerId: "a1",
        platform: "slack",
        channelKey: "slack:T1:C1",
        conversationUid: "conv-1",
        questionAt: expect.any(String),
        votedAt: expect.any(String),
      });
      // Who voted is not exported.
      expect(JSON.stringify(line)).not.toMatch(/U1|U2/);
    }

    const wider = await runExport(["--since", "30d"], { DATA_DIR: dataDir });
    expect(wider.stdout.trim().split("\n")).toHaveLength(3);
  });

  it("says so when a store holds no votes of the range, its output still empty", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "feedback-export-"));
    const store = await openStore({ dataDir });
    await store.close();
    const result = await runExport(["--since", "7d"], { DATA_DIR: dataDir });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^no votes since \d{4}-\d\d-\d\d: nothing to export\n$/);
  });

  it("says a DATA_DIR that holds no store, instead of exporting nothing, and creates none", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "feedback-export-"));
    const mistyped = join(dataDir, "dat");
    const result = await runExport(["--since", "7d"], { DATA_DIR: mistyped });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `feedback export failed: DATA_DIR ${mistyped} holds no store: is it the bot's DATA_DIR?\n`,
    );
    expect(existsSync(mistyped)).toBe(false);
  });

  it("prints its usage on --help", async () => {
    const result = await runExport(["--help"], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^usage: npm run feedback -- --since <days>d\n/);
    expect(result.stderr).toBe("");
  });

  it("refuses a range it cannot read, as /feedback does", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "feedback-export-"));
    const result = await runExport(["--since", "week"], { DATA_DIR: dataDir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--since takes 1d to 90d");
  });
});
