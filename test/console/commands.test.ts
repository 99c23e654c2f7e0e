import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { botWorkDir, runBot } from "../support/run-bot.ts";

let simulator: Simulator;
beforeAll(async () => {
  simulator = await startSimulator({ chunkDelayMs: 0 });
});
afterAll(async () => {
  await simulator.close();
});

const chats = () => simulator.requests.filter((r) => r.route === "chat");

describe("commands in the console", () => {
  it("answers an unknown command with the list, and sets a language by any code people use", async () => {
    const run = await runBot({
      input: "/bogus\n/language JA\n/language zh-tw\nhello\n",
      cwd: await botWorkDir(),
      env: {
        CHATBOT_BASE_URL: simulator.url,
        CHATBOT_API_KEY: simulator.apiKey,
        CHATBOT_BOT_UID: simulator.botUid,
      },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Unknown command \/bogus\.\nAsk me anything, or use a command:\n/);
    expect(run.stdout).toContain("Answers here are now in Japanese (jp).");
    expect(run.stdout).toContain("Answers here are now in Traditional Chinese (zh-Hant).");
    expect(chats().map((r) => [r.chat?.q, r.chat?.language])).toEqual([["hello", "zh-Hant"]]);
  });
});
