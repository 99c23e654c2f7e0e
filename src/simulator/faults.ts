/**
 * Fault directives: words in a question (or a server-wide default) that make the simulator
 * misbehave on purpose, so tests and a person at the terminal can trigger the failures a
 * real backend may show. A directive is `#name` or `#name=value`, anywhere in the text,
 * case-insensitive; words that are not directives (`#1 priority`) are left alone.
 *
 *   #status=N         answer with HTTP status N (400–599) instead of 200
 *   #code=N           HTTP 200 with envelope code N (not 0), also when stream=true
 *   #delay=MS         wait MS ms before sending the response headers
 *   #stall-headers    never send the response headers (until the client goes away)
 *   #cut              destroy the socket half-way through the answer
 *   #stall            stop half-way through the answer and never finish
 *   #pause=MS         stop half-way for MS ms, then finish normally
 *   #split-delimiter  the stream delimiter arrives split across two writes
 *   #split-header     the stream's JSON header arrives in three writes
 *   #split-utf8       multi-byte characters arrive split across writes
 *   #no-delimiter     the stream has no delimiter: JSON header, then text
 *   #bad-header       the stream's JSON header (or a whole JSON body) is malformed
 *   #huge=N           an answer of exactly N characters, in paragraphs
 *   #empty            an empty answer
 *   #system           a non-empty system_message
 *   #docs             related_docs with two items, and is_qa_mode true
 *   #lead             the chatbot captures a lead in this conversation as the answer ends
 *   #slow             150–600 ms between chunks
 *   #fast             no delay between chunks
 */

export interface Faults {
  status?: number;
  code?: number;
  delayMs?: number;
  stallHeaders?: boolean;
  cut?: boolean;
  stall?: boolean;
  pauseMs?: number;
  splitDelimiter?: boolean;
  splitHeader?: boolean;
  splitUtf8?: boolean;
  noDelimiter?: boolean;
  badHeader?: boolean;
  huge?: number;
  empty?: boolean;
  system?: boolean;
  docs?: boolean;
  lead?: boolean;
  speed?: "slow" | "fast";
}

/** Every directive with what it does; docs/chatbot.md and the simulator CLI list these. */
export const FAULT_DIRECTIVES = [
  { directive: "#status=N", effect: "HTTP status N (400–599) instead of 200" },
  { directive: "#code=N", effect: "HTTP 200 with envelope code N (not 0), also when streaming" },
  { directive: "#delay=MS", effect: "wait MS ms before sending the response headers" },
  { directive: "#stall-headers", effect: "never send the response headers" },
  { directive: "#cut", effect: "destroy the connection half-way through the answer" },
  { directive: "#stall", effect: "stop half-way through the answer and never finish" },
  { directive: "#pause=MS", effect: "stop half-way for MS ms, then finish" },
  { directive: "#split-delimiter", effect: "the stream delimiter arrives in two writes" },
  { directive: "#split-header", effect: "the stream's JSON header arrives in three writes" },
  { directive: "#split-utf8", effect: "multi-byte characters arrive split across writes" },
  { directive: "#no-delimiter", effect: "the stream has no delimiter" },
  { directive: "#bad-header", effect: "malformed JSON header (or malformed JSON body)" },
  { directive: "#huge=N", effect: "an answer of exactly N characters, in paragraphs" },
  { directive: "#empty", effect: "an empty answer" },
  { directive: "#system", effect: "a non-empty system_message" },
  { directive: "#docs", effect: "related_docs with two items, is_qa_mode true" },
  { directive: "#lead", effect: "a lead captured in this conversation as the answer ends" },
  { directive: "#slow", effect: "150–600 ms between chunks" },
  { directive: "#fast", effect: "no delay between chunks" },
] as const;

// A huge answer is built in memory; this keeps a typo from asking for gigabytes.
const MAX_HUGE = 20_000_000;
const MAX_WAIT_MS = 600_000;

const DIRECTIVE = /(?<![\w#])#([a-z][a-z0-9-]*)(?:=(\d+))?(?![\w-])/gi;

/** Reads the directives in `text`; unknown names and out-of-range numbers are ignored. */
export function parseFaults(text: string): Faults {
  const faults: Faults = {};
  for (const match of text.matchAll(DIRECTIVE)) {
    const name = (match[1] ?? "").toLowerCase();
    const value = match[2] === undefined ? undefined : Number(match[2]);
    applyDirective(faults, name, value);
  }
  return faults;
}

function applyDirective(faults: Faults, name: string, value: number | undefined): void {
  switch (name) {
    case "status":
      if (value !== undefined && value >= 400 && value <= 599) faults.status = value;
      return;
    case "code":
      if (value !== undefined && value !== 0) faults.code = value;
      return;
    case "delay":
      if (value !== undefined) faults.delayMs = Math.min(value, MAX_WAIT_MS);
      return;
    case "pause":
      if (value !== undefined) faults.pauseMs = Math.min(value, MAX_WAIT_MS);
      return;
    case "huge":
      if (value !== undefined) faults.huge = Math.min(value, MAX_HUGE);
      return;
    case "stall-headers":
      faults.stallHeaders = true;
      return;
    case "cut":
      faults.cut = true;
      return;
    case "stall":
      faults.stall = true;
      return;
    case "split-delimiter":
      faults.splitDelimiter = true;
      return;
    case "split-header":
      faults.splitHeader = true;
      return;
    case "split-utf8":
      faults.splitUtf8 = true;
      return;
    case "no-delimiter":
      faults.noDelimiter = true;
      return;
    case "bad-header":
      faults.badHeader = true;
      return;
    case "empty":
      faults.empty = true;
      return;
    case "system":
      faults.system = true;
      return;
    case "docs":
      faults.docs = true;
      return;
    case "lead":
      faults.lead = true;
      return;
    case "slow":
      faults.speed = "slow";
      return;
    case "fast":
      faults.speed = "fast";
      return;
    default:
      return;
  }
}

/** Later layers win: server default, then a queued one-shot fault, then the question's own. */
export function mergeFaults(...layers: readonly (Faults | undefined)[]): Faults {
  return Object.assign({}, ...layers.filter((layer) => layer !== undefined));
}
