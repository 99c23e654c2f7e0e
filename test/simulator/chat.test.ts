import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SIMULATED_DOCS, SIMULATED_SYSTEM_MESSAGE } from "../../src/simulator/index.ts";
import { auth, chat, chatJson, joined, parseStream, readChunks, simulator } from "./helpers.ts";

const LANGUAGES: [string, string][] = [
  ["en", "English"],
  ["fr", "French"],
  ["es", "Spanish"],
  ["ru", "Russian"],
  ["zh-Hans", "Simplified Chinese"],
  ["zh-Hant", "Traditional Chinese"],
  ["ar", "Arabic"],
  ["de", "German"],
  ["jp", "Japanese"],
  ["pt", "Portuguese"],
  ["hi", "Hindi"],
  ["ko", "Korean"],
  ["it", "Italian"],
  ["uk", "Ukrainian"],
];

describe("simulator: chat", () => {
  it("answers a non-streaming question with the Chat answer fields", async () => {
    const sim = await simulator();
    const { status, headers, body } = await chatJson(sim, { q: "What is this?" });
    expect(status).toBe(200);
    expect(headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(body.code).toBe(0);
    expect(body.msg).toBe("success");
    expect(Object.keys(body.data).sort()).toEqual([
      "answer",
      "conversation_uid",
      "is_qa_mode",
      "question",
      "system_message",
    ]);
    expect(body.data.question).toBe("What is this?");
    expect(body.data.is_qa_mode).toBe(false);
    expect(body.data.system_message).toBe("");
    expect(body.data.conversation_uid).toMatch(/^[0-9a-f-]{36}$/);
    const answer: string = body.data.answer;
    expect(answer).toContain(
      "Hello! **This is the simulated chatbot.** _Answering in English (en), detected from your question._",
    );
    expect(answer).toContain("You asked: “What is this?”");
    expect(answer).toContain("This is the first question in our conversation.");
    expect(answer).toContain("- **Bold**, _italic_ and `inline code`");
    expect(answer).toContain(
      "[the Chatbot Backend API](https://example.com/docs/chatbot-backend-api)",
    );
    expect(answer).toContain('```ts\nconst answer = await chatbot.ask("What can you do?");\n```');
  });

  it("streams the header, the delimiter, then the answer in several pieces", async () => {
    // A small delay, so the pieces reach the client as separate reads.
    const sim = await simulator({ chunkDelayMs: [1, 3] });
    const res = await chat(sim, { q: "Stream it", language: "fr", stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const { chunks, error } = await readChunks(res);
    expect(error).toBeUndefined();
    expect(chunks.length).toBeGreaterThan(3);
    const { header, answer } = parseStream(joined(chunks));
    expect(Object.keys(header)).toEqual([
      "answer",
      "question",
      "related_docs",
      "conversation_uid",
      "is_qa_mode",
      "system_message",
    ]);
    expect(header).toMatchObject({
      answer: "",
      question: "Stream it",
      related_docs: [],
      is_qa_mode: false,
      system_message: "",
    });
    expect(
      answer.startsWith("Bonjour ! **This is the simulated chatbot.** _Answering in French (fr)._"),
    ).toBe(true);
    expect(answer.endsWith("to see more.")).toBe(true);
    expect(sim.conversationTurns(header.conversation_uid as string)).toBe(1);
  });

  it("continues a conversation with the uid it returned, and remembers the questions", async () => {
    const sim = await simulator();
    const first = await chatJson(sim, { q: "First question" });
    const uid: string = first.body.data.conversation_uid;
    const second = await chatJson(sim, { q: "Second question", conversation_uid: uid });
    expect(second.body.data.conversation_uid).toBe(uid);
    expect(second.body.data.answer).toContain(
      "This is question 2 in our conversation.\nYou first asked: “First question”",
    );

    const res = await chat(sim, { q: "Third question", conversation_uid: uid, stream: true });
    const { header, answer } = parseStream(joined((await readChunks(res)).chunks));
    expect(header.conversation_uid).toBe(uid);
    expect(answer).toContain(
      "This is question 3 in our conversation.\nYou first asked: “First question”\nJust before this you asked: “Second question”",
    );
    expect(sim.conversationTurns(uid)).toBe(3);

    const other = await chatJson(sim, { q: "Elsewhere" });
    expect(other.body.data.conversation_uid).not.toBe(uid);
  });

  it("starts a new conversation, and says so, for a uid it does not know", async () => {
    const sim = await simulator();
    const reply = await chatJson(sim, { q: "Hello again", conversation_uid: "made-up" });
    expect(reply.body.code).toBe(0);
    expect(reply.body.data.conversation_uid).not.toBe("made-up");
    expect(reply.body.data.answer).toContain("I do not know that conversation");
    expect(reply.body.data.answer).toContain("This is the first question in our conversation.");

    const uid: string = reply.body.data.conversation_uid;
    sim.forgetConversations();
    expect(sim.conversationTurns(uid)).toBeUndefined();
  });

  it("keeps its conversations in conversationsFile across a restart", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "sim-")), "data", "conversations.json");
    const before = await simulator({ conversationsFile: file });
    const uid: string = (await chatJson(before, { q: "Before the restart" })).body.data
      .conversation_uid;
    await before.close();

    const after = await simulator({ conversationsFile: file });
    const reply = await chatJson(after, { q: "After it", conversation_uid: uid });
    expect(reply.body.data.conversation_uid).toBe(uid);
    expect(reply.body.data.answer).toContain(
      "This is question 2 in our conversation.\nYou first asked: “Before the restart”",
    );
  });

  it("reports a damaged conversationsFile and starts with no conversation", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "sim-")), "conversations.json");
    await writeFile(file, "{not json");
    const problems: unknown[] = [];
    const sim = await simulator({ conversationsFile: file, onFileError: (e) => problems.push(e) });
    const reply = await chatJson(sim, { q: "Hello", conversation_uid: "lost" });
    expect(reply.body.data.answer).toContain("I do not know that conversation");
    expect(problems).toHaveLength(1);
    await sim.close();
    // The file is whole again: the conversation just started is kept.
    const saved = JSON.parse(await readFile(file, "utf8"));
    expect(saved.conversations[0][0]).toBe(reply.body.data.conversation_uid);
  });

  it("refuses an unknown uid with code 1002 when configured to", async () => {
    const sim = await simulator({ unknownConversation: "error" });
    const reply = await chatJson(sim, { q: "Hello", conversation_uid: "made-up" });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ code: 1002, data: {}, msg: "conversation not found" });
  });

  it.each(LANGUAGES)("accepts language %s and answers in %s", async (code, name) => {
    const sim = await simulator();
    const reply = await chatJson(sim, { q: "Hi", language: code });
    expect(reply.body.code).toBe(0);
    expect(reply.body.data.answer).toContain(`_Answering in ${name} (${code})._`);
  });

  it("detects the language under auto from the question's script", async () => {
    const sim = await simulator();
    const reply = await chatJson(sim, { q: "Привет, как дела?", language: "auto" });
    expect(reply.body.data.answer).toContain(
      "Здравствуйте! **This is the simulated chatbot.** _Answering in Russian (ru), detected from your question._",
    );
  });

  it.each(["xx", "EN", "zh", "fr-FR", ""])(
    "rejects language %j with code 1001",
    async (language) => {
      const sim = await simulator();
      const reply = await chatJson(sim, { q: "Hi", language });
      expect(reply.status).toBe(200);
      expect(reply.body.code).toBe(1001);
      expect(reply.body.msg).toBe(
        `unsupported language "${language}"; use one of: auto, en, fr, es, ru, zh-Hans, zh-Hant, ar, de, jp, pt, hi, ko, it, uk`,
      );
    },
  );

  it.each([
    [{}, "q is required: the question to pose, as a string"],
    [{ q: 42 }, "q is required: the question to pose, as a string"],
    [{ q: "   " }, "q must not be empty"],
    [{ q: "hi", stream: "yes" }, "stream must be true or false"],
    [{ q: "hi", conversation_uid: 7 }, "conversation_uid must be a string"],
    ["{not json", "body is not valid JSON"],
  ])("rejects the body %j with code 1001", async (body, msg) => {
    const sim = await simulator();
    const reply = await chatJson(sim, body);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ code: 1001, data: {}, msg });
  });

  it("rejects a body sent without Content-Type application/json", async () => {
    const sim = await simulator();
    const res = await chat(sim, '{"q":"hi"}', {
      headers: { ...auth(), "content-type": "text/plain" },
    });
    expect(await res.json()).toMatchObject({
      code: 1001,
      msg: "Content-Type must be application/json",
    });
  });

  it("answers validation errors of a streaming request as a JSON envelope", async () => {
    const sim = await simulator();
    const res = await chat(sim, { q: "", stream: true });
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await res.json()).toMatchObject({ code: 1001, msg: "q must not be empty" });
  });

  it("sends related_docs and a system_message only when asked", async () => {
    const sim = await simulator();
    const res = await chat(sim, { q: "Docs please #docs #system", stream: true });
    const { header } = parseStream(joined((await readChunks(res)).chunks));
    expect(header.related_docs).toEqual(SIMULATED_DOCS);
    expect(header.related_docs).toEqual([
      { title: "Getting started", url: "https://example.com/docs/getting-started" },
      { title: "Pricing and plans", url: "https://example.com/docs/pricing" },
    ]);
    expect(header.is_qa_mode).toBe(true);
    expect(header.system_message).toBe(SIMULATED_SYSTEM_MESSAGE);

    const plain = await chatJson(sim, { q: "#system" });
    expect(plain.body.data.system_message).toBe(
      "Simulated notice: this account has used 90% of its monthly messages.",
    );
  });
});
