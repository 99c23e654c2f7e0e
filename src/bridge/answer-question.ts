import type { Chatbot, Chatbots } from "../backend/chatbots.ts";
import type { LanguageCode } from "../backend/languages.ts";
import type { StreamHeader } from "../backend/types.ts";
import { type RunningAnswer, stopNote } from "../coordination/answer-stops.ts";
import { AnswerCutError, AnswerStoppedError, BridgeError, userTextOf } from "../errors.ts";
import type { FeedbackVotes, RatedAnswer } from "../feedback/votes.ts";
import type { UserText } from "../i18n/messages.ts";
import type { Translator } from "../i18n/translator.ts";
import type { Logger } from "../log.ts";
import type { IncomingMessage, ReplySurface } from "../ports.ts";
import type { AnswerEnd, AnswerWriter } from "../reply/answer-writer.ts";
import { stripInvisible } from "../reply/invisible-chars.ts";
import { sendNotice } from "../reply/notice.ts";
import { Conversations, conversationOrigin, type ThreadContext } from "../store/repositories.ts";
import { backendCallTrace } from "../tracing.ts";
import { stopButton, voteButtons } from "./answer-buttons.ts";
import { formatSources } from "./sources.ts";

export interface AnswerDeps {
  /** The deployment's chatbots: a thread's conversation stays with the one it began with. */
  chatbots: Chatbots;
  conversations: Conversations;
  log: Logger;
  defaultLanguage: LanguageCode;
  /** Makes each answer ratable (👍/👎 under it). */
  votes?: FeedbackVotes;
}

export interface AnswerReport {
  end: AnswerEnd["kind"];
  /** The chatbot that answered (its name in CHATBOTS). */
  chatbot: string;
  /** The conversation the answer is part of, once the backend named one. */
  conversationUid: string | undefined;
  /** The failure's code (BridgeError.code) when the answer did not complete. */
  errorCode: string | undefined;
  firstTextMs: number | undefined;
  totalMs: number;
  messages: number;
  calls: number;
}

/**
 * Streams the chatbot's answer to one question through its writer onto a surface: reads the
 * thread's context, asks the backend, keeps the thread's conversation as soon as the header
 * names it, and ends with the complete answer, the cut text with a note, or the readable
 * error. The surface takes the backend's system message as a notice.
 */
export async function answerQuestion(
  deps: AnswerDeps,
  message: IncomingMessage,
  writer: AnswerWriter,
  surface: ReplySurface,
  options: {
    signal?: AbortSignal;
    /** When the message arrived (performance.now()); durations count from here. */
    receivedAt?: number;
    /** The language of the bot's own notes (the cut note, an error). */
    t: Translator;
    /** The answer as its stops know it (`/stop`, the Stop button): its question's life holds it. */
    running?: RunningAnswer | undefined;
    /** The thread's conversation and the channel's language, read once its turn came. */
    context: ThreadContext;
    /** What the chatbot receives, when not the message's text (a first question's discussion). */
    question?: Promise<string> | undefined;
  },
): Promise<AnswerReport> {
  const started = options.receivedAt ?? performance.now();
  let errorCode: string | undefined;
  const askedAt = new Date();
  const { running } = options;
  if (running) writer.setButtons({ live: [stopButton(running.id, options.t)], final: [] });
  writer.start();
  // One signal per answer: stopped by the person withdrawing the question, by `/stop` or by
  // the process shutting down (the answer's cap ends the reading by the text sink's false).
  // Listeners are removed at the end, not AbortSignal.any: on Node 20 that leaks per answer.
  const stop = new AbortController();
  const stoppers = [options.signal, message.signal, running?.signal].filter((s) => s !== undefined);
  const stopWith = (event: Event) => stop.abort((event.target as AbortSignal).reason);
  for (const stopper of stoppers) {
    if (stopper.aborted) stop.abort(stopper.reason);
    else stopper.addEventListener("abort", stopWith, { once: true });
  }
  const signal = stop.signal;
  let end: AnswerEnd = { kind: "complete" };
  let saving: Promise<void> | undefined;
  /** The conversation the answer belongs to, as its votes are recorded with it. */
  let conversationUid: string | undefined;
  const { context } = options;
  const asked = chatbotFor(deps.chatbots, context);
  const { chatbot } = asked;
  const call = backendCallTrace(chatbot.name);
  try {
    conversationUid = asked.conversationUid;
    let header: StreamHeader | undefined;
    await chatbot.client.streamChat(
      {
        question: (await options.question) ?? message.text,
        conversationUid: asked.conversationUid,
        language: context.language ?? deps.defaultLanguage,
        signal,
      },
      {
        header: (received) => {
          call.firstByte();
          header = received;
          if (received.conversationUid === undefined) {
            deps.log.warn(
              "the chatbot's answer named no conversation: the thread keeps its previous one",
            );
          } else {
            conversationUid = received.conversationUid;
            // Saved at once, not after the answer: a cut answer still keeps the thread's context.
            if (Conversations.needsSaving(context, received.conversationUid, chatbot.botUid)) {
              const origin = conversationOrigin(message, options.t.language);
              saving = deps.conversations
                .save(message.threadKey, received.conversationUid, chatbot.botUid, origin)
                .catch((error: unknown) =>
                  deps.log.error({ err: error }, "could not store the thread's conversation"),
                );
            } else deps.conversations.inUse(message.threadKey, context);
          }
          const systemMessage = stripInvisible(received.systemMessage).trim();
          if (!systemMessage) return;
          // The system message shows before the answer: the answer's text and end wait for it.
          writer.after(
            sendNotice(surface, systemMessage).catch((error: unknown) =>
              deps.log.warn({ err: error }, "system message not shown"),
            ),
          );
        },
        text: (text) => {
          call.received(text);
          return writer.append(text);
        },
      },
    );
    const sources = header ? formatSources(header.relatedDocs) : "";
    if (sources && writer.text) writer.append(sources);
  } catch (error) {
    if (signal.reason instanceof AnswerStoppedError) {
      const { byName: name, tookOver } = signal.reason;
      end = { kind: "stopped", note: stopNote(options.t, { name, tookOver }) };
    } else {
      const named = deps.chatbots.several ? chatbot.name : undefined;
      ({ end, errorCode } = failed(error, writer.text.length > 0, deps.log, options.t, named));
    }
  }
  call.end(end.kind === "error" ? (errorCode ?? "error") : end.kind);
  for (const stopper of stoppers) stopper.removeEventListener("abort", stopWith);
  let remembering: Promise<void> | undefined;
  if (running && deps.votes && end.kind !== "error" && writer.text) {
    const rated: RatedAnswer = {
      platform: message.channel,
      channelKey: message.channelKey,
      conversationUid,
      chatbot: chatbot.name,
      questionAt: askedAt.toISOString(),
    };
    remembering = offerVotes(deps.votes, running.id, rated, writer, deps.log);
  }
  // The final text first: the store's bookkeeping waits for no person. The thread's next
  // question still finds its conversation saved (this returns after `saving`).
  const summary = await writer.finish(end);
  await Promise.all([saving, remembering]);
  return {
    end: summary.truncated ? "cut" : end.kind,
    chatbot: chatbot.name,
    conversationUid,
    errorCode,
    firstTextMs: summary.firstTextAt === undefined ? undefined : summary.firstTextAt - started,
    totalMs: performance.now() - started,
    messages: summary.messages,
    calls: summary.calls,
  };
}

/** 👍/👎 under the finished answer, and the record its votes are checked against. */
async function offerVotes(
  votes: FeedbackVotes,
  answerId: string,
  rated: RatedAnswer,
  writer: AnswerWriter,
  log: Logger,
): Promise<void> {
  // The buttons go with the final text at once; a press comes seconds later, long after
  // the record is stored.
  writer.setButtons({ live: [], final: voteButtons(answerId) });
  try {
    await votes.remember(answerId, rated);
  } catch (error) {
    log.warn({ err: error }, "the answer cannot be rated: its record was not stored");
  }
}

/**
 * Which chatbot answers, and in which conversation: the thread's own, with the chatbot it
 * began with; else a new one with the channel's chatbot (`/chatbot use`), or the default. A
 * conversation whose chatbot is no longer configured gives way to a new one.
 */
function chatbotFor(
  chatbots: Chatbots,
  context: ThreadContext,
): { chatbot: Chatbot; conversationUid: string | undefined } {
  const ongoing = context.conversationUid && chatbots.ofRecord(context.conversationBot);
  if (ongoing) return { chatbot: ongoing, conversationUid: context.conversationUid };
  return {
    chatbot: chatbots.named(context.chatbot) ?? chatbots.default,
    conversationUid: undefined,
  };
}

/**
 * How a failed answer ends, and its failure's code; logs what no one else does (a chatbot the
 * backend refuses is told to the operator by its client: src/backend/refusal.ts). With
 * several chatbots, `named` says whose answer failed, to the person.
 */
function failed(
  error: unknown,
  hadText: boolean,
  log: Logger,
  t: Translator,
  named: string | undefined,
): { end: AnswerEnd; errorCode: string } {
  const cause = error instanceof AnswerCutError ? error.reason : error;
  const errorCode = cause instanceof BridgeError ? cause.code : "UNEXPECTED";
  if (!(error instanceof BridgeError)) log.error({ err: error }, "answer failed");
  return { end: endFor(error, hadText, t, named), errorCode };
}

function endFor(
  error: unknown,
  hadText: boolean,
  t: Translator,
  named: string | undefined,
): AnswerEnd {
  const reason = userTextOf(error);
  if (error instanceof AnswerCutError || hadText) {
    const cut: UserText =
      error instanceof AnswerCutError ? reason : { key: "answerCut", values: { reason } };
    return { kind: "cut", note: t.t("failed", { reason: cut }) };
  }
  // No answer at all: whose, where the channel's people may not know which chatbot it has.
  const said: UserText = named
    ? { key: "chatbotFailed", values: { chatbot: named, reason } }
    : reason;
  return { kind: "error", note: t.t("failed", { reason: said }) };
}
