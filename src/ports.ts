import type { IncomingMessage as HttpRequest, ServerResponse } from "node:http";

/**
 * Every shape the core and the adapters share, and nothing else: this file imports no module
 * of the project, so any part may depend on it without a cycle. Adapters (adapters/*) turn
 * platform events into an IncomingMessage, implement a ReplySurface over the platform API,
 * announce leads, and are run by main.ts as a Channel.
 */

/** Something a person wrote to the bot, in platform-neutral form. */
export interface IncomingMessage {
  /** The channel kind, for logs and metrics: "console", "slack", "telegram". */
  channel: string;
  /**
   * Unique per platform delivery: a redelivery of the same event carries the same id,
   * so it is answered once.
   */
  deliveryId: string;
  /** Scope of channel settings (the answer language), e.g. "slack:T1:C2". */
  channelKey: string;
  /** The platform's own id of the chat or channel, as allowlists name it. */
  channelId: string;
  /** Owner of one conversation with the chatbot (see DESIGN.md, threads). */
  threadKey: string;
  /** The platform's own id of the author, as allowlists and admin lists name it. */
  authorId: string;
  /** The text with the bot's own mention already removed. */
  text: string;
  /**
   * Words without a leading slash count as commands (`@bot language fr` in Slack), because
   * the person addressed the bot itself rather than asking the chatbot.
   */
  bareCommands?: boolean;
  /** Whether the author may administer this channel. Lazy: it can cost an API call. */
  isAdmin(): Promise<boolean>;
  /**
   * Fires when the person withdraws the question (Ctrl+C in the terminal): the answer stops
   * and ends with the text it had and the interrupted note.
   */
  signal?: AbortSignal;
  /**
   * Where the reply goes, as JSON the channel rebuilds a surface from in any process
   * (Channel.surfaceFor): with it, a question may be answered by another process of the
   * deployment (the shared answer queue). None for a surface only this process can reach
   * (the terminal).
   */
  replyPlace?: unknown;
}

/** A message the surface posted, as the surface needs it to edit it later. */
export type MessageRef = unknown;

/** How a surface turns the chatbot's Markdown and the bot's own notes into platform text. */
export interface Renderer {
  /**
   * Renders Markdown that may still be incomplete (an unclosed `**` or code fence): the
   * result must be valid for the platform on every prefix of an answer, and show text from
   * the backend as text (no mentions, no disguised links, no injected markup).
   */
  render(markdown: string): string;
  /** Renders a short note of the bot's own (a cut notice, an error) as plain, safe text. */
  note(text: string): string;
  /** How the platform counts a rendered text against its length limit. */
  measure(rendered: string): number;
}

/** Limits the reply engine keeps for one surface. */
export interface SurfaceLimits {
  /** Largest rendered text of one message, as Renderer.measure counts it. */
  maxMessageLength: number;
  /** Shortest time between two edits of this surface's messages. */
  minEditIntervalMs: number;
}

/**
 * A budget shared by several surfaces (all answers in one Slack workspace or one Telegram
 * group). `acquire` resolves when one more call may be made.
 */
export interface CallBudget {
  /**
   * `first`: an answer's first text, served before everything else. `urgent`: a final text or
   * a notice, served before routine edits. `final`: the call will carry a message's last state
   * (a platform may end a stream with another method).
   */
  acquire(options?: {
    first?: boolean;
    urgent?: boolean;
    final?: boolean;
    signal?: AbortSignal;
  }): Promise<void>;
  /**
   * Keeps `calls` of the budget for calls an answer will surely make (its first and final
   * texts): where the platform counts calls per window, other answers' routine edits leave
   * them. Returns a function that changes how many are kept (0 gives them back).
   */
  reserve?(calls: number): (calls: number) => void;
  /** The platform answered 429 for a call from this budget: hold every caller off for `ms`. */
  pause?(ms: number): void;
  /** True while a 429's wait is running: nothing at all should go to the platform. */
  readonly paused?: boolean;
}

export interface SendOptions {
  /**
   * The text will not change again: the last state of a message. Surfaces that stream
   * natively use it to end the stream or persist a draft; others can ignore it.
   */
  final: boolean;
  /**
   * What the rendered text was made from, when the reply engine knows it: surfaces whose
   * native stream takes Markdown (Slack's `chat.appendStream`) need it; others ignore it.
   */
  source?: MessageSource;
}

/**
 * The parts of one message before rendering: `rendered` is `render(markdown)`, followed by
 * `note(note)` (after a blank line when there is Markdown) when a note ends the message.
 */
export interface MessageSource {
  /** The chatbot's Markdown shown in this message ("" for a note alone). */
  markdown: string;
  /** A note of the bot's own ending the message (a placeholder, a cut notice), if any. */
  note?: string;
}

export interface NoticeOptions {
  /** Only the asker needs to see it (Slack ephemeral); surfaces without it post normally. */
  private?: boolean;
}

/**
 * Where one answer goes: a thread in Slack, a chat or topic in Telegram, the terminal.
 * `post` and `edit` throw RateLimitedError when the platform says to wait (the surface has
 * paused its budget for that long: one 429, one pause), and MessageGoneError when the message
 * to edit no longer exists.
 */
export interface ReplySurface {
  readonly renderer: Renderer;
  readonly limits: SurfaceLimits;
  /** Shared call budget this surface draws from, when the platform has one. */
  readonly budget?: CallBudget;
  post(rendered: string, options: SendOptions): Promise<MessageRef>;
  edit(ref: MessageRef, rendered: string, options: SendOptions): Promise<void>;
  /** A short message apart from the answer (command replies, system messages). */
  notice(rendered: string, options?: NoticeOptions): Promise<void>;
  /**
   * Shows a "working" sign that needs no message (Telegram's typing action, Slack's loading
   * status), asked again every few seconds until the first text shows. Surfaces without it
   * get a placeholder message instead, which the answer then replaces.
   */
  showTyping?(): Promise<void>;
  /**
   * The answer whose silence showTyping covered is over: a sign that would outlast it (one no
   * reply took down, when nothing could be posted) goes now.
   */
  stopTyping?(): Promise<void>;
  /**
   * True when the final state of message `ref` goes by a call that is no edit of it (Slack's
   * chat.stopStream, a Telegram draft sent for good): it waits for no edit interval.
   */
  endsWithoutEdit?(ref: MessageRef): boolean;
  /**
   * How soon message `ref` must be shown again, unchanged, or the platform drops it (a
   * Telegram draft lives 30 s); undefined for a message that stays.
   */
  refreshMs?(ref: MessageRef): number | undefined;
  /**
   * A JSON-serializable description of a message this surface posted and of where it is,
   * from which the channel can finish the message after the process died (Channel.reopen).
   * Called again after edits: a ref may change as the message does (a draft sent for good,
   * a stream started). Surfaces without it (a terminal) have nothing to finish after a kill.
   */
  persistRef?(ref: MessageRef): unknown;
}

/** A message of an earlier process, reopened on a surface that can edit it now. */
export interface ReopenedMessage {
  surface: ReplySurface;
  ref: MessageRef;
}

/** An endpoint a channel serves on the shared HTTP server (Slack events, Telegram webhook). */
export interface HttpRoute {
  method: "GET" | "POST";
  path: string;
  handler: (request: HttpRequest, response: ServerResponse) => void | Promise<void>;
}

/**
 * A chat platform connection as main.ts runs it. The adapter owns everything platform
 * specific; the process only starts it, stops it and asks whether it is healthy.
 */
export interface Channel {
  /** "slack", "telegram": for logs, metrics and /healthz. */
  readonly name: string;
  /** Endpoints to mount on the shared HTTP server before `start`. */
  readonly routes: readonly HttpRoute[];
  /** Connects (learns the bot's identity, opens the socket, starts polling, sets the webhook). */
  /** `signal` aborts when the process is asked to stop while it still starts: give up then. */
  start(signal?: AbortSignal): Promise<void>;
  /** Stops taking new deliveries; answers already running are the bridge's to finish. */
  stop(): Promise<void>;
  /** Why the channel cannot serve right now, or undefined while it can. */
  unhealthyReason(): string | undefined;
  /**
   * For a channel that ends of itself (the console, when its input ends or the person quits):
   * resolves once it has, its last answer complete, and the process then ends. A platform
   * channel runs until it is stopped and has none.
   */
  readonly done?: Promise<void>;
  /**
   * Rebuilds a surface and a message ref from what ReplySurface.persistRef saved in an earlier
   * process, so an answer that process left mid-stream can be finished. Undefined when the
   * saved value is not this channel's (or from an older shape it no longer reads).
   */
  reopen?(saved: unknown): ReopenedMessage | undefined;
  /**
   * The surface of a question this or another process received (IncomingMessage.replyPlace),
   * for the process that answers it. Undefined when the place is not this channel's.
   */
  surfaceFor?(replyPlace: unknown): ReplySurface | undefined;
}

/** A lead as the backend lists it (see the API's leads endpoint). */
export interface Lead {
  botUid: string;
  conversationUid: string;
  /** ISO 8601 with a UTC offset, as the backend sent it. */
  createdAt: string;
  name: string;
  phone: string;
  email: string;
  remark: string;
}

/**
 * Posts one lead announcement into a lead channel; implemented by each platform adapter,
 * which renders the lead for its platform (Slack blocks, Telegram HTML) as untrusted text.
 */
export interface LeadAnnouncer {
  readonly platform: string;
  announce(channelId: string, lead: Lead): Promise<void>;
}
