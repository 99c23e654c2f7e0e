import { afterEach, describe, expect, it } from "vitest";
import { type BotInTerminal, hasScript, startBotInTerminal } from "../support/pty-bot.ts";
import { botWorkDir, until } from "../support/run-bot.ts";
import { type ScriptedBackend, startScriptedBackend } from "../support/scripted-answers.ts";

const CTRL_C = "\u0003";
const terminal = hasScript();
if (!terminal) console.warn("[console pty] skipped: util-linux `script` is not on PATH");

let answers: ScriptedBackend | undefined;
let bot: BotInTerminal | undefined;
afterEach(async () => {
  bot?.kill();
  await answers?.close();
});

function shows(text: string): Promise<true> {
  return until(
    `the terminal to show ${JSON.stringify(text)}`,
    () => (bot?.screen.text().includes(text) ? true : undefined),
    15_000,
  );
}

function prompted(): Promise<true> {
  return until("the prompt", () => (bot?.screen.cursorLine === "›" ? true : undefined), 15_000);
}

describe.skipIf(!terminal)("npm start in a terminal", () => {
  it("styles the answer, stops it on Ctrl+C and quits on a second, exit code 0", async () => {
    answers = await startScriptedBackend();
    bot = startBotInTerminal({
      cwd: await botWorkDir(),
      env: { CHATBOT_BASE_URL: answers.backend.url, CHATBOT_API_KEY: "k", CHATBOT_BOT_UID: "b" },
    });
    await prompted();
    bot.type("hello\r");
    await shows("thinking…");
    answers.answer(1).send("Hello **world**, see [the docs](https://example.com/docs).\n\nAnd");
    await shows("Hello world, see the docs (https://example.com/docs).");
    expect(bot.screen.text()).not.toContain("thinking…");
    expect(bot.screen.attributesOf("world")?.every((a) => a.has("bold"))).toBe(true);

    bot.type(`next question\r${CTRL_C}`);
    await shows("⚠️ answer cut off: interrupted");
    await prompted();
    const transcript = bot.screen.text().slice(bot.screen.text().indexOf("› hello"));
    expect(transcript).toBe(
      [
        "› hello",
        "Hello world, see the docs (https://example.com/docs).",
        "",
        "And",
        "",
        "⚠️ answer cut off: interrupted",
        "(1 line typed during the answer was dropped)",
        "›",
      ].join("\n"),
    );

    bot.type(CTRL_C);
    expect(await bot.exited).toBe(0);
    expect(answers.asked).toBe(1);
  });
});
