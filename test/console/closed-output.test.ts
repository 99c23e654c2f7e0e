import { describe, expect, it } from "vitest";
import { botWorkDir, startBot } from "../support/run-bot.ts";

describe("the console when its reader goes away", () => {
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
