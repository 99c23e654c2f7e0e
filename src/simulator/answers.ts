import type { ResolvedLanguage } from "./languages.ts";

/** What the simulated bot remembers of the conversation when it answers. */
export interface Memory {
  /** 1 for the first question of a conversation. */
  turn: number;
  firstQuestion: string | undefined;
  previousQuestion: string | undefined;
  /** The request named a conversation the simulator does not know (e.g. after a restart). */
  forgotten: boolean;
}

export interface AnswerInput {
  question: string;
  language: ResolvedLanguage;
  memory: Memory;
  /** The bot's uid where the simulator serves several, so people see which one answered. */
  bot?: string | undefined;
}

/**
 * The simulated answer: Markdown with bold, italics, inline code, a list, a link and a code
 * block, non-ASCII text, the language it answers in, and what it remembers of the
 * conversation, so every part of a renderer and of the thread mapping gets exercised.
 */
export function composeAnswer({ question, language, memory, bot }: AnswerInput): string {
  const how = language.detected ? ", detected from your question" : "";
  const which = bot === undefined ? "" : ` \`${bot}\``;
  return [
    `${language.greeting} **This is the simulated chatbot${which}.** _Answering in ${language.name} (${language.code})${how}._`,
    `You asked: “${quote(question)}”`,
    describeMemory(memory),
    "Here is a made-up answer that shows the formatting a real chatbot may send:",
    [
      "- **Bold**, _italic_ and `inline code`",
      "- A link to [the Chatbot Backend API](https://example.com/docs/chatbot-backend-api)",
      "- Text beyond ASCII: café, naïve, 你好, 😀",
    ].join("\n"),
    ["```ts", 'const answer = await chatbot.ask("What can you do?");', "```"].join("\n"),
    "Put `#docs`, `#system`, `#huge=5000` or `#cut` in a question to see more.",
  ].join("\n\n");
}

function describeMemory(memory: Memory): string {
  const lines: string[] = [];
  if (memory.forgotten) {
    lines.push(
      "I do not know that conversation (the simulator may have restarted), so this starts a new one.",
    );
  }
  if (memory.turn === 1) {
    lines.push("This is the first question in our conversation.");
  } else {
    lines.push(`This is question ${memory.turn} in our conversation.`);
    if (memory.firstQuestion !== undefined) {
      lines.push(`You first asked: “${quote(memory.firstQuestion)}”`);
    }
    if (memory.previousQuestion !== undefined && memory.turn > 2) {
      lines.push(`Just before this you asked: “${quote(memory.previousQuestion)}”`);
    }
  }
  return lines.join("\n");
}

// Questions are echoed on one line so a long or multi-line one cannot swamp the answer.
function quote(text: string): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > 200 ? `${oneLine.slice(0, 199)}…` : oneLine;
}

const FILLER =
  "The simulated chatbot writes this paragraph to fill a long answer. It has plain words, " +
  "a few numbers like 42 and 1,000, and sentences of ordinary length, so that splitting an " +
  "answer into messages can be checked at paragraph and sentence boundaries. ";

/** An answer of exactly `length` characters (ASCII, so bytes, code units and code points agree). */
export function hugeAnswer(length: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let n = 1; size < length; n++) {
    const paragraph = `Paragraph ${n}. ${FILLER.repeat(1 + (n % 4)).trimEnd()}\n\n`;
    parts.push(paragraph);
    size += paragraph.length;
  }
  return parts.join("").slice(0, length);
}

/** The related_docs items sent with `#docs` (the spec leaves the element shape open). */
export const SIMULATED_DOCS = [
  { title: "Getting started", url: "https://example.com/docs/getting-started" },
  { title: "Pricing and plans", url: "https://example.com/docs/pricing" },
] as const;

/** The system_message sent with `#system`. */
export const SIMULATED_SYSTEM_MESSAGE =
  "Simulated notice: this account has used 90% of its monthly messages.";
