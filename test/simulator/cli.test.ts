import { type ChildProcess, spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parse } from "dotenv";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const TSX_LOADER = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;

let child: ChildProcess | undefined;
afterEach(() => {
  if (child?.exitCode === null) child.kill("SIGKILL");
  child = undefined;
});

/** `npm run simulator` on a free port: what it printed once it listens, and the process. */
async function startCli(
  env: Record<string, string> = {},
): Promise<{ stdout: string; process: ChildProcess }> {
  const started = spawn(process.execPath, ["--import", TSX_LOADER, "src/simulator/cli.ts"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", SIMULATOR_PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child = started;
  let stdout = "";
  started.stdout.setEncoding("utf8");
  await new Promise<void>((resolvePromise, reject) => {
    started.once("exit", (code) => reject(new Error(`exited with ${code}: ${stdout}`)));
    started.stdout.on("data", (text: string) => {
      stdout += text;
      if (stdout.includes("Ctrl-C stops it.")) resolvePromise();
    });
  });
  return { stdout, process: started };
}

describe("npm run simulator", () => {
  it("prints the three .env lines as one block under a line that says to paste them", async () => {
    const { stdout, process: cli } = await startCli();
    const lines = stdout.split("\n");
    const first = lines.findIndex((line) => line.startsWith("CHATBOT_BASE_URL="));
    expect(first).toBeGreaterThan(0);
    expect(lines[first - 1]).toMatch(/paste .*\.env/i);
    const block = lines.slice(first, first + 3);
    expect(block.map((line) => line.split("=")[0])).toEqual([
      "CHATBOT_BASE_URL",
      "CHATBOT_API_KEY",
      "CHATBOT_BOT_UID",
    ]);
    // The block ends there: nothing else is pasted along with it.
    expect(lines[first + 3]).toBe("");
    // What .env would hold reaches the simulator: the key and bot uid are accepted.
    const env = parse(block.join("\n"));
    const response = await fetch(
      `${env.CHATBOT_BASE_URL}/api/v1/backend/chatbot/${env.CHATBOT_BOT_UID}/leads`,
      { headers: { authorization: `Bearer ${env.CHATBOT_API_KEY}` } },
    );
    expect(response.status).toBe(200);
    await response.body?.cancel();
    const exited = new Promise((r) => cli.once("exit", r));
    cli.kill("SIGINT");
    expect(await exited).toBe(0);
  });

  it("serves several chatbots with SIMULATOR_BOTS, and prints them as CHATBOTS", async () => {
    const { stdout } = await startCli({ SIMULATOR_BOTS: "support,sales" });
    const env = parse(
      stdout
        .split("\n")
        .filter((line) => /^[A-Z_]+=/.test(line))
        .join("\n"),
    );
    expect(env.CHATBOTS).toBe("support:sim-support,sales:sim-sales");
    expect(env.CHATBOT_BOT_UID).toBeUndefined();
    for (const uid of ["sim-support", "sim-sales"]) {
      const response = await fetch(`${env.CHATBOT_BASE_URL}/api/v1/backend/chatbot/${uid}/leads`, {
        headers: { authorization: `Bearer ${env.CHATBOT_API_KEY}` },
      });
      expect(response.status).toBe(200);
      await response.body?.cancel();
    }
  });
});
