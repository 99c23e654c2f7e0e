import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { botWorkDir, startBot, until } from "../support/run-bot.ts";

// What only the process shows: its signals, and its output pipe going away. The console's
// answers themselves are tested in-process (console.test.ts).

let simulator: Simulator;
beforeAll(async () => {
  simulator = await startSimulator({ chunkDelayMs: 0 });
});
afterAll(async () => {
  await simulator.close();
});

describe("the console channel, as a child process", () => {
  it("on a stop signal cuts the answer being shown, with its note, asks no more, exits 0", async () => {
    const bot = startBot({
      input: "tell me #stall\nnever asked\n",
      cwd: await botWorkDir(),
      env: {
        CHATBOT_BASE_URL: simulator.url,
        CHATBOT_API_KEY: simulator.apiKey,
        CHATBOT_BOT_UID: simulator.botUid,
        LOG_LEVEL: "warn",
      },
    });
    await until("the answer's first text", () =>
      bot.stdout.includes("Hello!") ? true : undefined,
    );
    expect(await bot.stop("SIGTERM")).toBe(0);
    expect(bot.stdout).toMatch(/\n\n⚠️ answer cut off: interrupted\n$/);
    expect(bot.stdout).not.toContain("never asked");
  });

  it("stops quietly, exit 0, when stdout is closed mid-answer (`npm start | head`)", async () => {
    const bot = startBot({
      cwd: await botWorkDir(),
      env: { LOG_LEVEL: "warn" },
      input: "hello\nand again\nand once more\n",
    });
    // As `head -1` does: read until the first line, then close the pipe.
    await new Promise<void>((resolve) => {
      bot.child.stdout?.on("data", function first(chunk: string) {
        if (!chunk.includes("\n")) return;
        bot.child.stdout?.off("data", first);
        resolve();
      });
    });
    bot.child.stdout?.destroy();
    const code = await bot.exited;
    expect(bot.stderr).not.toMatch(/EPIPE|uncaught|"level":(50|60)/);
    expect(code).toBe(0);
  });
});
