import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_MESSAGE_CHARS } from "../../adapters/slack/limits.ts";
import { hugeAnswer } from "../../src/simulator/answers.ts";
import { STREAM_DELIMITER } from "../../src/simulator/index.ts";
import type { FakeMessage } from "../support/fake-slack.ts";
import { type RawBackend, startRawBackend } from "../support/raw-backend.ts";
import { type ScriptedBackend, startScriptedBackend } from "../support/scripted-answers.ts";
import { mention, type SlackHarness, startSlackHarness } from "../support/slack-harness.ts";
import { HOSTILE, HOSTILE_LITERALS } from "./samples.ts";

let h: SlackHarness | undefined;
let backend: RawBackend | undefined;
let scripted: ScriptedBackend | undefined;
afterEach(async () => {
  await h?.close();
  await backend?.close();
  await scripted?.close();
  h = undefined;
  backend = undefined;
  scripted = undefined;
});

const TABLE = [
  "| Plan | Price | Seats |",
  "| --- | ---: | :---: |",
  "| Free | $0 | 1 |",
  "| **Team** | $8 / month | 10 |",
].join("\n");
/** TABLE as a person reads it: rows of cells. */
const TABLE_ROWS = [
  ["Plan", "Price", "Seats"],
  ["Free", "$0", "1"],
  ["Team", "$8 / month", "10"],
];
const TABLE_ANSWER = `Here are our plans:\n\n${TABLE}\n\nAsk me about any of them.`;

/** Text from the chatbot that must not ping, hide a link's target or run markup: in a table too. */
const HOSTILE_TABLE = [
  "| Who | Where |",
  "| --- | --- |",
  "| <!here> and <@U2> | [https://bank.example](https://evil.example) |",
  "| `<!channel>` | 1 < 2 & 3 > 2 |",
].join("\n");
const HOSTILE_TABLE_ROWS = [
  ["Who", "Where"],
  ["<!here> and <@U2>", "https://bank.example (https://evil.example)"],
  ["<!channel>", "1 < 2 & 3 > 2"],
];
const HOSTILE_CODE = '```sh\necho "<!everyone>" <https://evil.example|bank> <@U3|boss>\n```';
const HOSTILE_ANSWER = `${HOSTILE}\n\n${HOSTILE_TABLE}\n\n${HOSTILE_CODE}`;

/** A backend that streams `answer` in small pieces, as a real one would. */
function answering(answer: string, pieceChars = 40): Promise<RawBackend> {
  return startRawBackend(async (ctx) => {
    ctx.res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    await ctx.write(`${JSON.stringify(header("conv-tables"))}${STREAM_DELIMITER}`, 2);
    for (let i = 0; i < answer.length; i += pieceChars) {
      await ctx.write(answer.slice(i, i + pieceChars), 2);
    }
    ctx.res.end();
  });
}

function header(conversation: string) {
  return {
    answer: "",
    question: "q",
    related_docs: [],
    conversation_uid: conversation,
    is_qa_mode: false,
    system_message: "",
  };
}

/** Asks `answer` of a bot with native streaming as given; the thread's messages after it. */
async function ask(answer: string, nativeStreaming: boolean): Promise<FakeMessage[]> {
  backend = await answering(answer);
  h = await startSlackHarness({
    backend: { url: backend.url, apiKey: "k", botUid: "b" },
    slack: { nativeStreaming },
  });
  const ts = h.nextTs();
  await h.sendEvent(mention("compare the plans", { ts }));
  await h.settle();
  return h.fake.thread("C1", ts);
}

/**
 * A native stream whose line holds an opener far longer than a stream may hold one back:
 * `opened` goes first, and `rest` (which closes it) only once a person could read `marker`,
 * which the stream shows only after it gave up waiting and showed the opener as written.
 */
async function streamLateCloser(opened: string, marker: string, rest: string) {
  scripted = await startScriptedBackend();
  h = await startSlackHarness({
    backend: { url: scripted.backend.url, apiKey: "k", botUid: "b" },
  });
  const harness = h;
  const ts = harness.nextTs();
  await harness.sendEvent(mention("how do I install it?", { ts }));
  const feed = scripted.answer(1);
  for (let i = 0; i < opened.length; i += 10) {
    feed.send(opened.slice(i, i + 10));
    await sleep(2);
  }
  const started = performance.now();
  const shows = () => {
    const [message] = harness.fake.thread("C1", ts);
    return message !== undefined && harness.fake.view(message).visible.includes(marker);
  };
  while (!shows()) {
    if (performance.now() - started > 5_000) throw new Error("the marker never showed");
    await sleep(5);
  }
  feed.send(rest);
  feed.end();
  await harness.settle();
  return harness.fake.thread("C1", ts);
}

const withoutZeroWidth = (rows: string[][][]) =>
  rows.map((table) => table.map((row) => row.map((cell) => cell.replaceAll("\u200b", ""))));

describe("tables in posted answers", () => {
  it("shows a table as a table where the answer is posted (no native streaming)", async () => {
    const [answer, ...others] = await ask(TABLE_ANSWER, false);

    expect(others).toEqual([]);
    expect(h?.fake.tablesOf(answer as FakeMessage)).toEqual([TABLE_ROWS]);
    const view = h?.fake.view(answer as FakeMessage);
    expect(view?.read).toContain("Here are our plans:");
    expect(view?.read).toContain("Ask me about any of them.");
    // Notifications and screen readers read the message's text: the same answer, in mrkdwn.
    expect(answer?.text).toContain("Free");
    expect(answer?.text).toContain("Ask me about any of them.");
  });

  it("shows a table as a table in a long answer's second message", async () => {
    const long = `${hugeAnswer(5_000).trimEnd()}\n\n${TABLE_ANSWER}`;
    const messages = await ask(long, false);

    expect(messages.length).toBeGreaterThanOrEqual(2);
    const [first, ...rest] = messages;
    expect(h?.fake.tablesOf(first as FakeMessage)).toEqual([]);
    expect(rest.flatMap((m) => h?.fake.tablesOf(m) ?? [])).toEqual([TABLE_ROWS]);
    for (const message of messages)
      expect(message.text.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
  });

  for (const streaming of [false, true]) {
    it(`keeps hostile text inert in the markdown block and the text ${streaming ? "after a native stream" : "of a posted answer"}, tables and code included`, async () => {
      const messages = streaming
        ? await streamLateCloser(
            `Run \`echo <!channel> ${"and wait a while ".repeat(8)}MARKER then`,
            "MARKER",
            ` more\` now.\n\n${HOSTILE_ANSWER}`,
          )
        : await ask(HOSTILE_ANSWER, false);
      const [answer, ...others] = messages;
      const fake = h?.fake;
      expect(others).toEqual([]);
      // Every state a person saw, in every form, is safe.
      const views = fake?.views(answer as FakeMessage) ?? [];
      expect(views.length).toBeGreaterThan(0);
      for (const view of views) {
        expect(view.pings).toEqual([]);
        expect(view.disguised).toEqual([]);
      }
      expect(answer?.markdown).toBeDefined();
      const view = fake?.view(answer as FakeMessage);
      expect(withoutZeroWidth(view?.tables ?? [])).toEqual([HOSTILE_TABLE_ROWS]);
      const visible = view?.read.replaceAll("\u200b", "") ?? "";
      for (const literal of [...HOSTILE_LITERALS, '"<!everyone>"', "<@U3|boss>"]) {
        expect(visible).toContain(literal);
      }
    });
  }
});

describe("the end of a native stream", () => {
  // The code span opens at character 40 and closes at character 300: far past what a stream
  // holds back, so the stream shows its backtick as written on the way.
  const OPENED = `To install the widget, run the command: \`npm install widget --save-exact && ${"npx widget init --defaults && ".repeat(6)}MARKER`;
  const CODE = `${OPENED.slice(OPENED.indexOf("`") + 1)} --yes`;
  const REST = ` --yes\` and you are done.\n\n${TABLE}\n\nDone.`;

  it("replaces the message with what the chatbot wrote, formatted, by one chat.update", async () => {
    expect(OPENED.indexOf("`")).toBe(40);
    const [answer, ...others] = await streamLateCloser(OPENED, "MARKER", REST);
    const fake = h?.fake;

    expect(others).toEqual([]);
    expect(fake?.callsTo("chat.startStream")).toHaveLength(1);
    // On the way, the stream showed the backtick as written.
    expect(answer?.history.some((text) => text.includes("\\`npm install"))).toBe(true);
    // In the end: the code span, the table and the rest, as the chatbot wrote them.
    const view = fake?.view(answer as FakeMessage);
    expect(view?.code).toEqual([CODE]);
    expect(view?.read).not.toContain("`");
    expect(view?.read).toContain("and you are done.");
    expect(view?.read).toContain("Done.");
    expect(view?.tables).toEqual([TABLE_ROWS]);
    expect(fake?.callsTo("chat.update").map((c) => c.outcome)).toEqual(["ok"]);
  });

  it("makes no extra call when the stream showed nothing as written", async () => {
    const [answer] = await ask(TABLE_ANSWER, true);
    expect(answer?.format).toBe("markdown");
    expect(h?.fake.tablesOf(answer as FakeMessage)).toEqual([TABLE_ROWS]);
    expect(h?.fake.callsTo("chat.update")).toEqual([]);
  });
});
