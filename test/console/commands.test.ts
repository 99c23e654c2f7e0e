import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { runConsole } from "../support/console-bot.ts";

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
    const run = await runConsole({
      input: "/bogus\n/language JA\n/language zh-tw\nhello\n",
      env: {
        CHATBOT_BASE_URL: simulator.url,
        CHATBOT_API_KEY: simulator.apiKey,
        CHATBOT_BOT_UID: simulator.botUid,
      },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Unknown command \/bogus\.\nAsk me anything, or use a command:\n/);
    expect(run.stdout).toContain("ここでの回答言語を日本語（jp）に変更しました。");
    expect(run.stdout).toContain("這裡的回答語言已改為繁體中文（zh-Hant）。");
    expect(chats().map((r) => [r.chat?.q, r.chat?.language])).toEqual([["hello", "zh-Hant"]]);
  });

  it("speaks the system's language (LANGUAGE, then LC_ALL, LC_MESSAGES, LANG)", async () => {
    const env = {
      CHATBOT_BASE_URL: simulator.url,
      CHATBOT_API_KEY: simulator.apiKey,
      CHATBOT_BOT_UID: simulator.botUid,
    };
    const french = await runConsole({
      input: "/help\n",
      env: { ...env, LANGUAGE: "nl:fr", LANG: "de_DE.UTF-8" },
    });
    expect(french.stdout).toMatch(
      /^Posez-moi n’importe quelle question, ou utilisez une commande :\n/,
    );
    const german = await runConsole({
      input: "#status=500\n",
      env: { ...env, LC_MESSAGES: "de_AT.UTF-8", LANG: "fr_FR.UTF-8" },
    });
    expect(german.stdout).toBe(
      "⚠️ der Chatbot-Dienst ist ausgefallen (HTTP 500); bitte versuchen Sie es später noch einmal\n",
    );
    // A language set with /language wins over the system's, and the chatbot is told it.
    const set = await runConsole({
      input: "/language it\n/new\n",
      env: { ...env, LANG: "de_DE.UTF-8" },
    });
    expect(set.stdout).toBe(
      "D’ora in poi qui le risposte sono in italiano (it).\nSi ricomincia: la tua prossima domanda apre una nuova conversazione.\n",
    );
  });
});
