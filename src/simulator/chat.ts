import type { IncomingMessage } from "node:http";
import { z } from "zod";
import { composeAnswer, hugeAnswer, SIMULATED_DOCS, SIMULATED_SYSTEM_MESSAGE } from "./answers.ts";
import type { Random } from "./chunks.ts";
import type { Conversations } from "./conversations.ts";
import { type Faults, parseFaults } from "./faults.ts";
import { envelopeBody, type Reply, readBody, sendEnvelope } from "./http.ts";
import { isSupportedLanguage, resolveLanguage, SIMULATOR_LANGUAGE_CODES } from "./languages.ts";
import { SIMULATOR_CODES, type Timing } from "./options.ts";
import { applyLeadingFaults, type WriteContext, writeStream, writeWhole } from "./responses.ts";

/** A chat request as the simulator received it, for tests to check what a client sent. */
export interface ChatCall {
  q: string;
  conversationUid: string | undefined;
  language: string;
  stream: boolean;
}

export interface ChatDeps {
  conversations: Conversations;
  /** The bot asked, and its name in the answer when the simulator serves several. */
  bot: { uid: string; named: string | undefined };
  timing: Timing;
  random: Random;
  unknownConversation: "new" | "error";
  /** The server-wide and queued one-shot faults, under the question's own directives. */
  baseFaults(): Faults;
  onCall(call: ChatCall): void;
  /** `#lead`: the chatbot captured a lead in conversation `conversationUid` of bot `botUid`. */
  captureLead(botUid: string, conversationUid: string): void;
}

const MAX_BODY_BYTES = 1_048_576;

const chatBody = z.object({
  q: z.string({ error: "q is required: the question to pose, as a string" }),
  conversation_uid: z.string({ error: "conversation_uid must be a string" }).optional(),
  language: z.string({ error: "language must be a string" }).optional(),
  stream: z.boolean({ error: "stream must be true or false" }).optional(),
});

/**
 * POST …/chat. Problems with the request get HTTP 200 and code 1001 with a msg (the spec
 * names no codes); the answer comes whole or streamed as the request asks.
 */
export async function handleChat(
  deps: ChatDeps,
  reply: Reply,
  req: IncomingMessage,
): Promise<void> {
  const parsed = await parseChatRequest(req);
  if (!parsed.ok) {
    sendEnvelope(reply, SIMULATOR_CODES.invalidParameter, {}, parsed.msg);
    return;
  }
  const call = parsed.call;
  deps.onCall(call);
  const faults = { ...deps.baseFaults(), ...parseFaults(call.q) };
  const ctx: WriteContext = { reply, faults, timing: deps.timing, random: deps.random };
  if (await applyLeadingFaults(ctx)) return;

  const known =
    call.conversationUid === undefined ||
    deps.conversations.has(call.conversationUid, deps.bot.uid);
  if (!known && deps.unknownConversation === "error") {
    sendEnvelope(reply, SIMULATOR_CODES.unknownConversation, {}, "conversation not found");
    return;
  }
  const { uid, memory } = deps.conversations.ask(call.conversationUid, call.q, deps.bot.uid);
  const answer = faults.empty
    ? ""
    : faults.huge !== undefined
      ? hugeAnswer(faults.huge)
      : composeAnswer({
          question: call.q,
          language: resolveLanguage(call.language, call.q),
          memory,
          bot: deps.bot.named,
        });
  const systemMessage = faults.system ? SIMULATED_SYSTEM_MESSAGE : "";
  const docs = faults.docs ? SIMULATED_DOCS : [];

  if (call.stream) {
    const header = JSON.stringify({
      answer: "",
      question: call.q,
      related_docs: docs,
      conversation_uid: uid,
      is_qa_mode: docs.length > 0,
      system_message: systemMessage,
    });
    await writeStream(ctx, header, answer);
    if (faults.lead) deps.captureLead(deps.bot.uid, uid);
    return;
  }
  const data = {
    answer,
    conversation_uid: uid,
    is_qa_mode: docs.length > 0,
    question: call.q,
    system_message: systemMessage,
  };
  const body = JSON.stringify(envelopeBody(reply, SIMULATOR_CODES.ok, data, "success"));
  await writeWhole(ctx, body, true);
  if (faults.lead) deps.captureLead(deps.bot.uid, uid);
}

type Parsed = { ok: true; call: ChatCall } | { ok: false; msg: string };

async function parseChatRequest(req: IncomingMessage): Promise<Parsed> {
  const contentType = req.headers["content-type"] ?? "";
  const raw = await readBody(req, MAX_BODY_BYTES);
  // The spec's request Content-Type; a client that forgets it should find out here.
  if (!/^application\/json\b/i.test(contentType)) {
    return { ok: false, msg: "Content-Type must be application/json" };
  }
  if (raw === undefined) return { ok: false, msg: `body larger than ${MAX_BODY_BYTES} bytes` };
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch {
    return { ok: false, msg: "body is not valid JSON" };
  }
  const result = chatBody.safeParse(json);
  if (!result.success) {
    return { ok: false, msg: result.error.issues.map((issue) => issue.message).join("; ") };
  }
  const { q, conversation_uid, language = "auto", stream = false } = result.data;
  if (q.trim() === "") return { ok: false, msg: "q must not be empty" };
  if (!isSupportedLanguage(language)) {
    return {
      ok: false,
      msg: `unsupported language "${language}"; use one of: ${SIMULATOR_LANGUAGE_CODES.join(", ")}`,
    };
  }
  // An empty conversation_uid is read as none: a new conversation.
  const conversationUid = conversation_uid === "" ? undefined : conversation_uid;
  return { ok: true, call: { q, conversationUid, language, stream } };
}
