import { afterEach, describe, expect, it } from "vitest";
import { MAX_MESSAGE_CHARS } from "../../adapters/slack/limits.ts";
import { hugeAnswer } from "../../src/simulator/answers.ts";
import { STREAM_DELIMITER } from "../../src/simulator/index.ts";
import type { FakeMessage } from "../support/fake-slack.ts";
import { type RawBackend, startRawBackend } from "../support/raw-backend.ts";
import { mention, type SlackHarness, startSlackHarness } from "../support/slack-harness.ts";
import { HOSTILE, HOSTILE_LITERALS } from "./samples.ts";

let h: SlackHarness | undefined;
let backend: RawBackend | undefined;
afterEach(async () => {
  await h?.close();
  await backend?.close();
  h = undefined;
  backend = undefined;
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

  it("keeps hostile text inert in the markdown block and the text of a posted answer, tables and code included", async () => {
    const [answer, ...others] = await ask(HOSTILE_ANSWER, false);
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
});
