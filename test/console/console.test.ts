import { PassThrough, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBot } from "../../src/bot.ts";
import { loadConfig } from "../../src/config.ts";
import { type Simulator, startSimulator } from "../../src/simulator/index.ts";
import { runConsole } from "../support/console-bot.ts";
import { freshDataDir } from "../support/in-process-bot.ts";

let simulator: Simulator;
beforeAll(async () => {
  simulator = await startSimulator({ chunkDelayMs: 0 });
});
afterAll(async () => {
  await simulator.close();
});

const backendEnv = () => ({
  CHATBOT_BASE_URL: simulator.url,
  CHATBOT_API_KEY: simulator.apiKey,
  CHATBOT_BOT_UID: simulator.botUid,
});

/** Each answer of the simulator starts with this line. */
const ANSWER_START = /^Hello! \*\*This is the simulated chatbot\.\*\*/gm;
const ANSI = "\u001b[";

describe("the console channel, with piped input", () => {
  it("answers piped lines in order on the built-in simulated backend, then exits 0", async () => {
    // #fast: the built-in simulator streams at once (its pacing is not configurable).
    const run = await runConsole({
      input: "hello #fast\nand again #fast\n",
      env: { LOG_LEVEL: "info" },
    });
    expect(run.code).toBe(0);
    expect(run.stdout.match(ANSWER_START)).toHaveLength(2);
    const first = run.stdout.indexOf("You asked: “hello #fast”");
    const second = run.stdout.indexOf("You asked: “and again #fast”");
    expect(first).toBeGreaterThan(-1);
    expect(second).toBeGreaterThan(first);
    expect(run.stdout).toContain("This is question 2 in our conversation.");
    expect(run.stdout).not.toContain(ANSI);
    expect(run.stderr).toContain("answers come from the built-in simulated backend");
  });

  it("ends each answer's last line before a log line comes, in one output (2>&1)", async () => {
    // stdout and stderr are one stream, as `2>&1` makes them.
    let output = "";
    const one = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        output += String(chunk);
        done();
      },
    });
    const stdin = new PassThrough().end("hello\nand again\n");
    const config = loadConfig({
      ...backendEnv(),
      LOG_LEVEL: "info",
      DATA_DIR: await freshDataDir(),
    });
    const bot = await createBot(config, { stdin, stdout: one, stderr: one });
    expect(await bot.stopped).toBe(0);
    const answered = output.match(/^.*"msg":"question answered".*$/gm) ?? [];
    expect(answered).toHaveLength(2);
    for (const line of answered) expect(line).toMatch(/^\{"level":30,/);
  });

  it("continues the conversation across restarts until /new", async () => {
    const env = { ...backendEnv(), DATA_DIR: await freshDataDir() };
    await runConsole({ input: "first run\n", env });
    const second = await runConsole({ input: "second run\n/new\nthird\n", env });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("This is question 2 in our conversation.");
    expect(second.stdout).toContain("You first asked: “first run”");
    expect(second.stdout).toContain(
      "Starting fresh: your next question begins a new conversation.\n",
    );
    expect(second.stdout.split("Starting fresh")[1]).toContain("This is the first question");
  });

  it("continues the built-in simulator's conversation after a restart", async () => {
    const env = { DATA_DIR: await freshDataDir() };
    // #fast: the built-in simulator streams at once (its pacing is not configurable).
    const first = await runConsole({ input: "first run #fast\n", env });
    expect(first.stdout).toContain("This is the first question in our conversation.");
    const second = await runConsole({ input: "second run #fast\n", env });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("This is question 2 in our conversation.");
    expect(second.stdout).toContain("You first asked: “first run #fast”");
    expect(second.stdout).not.toContain("I do not know that conversation");
  });

  it("shows a cut answer's text with the note on its own line, then goes on", async () => {
    const run = await runConsole({
      input: "break #cut\nstill there?\n",
      env: backendEnv(),
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\n\n⚠️ answer cut off: connection lost\n/);
    expect(run.stdout).toContain("You asked: “still there?”");
  });

  it("says a rejected API key in one readable line and goes on", async () => {
    const run = await runConsole({
      input: "hello\nhello again\n",
      env: { ...backendEnv(), CHATBOT_API_KEY: "wrong-key-123" },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      "⚠️ the chatbot rejected the API key (HTTP 401)\n⚠️ the chatbot rejected the API key (HTTP 401)\n",
    );
    expect(run.stderr).not.toContain("wrong-key-123");
  });

  it("runs the commands", async () => {
    const run = await runConsole({
      input: "/help\n/language\n/language de\n/language xx\nhallo\n",
      env: backendEnv(),
    });
    expect(run.stdout).toContain("/language <code>");
    expect(run.stdout).toContain(
      "Answers here are in the language of each question (auto), the default.",
    );
    expect(run.stdout).toContain("Antworten kommen hier ab jetzt auf Deutsch (de).");
    expect(run.stdout).toContain("unbekannter Sprachcode. Gültige Codes: auto, en,");
    expect(run.stdout).toContain("Answering in German (de)");
  });

  it("stops on invalid configuration with one line per problem", async () => {
    const run = await runConsole({
      input: "",
      env: {
        LEADS_POLL_INTERVAL: "soon",
        CHATBOT_BASE_URL: "http://127.0.0.1:1",
        CHATBOT_API_KEY: "k",
      },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("LEADS_POLL_INTERVAL must be a whole number, in digits");
    expect(run.stderr).toContain("CHATBOT_BOT_UID is required when CHATBOT_BASE_URL is set");
    expect(run.stdout).toBe("");
  });
});
