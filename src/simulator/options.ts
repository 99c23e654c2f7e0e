import type { SimLeadInput } from "./leads.ts";

/** Options of `startSimulator`; every one has a default suited to a person trying the bot. */
export interface SimulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The only key accepted as `Authorization: Bearer <apiKey>`. Default "sim-key". */
  apiKey?: string;
  /** The only bot uid the paths accept; others get 404. Default "sim-bot". */
  botUid?: string;
  /**
   * Several chatbots of one account (SIMULATOR_BOTS): the bot uids the paths accept, each with
   * leads and conversations of its own, answers that name it. Replaces `botUid`.
   */
  bots?: readonly string[];
  /** false: chat answers HTTP 403, as for an account without a paid subscription. Default true. */
  paidPlan?: boolean;
  /**
   * Pause between streamed chunks, in ms: a number or a [min, max] range drawn per chunk.
   * Default [10, 60]. Before the first text the simulator "thinks" for 4 × max.
   * Tests and benchmarks pass 0.
   */
  chunkDelayMs?: number | readonly [number, number];
  /** Characters per streamed chunk, drawn per chunk from [min, max]. Default [2, 16]. */
  chunkChars?: readonly [number, number];
  /**
   * Pause before and after a deliberate split (`#split-*`, `#cut`), even with no chunk
   * delay, so the pieces reach the client in separate reads. Default 25.
   */
  splitGapMs?: number;
  /** Leads at start: a number to generate, or a list. Default 25 generated. */
  leads?: number | readonly SimLeadInput[];
  /** Generated leads are spread evenly over this many days up to now. Default 14. */
  leadsSpanDays?: number;
  /** Add one new lead every this many ms (a trickle for the lead poll to find). Default 0: off. */
  leadEveryMs?: number;
  /** The largest page_size served; larger requests are capped and report the cap. Default 100. */
  maxPageSize?: number;
  /**
   * What `total` counts. The spec: "total is the number of leads of the chatbot, not the
   * number on the page", so by default every lead of the bot, whatever the date range.
   * "matching" counts the leads in the requested date range instead.
   */
  leadsTotal?: "all" | "matching";
  /** Order of the leads on the pages. Default newest first. */
  leadsOrder?: "newest-first" | "oldest-first";
  /** Name of the envelope's text field; the spec allows both. Default "msg". */
  envelopeTextField?: "msg" | "message";
  /**
   * A conversation_uid the simulator does not know: "new" (default) starts a new
   * conversation with a new id and says so in the answer; "error" answers code 1002.
   */
  unknownConversation?: "new" | "error";
  /** Conversations remembered before the least recently used is forgotten. Default 10,000. */
  maxConversations?: number;
  /**
   * A JSON file that keeps the conversations across restarts (the bot's built-in simulator
   * keeps it under DATA_DIR). Default: none, the conversations live in memory only.
   */
  conversationsFile?: string;
  /** Reading or writing `conversationsFile` failed; the simulator goes on without it. */
  onFileError?: (error: unknown) => void;
  /** Fault directives applied to every chat request, e.g. "#slow #docs". */
  faults?: string;
  /** Fault directives applied to every leads request, e.g. "#status=500". */
  leadsFaults?: string;
  /** Seed of the chunking randomness, so runs are repeatable. Default 1. */
  seed?: number;
  /** The clock; default the real one. */
  now?: () => Date;
}

/** Defaults of the options that a user of `npm run simulator` or a test may need to know. */
export const SIMULATOR_DEFAULTS = {
  host: "127.0.0.1",
  apiKey: "sim-key",
  botUid: "sim-bot",
  leads: 25,
  leadsSpanDays: 14,
  maxPageSize: 100,
  chunkDelayMs: [10, 60] as const,
  chunkChars: [2, 16] as const,
  splitGapMs: 25,
} as const;

/**
 * The bot uid the simulator serves a simulated chatbot under (SIMULATOR_BOTS): `sim-sales`
 * for "sales"; the one chatbot of a deployment that names none keeps `sim-bot`.
 */
export function simulatedBotUid(name: string): string {
  return name === "default" ? SIMULATOR_DEFAULTS.botUid : `sim-${name}`;
}

/** Envelope codes the simulator uses besides those asked for with `#code=N`. */
export const SIMULATOR_CODES = {
  ok: 0,
  invalidParameter: 1001,
  unknownConversation: 1002,
} as const;

export interface Timing {
  delay: readonly [number, number];
  chars: readonly [number, number];
  splitGapMs: number;
}

export function resolveTiming(options: SimulatorOptions): Timing {
  const delay = options.chunkDelayMs ?? SIMULATOR_DEFAULTS.chunkDelayMs;
  return {
    delay: typeof delay === "number" ? [delay, delay] : delay,
    chars: options.chunkChars ?? SIMULATOR_DEFAULTS.chunkChars,
    splitGapMs: options.splitGapMs ?? SIMULATOR_DEFAULTS.splitGapMs,
  };
}
