import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createConsoleChannel } from "../../adapters/console/index.ts";
import { createBackendClient } from "../../src/backend/client.ts";
import { ChannelLanguages } from "../../src/i18n/channel-language.ts";
import { createLogger } from "../../src/log.ts";
import { openStore } from "../../src/store/open-store.ts";
import { OPEN_BRIDGE, startBridge } from "../support/bridge-harness.ts";
import { until } from "../support/run-bot.ts";
import { type ScriptedBackend, startScriptedBackend } from "../support/scripted-answers.ts";
import { VirtualTerminal } from "../support/virtual-terminal.ts";

const CTRL_C = "\u0003";

interface Chat {
  screen: VirtualTerminal;
  answers: ScriptedBackend;
  /** Keys as a person types them ("\r" is Enter). */
  type(keys: string): void;
  /** Resolves when the console channel has ended. */
  ended: Promise<void>;
  /** The screen's text below the welcome lines. */
  transcript(): string;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/**
 * The console channel in a terminal: stdin and stdout are streams that say they are a TTY
 * (as process.stdin/stdout do at a terminal), and what it writes goes to a virtual screen.
 */
async function chatInTerminal(
  columns = 100,
  console: { locale?: string; simulated?: boolean } = {},
): Promise<Chat> {
  const answers = await startScriptedBackend();
  closers.push(() => answers.close());
  const backend = createBackendClient({ baseUrl: answers.backend.url, apiKey: "k", botUid: "b" });
  closers.push(() => backend.close());
  const dataDir = await mkdtemp(join(tmpdir(), "console-tty-"));
  const store = await openStore({ dataDir });
  closers.push(async () => {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const bridge = await startBridge({
    backend,
    store,
    log: createLogger({ level: "silent", secrets: [] }),
    ...OPEN_BRIDGE,
  });
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const output = Object.assign(new PassThrough(), { isTTY: true, columns, rows: 30 });
  const screen = new VirtualTerminal(columns, 30);
  output.on("data", (chunk: Buffer) => screen.write(chunk));
  const channel = createConsoleChannel({
    bridge,
    input,
    output,
    interactive: true,
    languages: new ChannelLanguages(store, "auto"),
    ...console,
  });
  await channel.start();
  const ended = channel.done;
  closers.push(async () => {
    // Stops an answer still running, then quits (readline would take an ended input's last
    // typed text for a line).
    input.write(CTRL_C + CTRL_C);
    await ended;
  });
  await until("the prompt", () => (screen.cursorLine === "›" ? true : undefined));
  const transcript = () => screen.text().split("\n").slice(2).join("\n");
  return { screen, answers, type: (keys) => input.write(keys), ended, transcript };
}

/** Waits until the screen shows `text`. */
function shows(chat: Chat, text: string): Promise<true> {
  return until(`the screen to show ${JSON.stringify(text)}`, () =>
    chat.screen.text().includes(text) ? true : undefined,
  );
}

/** Waits until the prompt is back on the last line, with `typed` on it. */
function prompted(chat: Chat, typed = ""): Promise<true> {
  return until(`the prompt with ${JSON.stringify(typed)}`, () =>
    chat.screen.cursorLine === `› ${typed}`.trimEnd() &&
    chat.screen.text().endsWith(`› ${typed}`.trimEnd())
      ? true
      : undefined,
  );
}

describe("the console channel in a terminal", () => {
  it("welcomes in the system's language, the simulated chatbot's line too", async () => {
    const chat = await chatInTerminal(200, { locale: "de_DE.UTF-8", simulated: true });
    expect(chat.screen.text().split("\n").slice(0, 3)).toEqual([
      "Chatten Sie mit dem Chatbot: Stellen Sie eine Frage, oder /help für die Befehle.",
      "Ctrl+C bricht eine Antwort ab; an der Eingabe beendet Ctrl+C oder Ctrl+D das Programm.",
      "(Die Antworten kommen vom eingebauten simulierten Chatbot: Setzen Sie CHATBOT_BASE_URL, CHATBOT_API_KEY und CHATBOT_BOT_UID, um Ihren eigenen zu verwenden.)",
    ]);
  });

  it("shows “thinking…” until the first text, then the answer's Markdown styled", async () => {
    const chat = await chatInTerminal();
    chat.type("hello\r");
    await shows(chat, "thinking…");
    const answer = chat.answers.answer(1);
    answer.send("Hello **world**, see [the docs](https://example.com/docs).\n\n");
    await shows(chat, "Hello world, see the docs (https://example.com/docs).");
    expect(chat.screen.text()).not.toContain("thinking…");
    answer.send("# Steps\n\n- run `npm start`\n- *then* ask\n\n```sh\nnpm test\n```\n");
    answer.end();
    await prompted(chat);

    expect(chat.transcript()).toBe(
      [
        "› hello",
        "Hello world, see the docs (https://example.com/docs).",
        "",
        "Steps",
        "",
        "• run npm start",
        "• then ask",
        "",
        "```sh",
        "npm test",
        "```",
        "›",
      ].join("\n"),
    );
    const bold = (text: string) => chat.screen.attributesOf(text)?.every((a) => a.has("bold"));
    expect(bold("world")).toBe(true);
    expect(bold("Hello")).toBe(false);
    expect(bold("Steps")).toBe(true);
    expect(chat.screen.attributesOf("then")?.every((a) => a.has("italic"))).toBe(true);
    expect(chat.screen.attributesOf("npm start")?.every((a) => a.has("color"))).toBe(true);
    expect(chat.screen.attributesOf("npm test")?.every((a) => a.has("color"))).toBe(true);
  });

  it("keeps lines typed during an answer out of it, and asks them next", async () => {
    const chat = await chatInTerminal();
    chat.type("first\r");
    const first = chat.answers.answer(1);
    first.send("Part one. ");
    await shows(chat, "Part one.");
    chat.type("second question\rdraft");
    first.send("Part two.");
    await shows(chat, "Part one. Part two.");
    expect(chat.screen.text()).not.toMatch(/second question|draft/);
    first.end();
    await until("the second question", () => (chat.answers.asked === 2 ? true : undefined));
    const second = chat.answers.answer(2);
    second.send("Answer two.");
    second.end();
    await prompted(chat, "draft");

    expect(chat.transcript()).toBe(
      ["› first", "Part one. Part two.", "› second question", "Answer two.", "› draft"].join("\n"),
    );
    expect(JSON.parse(chat.answers.backend.requests[1]?.body ?? "{}").q).toBe("second question");
  });

  it("cancels the answer on Ctrl+C, drops the lines typed ahead, and quits on a second", async () => {
    const chat = await chatInTerminal();
    chat.type("tell me\r");
    chat.answers.answer(1).send("The beginning");
    await shows(chat, "The beginning");
    chat.type(`later\r${CTRL_C}`);
    await prompted(chat);
    expect(chat.transcript()).toBe(
      [
        "› tell me",
        "The beginning",
        "",
        "⚠️ answer cut off: interrupted",
        "(1 line typed during the answer was dropped)",
        "›",
      ].join("\n"),
    );
    expect(chat.answers.asked).toBe(1);
    chat.type(CTRL_C);
    await chat.ended;
    expect(chat.answers.asked).toBe(1);
  });

  it("stops the answer on /stop typed while it prints, keeping its text and saying so", async () => {
    const chat = await chatInTerminal();
    chat.type("tell me\r");
    chat.answers.answer(1).send("The beginning");
    await shows(chat, "The beginning");
    chat.type("/stop\r");
    await prompted(chat);
    expect(chat.transcript()).toBe(
      ["› tell me", "The beginning", "", "⏹ stopped by you", "›"].join("\n"),
    );
    expect(chat.answers.asked).toBe(1);
  });

  it("quits on Ctrl+C at the prompt", async () => {
    const chat = await chatInTerminal();
    chat.type(CTRL_C);
    await chat.ended;
    expect(chat.answers.asked).toBe(0);
  });

  it("redraws a line whose Markdown turned out to be something else", async () => {
    const chat = await chatInTerminal(30);
    chat.type("q\r");
    const answer = chat.answers.answer(1);
    answer.send("A heading that wraps on a narrow screen\n");
    await shows(chat, "A heading that wraps on a narrow screen");
    answer.send("---\n\nBody.");
    answer.end();
    await prompted(chat);
    expect(chat.transcript()).toBe(
      ["› q", "A heading that wraps on a narrow screen", "", "Body.", "›"].join("\n"),
    );
    expect(chat.screen.attributesOf("A heading")?.every((a) => a.has("bold"))).toBe(true);
  });
});
