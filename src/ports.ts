import type { IncomingMessage as HttpRequest, ServerResponse } from "node:http";

/**
 * Every shape the core and the adapters share, and nothing else: this file imports no module
 * of the project, so any part may depend on it without a cycle. Adapters (adapters/*) turn
 * platform events into an IncomingMessage, implement a ReplySurface over the platform API,
 * announce leads, and are run by main.ts as a Channel.
 */

/**
 * Whether the deployment trusts a person with the whole bot, wherever they write: listed in
 * SLACK_ADMIN_USERS / TELEGRAM_ADMIN_USERS, or an admin or owner of the Slack workspace (not a
 * Slack Connect guest). Unlike isAdmin, an administrator or the creator of one chat, or a
 * private chat's own person, is not one by that alone: anyone can create a Telegram group or
 * talk to the bot. It decides what concerns the company's leads (which chats get them, who
 * frees another's lead). Lazy: it can cost an API call. Absent: nobody is.
 */
export type BotAdminCheck = () => Promise<boolean>;

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
  /**
   * Owner of one conversation with the chatbot (docs/slack.md, "What people see"; docs/telegram.md,
   * "What the bot answers").
   */
  threadKey: string;
  /** The platform's own id of the author, as allowlists and admin lists name it. */
  authorId: string;
  /**
   * The author's name as the platform shows it (a display name), when the delivery carries
   * one: untrusted text, for notes such as "stopped by …".
   */
  authorName?: string | undefined;
  /**
   * The author administers the whole bot (listed in SLACK_ADMIN_USERS / TELEGRAM_ADMIN_USERS)
   * and writes in a direct chat with it: commands there may show every channel's records.
   */
  adminOfAll?: boolean;
  /**
   * The chat is one person's with the bot (a Slack DM, a private Telegram chat), where a new
   * message may start a thread of its own: a hand-over of one of its threads covers it all.
   */
  direct?: boolean;
  /** The text with the bot's own mention already removed. */
  text: string;
  /**
   * Words without a leading slash count as commands (`@bot language fr` in Slack), because
   * the person addressed the bot itself rather than asking the chatbot.
   */
  bareCommands?: boolean;
  /**
   * Every text is a question, a leading slash too: the person writes where commands are
   * another's (a customer in a Telegram Business chat, where they are the account owner's).
   */
  questionsOnly?: boolean;
  /**
   * The place takes one reply only (a Telegram guest query): with no room for its answer now,
   * the question is refused as busy, never queued behind a notice that would spend the reply.
   */
  oneReply?: boolean;
  /**
   * How a person types a command here, by its word, where that is not `/word` (Slack's help
   * is the slash command `/chatbot-help`; its new and stop are messages to the bot in the
   * thread): `/help` lists the commands as this platform takes them.
   */
  commandSpellings?: Readonly<Record<string, string>>;
  /** Whether the author may administer this channel. Lazy: it can cost an API call. */
  isAdmin(): Promise<boolean>;
  /** Whether the deployment trusts the author with the company's leads (see BotAdminCheck). */
  isBotAdmin?: BotAdminCheck;
  /**
   * The author's own language as the platform tells it (Telegram's `language_code`, Slack's
   * user locale, the console's system locale), for the bot's own texts where the channel has
   * no language set. Lazy: it can cost an API call. Undefined when the platform does not say.
   */
  authorLocale?(): Promise<string | undefined>;
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
  /**
   * The discussion the question was asked in (a Slack thread's earlier messages, the Telegram
   * message it replies to), asked only for the first question of a conversation (docs/chatbot.md,
   * "What the chatbot receives"). At most `maxMessages`, the latest; `signal` aborts once the
   * answer will wait no longer. Lazy: it can cost API calls. Throws when the platform refuses.
   */
  discussion?(maxMessages: number, signal: AbortSignal): Promise<Discussion | undefined>;
  /**
   * Where the conversation is, as JSON only this channel reads (LeadAnnouncer.describeOrigin),
   * with the person's name in a private chat only: kept with the conversation, so that a lead
   * captured in it says where it happened.
   */
  origin?: unknown;
  /**
   * Shows on the message that the bot carried it where it was meant (Slack: a ✅ reaction;
   * Telegram: 👌): a seller's line in a hand-over reached the customer.
   */
  markDelivered?(): Promise<void>;
}

/** Earlier messages a question was asked among, oldest first (IncomingMessage.discussion). */
export interface Discussion {
  /** "thread": a thread's earlier messages; "reply": the message (or the part of it) replied to. */
  kind: "thread" | "reply";
  messages: readonly EarlierMessage[];
}

/** One message of a Discussion, as a person reads it. */
export interface EarlierMessage {
  /** Its author's name as the platform shows it: untrusted text. */
  author: string;
  /** Its text as plain text: mentions of people as their names, the bot's own removed. */
  text: string;
}

/** A message the surface posted, as the surface needs it to change it later. */
export type MessageRef = unknown;

/**
 * The parts of one message before rendering: the chatbot's Markdown it shows and, when a note
 * of the bot's own ends it, that note (after a blank line when there is Markdown).
 */
export interface MessageSource {
  /** The chatbot's Markdown shown in this message ("" for a note alone). */
  markdown: string;
  /** A note of the bot's own ending the message (a placeholder, a cut notice), if any. */
  note?: string;
}

/**
 * How a channel turns the chatbot's Markdown and the bot's own notes into platform text. The
 * reply engine owns one answer's rendering: it calls these once per text it sends, and the
 * surface sends what it was given.
 */
export interface Renderer {
  /**
   * Renders a message's whole Markdown, the way it stays: the result must be valid for the
   * platform on every prefix of an answer, and show text from the backend as text (no
   * mentions, no disguised links, no injected markup).
   */
  render(markdown: string): string;
  /**
   * Renders the Markdown of a message that is still growing: may leave out an unsettled end
   * (a half-written `**bold` or link) that would flash as raw markup. `render` when absent.
   */
  interim?(markdown: string): string;
  /**
   * A renderer for one message shown as a native stream (see ReplySurface.canStream): the
   * platform appends what it is sent, so each text extends the one before.
   */
  stream?(): StreamRenderer;
  /** Renders a short note of the bot's own (a cut notice, an error) as plain, safe text. */
  note(text: string): string;
  /** How the platform counts a rendered text against its length limit. */
  measure(rendered: string): number;
}

/** One natively streamed message's text, as its answer grows (see Renderer.stream). */
export interface StreamRenderer {
  /**
   * The whole text the stream shows for `source`: until `final`, each result extends the one
   * before (an unsettled end is held back for a while); `final` adds the note.
   */
  text(source: MessageSource, final: boolean): string;
  /**
   * Whether the final text shows `source` as the platform would show it rendered anew: false
   * when something the stream had to show on the way (an opener shown as written) made it
   * wrong. The engine then ends the stream by replacing its text. True when absent.
   */
  endsAsWritten?(source: MessageSource): boolean;
}

/** Limits the reply engine keeps for one surface. */
export interface SurfaceLimits {
  /** Largest rendered text of one message, as Renderer.measure counts it. */
  maxMessageLength: number;
  /** Shortest time between two changes of one message. */
  minEditIntervalMs: number;
  /** A native stream older than this is ended, and its message goes on by edits. */
  streamMaxAgeMs?: number;
  /**
   * The most of an answer this place can show, below MAX_ANSWER_CHARS, where an answer has one
   * message only (a Telegram guest answer): past it the answer is cut, with the cut note.
   */
  maxAnswerChars?: number;
}

/**
 * A budget shared by several answers (all answers in one Slack workspace or one Telegram
 * group). `acquire` resolves when one more call may be made.
 */
export interface CallBudget {
  /**
   * `first`: an answer's first text, served before everything else. `urgent`: a final text or
   * a notice, served before routine edits.
   */
  acquire(options?: { first?: boolean; urgent?: boolean; signal?: AbortSignal }): Promise<void>;
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

/**
 * One platform call the reply engine asks of a surface, with the text ready to send:
 * `post` a new message, `edit` (replace) a message's whole text, `stream` start a native
 * stream with its first text, `append` text to it, `end` it with its last text (maybe ""),
 * `stop` it with no text (its text is then replaced by edits). `final`: the message will not
 * change again (a draft is sent for good). `buttons`: what the message shows under its text
 * after the call (none: no buttons, any it had go); a surface leaves them out where the
 * platform has no place for them (a Telegram draft, a Slack stream until its end).
 */
export type SendRequest =
  | { call: "post"; text: string; final: boolean; buttons?: readonly Button[] }
  | { call: "edit"; ref: MessageRef; text: string; final: boolean; buttons?: readonly Button[] }
  | { call: "stream"; text: string }
  | { call: "append"; ref: MessageRef; text: string }
  | { call: "end"; ref: MessageRef; text: string; buttons?: readonly Button[] }
  | { call: "stop"; ref: MessageRef };

export type CallName = SendRequest["call"];

export interface NoticeOptions {
  /** Only the asker needs to see it (Slack ephemeral); surfaces without it post normally. */
  private?: boolean;
}

/**
 * Where one answer goes: a thread in Slack, a chat or topic in Telegram, the terminal. The
 * reply engine owns the answer (what each message shows, when the next call may go, which
 * budget it draws on); a surface turns each request into one platform call and keeps no copy
 * of the answer. `send` resolves with the message's ref (a new one when the message changed
 * its kind: a draft sent for good, a stream stopped) and throws RateLimitedError when the
 * platform says to wait (the engine pauses the budget the call drew on: one 429, one pause),
 * MessageGoneError when the message to change no longer exists, StreamUnavailableError when
 * a native stream cannot start or go on (the engine goes on by post and edit).
 */
export interface ReplySurface {
  readonly renderer: Renderer;
  readonly limits: SurfaceLimits;
  /** The shared budget a call of this kind draws on, when the platform has one. */
  budgetFor?(call: CallName): CallBudget | undefined;
  send(request: SendRequest): Promise<MessageRef>;
  /** Whether a new message may start as a native stream (`stream` and `append` calls). */
  canStream?(): boolean;
  /** A short message apart from the answer (command replies, system messages). */
  notice(rendered: string, options?: NoticeOptions): Promise<void>;
  /**
   * Shows a "working" sign that needs no message (Telegram's typing action, Slack's loading
   * status), asked again every few seconds until the first text shows. Surfaces without it
   * get a placeholder message instead, which the answer then replaces. `text` is the sign's
   * words ("is thinking…") in the answer's language, for a platform that shows words.
   */
  showTyping?(text: string): Promise<void>;
  /**
   * The answer is over (called once at its end, whether or not showTyping was): a sign of work
   * that would outlast it goes now (a status no reply took down, when nothing could be posted;
   * a platform's "working" state kept while the answer was written, as Slack's agent session).
   */
  stopTyping?(): Promise<void>;
  /**
   * True when the final state of message `ref` goes by a call that is no edit of it (a
   * Telegram draft sent for good): it waits for no edit interval.
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
   * Surfaces without it (a terminal) have nothing to finish after a kill.
   */
  persistRef?(ref: MessageRef): unknown;
}

/**
 * What the reply engine tells of an answer's messages as they reach the platform (the
 * answer journal listens): `sent` after each call that changed message `index`, with what
 * ReplySurface.persistRef saves of it (`refChanged` when that is new); `gone` when a person
 * deleted it (the answer goes on in a new message).
 */
export type AnswerMessageEvent =
  | {
      kind: "sent";
      index: number;
      saved: unknown;
      refChanged: boolean;
      /** The chatbot's Markdown the message shows ("" for a note alone). */
      markdown: string;
      final: boolean;
      /**
       * A native stream not stopped yet: the platform keeps all it was sent, so its growing
       * text needs no copy for a restart to finish it (it appends the note as it ends it).
       */
      live: boolean;
    }
  | { kind: "gone"; index: number };

/**
 * Message `index`, already on the platform, is about to get its final text (its Markdown, the
 * end note, the buttons): what a restart finishes it with, should the process die before it
 * knew the platform shows it (AnswerWriterOptions.onFinishing).
 */
export interface FinishingMessage {
  index: number;
  saved: unknown;
  markdown: string;
  note?: string | undefined;
  buttons?: readonly Button[] | undefined;
}

/**
 * A message of an earlier process, reopened on a surface that can change it now: `ref` is
 * undefined for one that never reached the platform, `streaming` true for a native stream
 * that may still be open.
 */
export interface ReopenedMessage {
  surface: ReplySurface;
  ref: MessageRef | undefined;
  streaming: boolean;
}

/**
 * A button under a message the bot posted (Slack: a button of an actions block; Telegram: an
 * inline keyboard button). Pressing it reaches the handler registered for `action`
 * (ButtonHandlers) with `id`. The platform carries both back from the person's client, so
 * neither is trusted: `id` only names what the handler then looks up and checks.
 */
export interface Button {
  /** The handler's name: letters, digits, `.`, `_` and `-` (e.g. "lead.claim"). */
  action: string;
  /** What the press is about (a lead's id): short, since Telegram carries at most 64 bytes. */
  id: string;
  /** What the button shows (plain text). */
  label: string;
  /** The button's colour: Slack's emphasis, Telegram's style (Bot API 9.4). */
  style?: "primary" | "danger";
  /**
   * Stops the answer being written: a platform's own stop control on a streaming answer (a
   * Telegram draft's) stands for it.
   */
  stops?: true;
  /**
   * One of a 👍/👎 pair rating the message: Slack shows the pair as its feedback buttons
   * element at the end of a native stream.
   */
  feedback?: "positive" | "negative";
}

/** Who pressed a button. */
export interface Presser {
  /** The platform's own user id (as admin lists and IncomingMessage.authorId name it). */
  id: string;
  /** How to name them to others (a display or user name): untrusted, escape it. */
  name: string;
  /** Whether they may administer the chat the message is in. Lazy: it can cost an API call. */
  isAdmin(): Promise<boolean>;
  /** Whether the deployment trusts them with the company's leads (see BotAdminCheck). */
  isBotAdmin?: BotAdminCheck;
  /** Their locale tag where the platform tells it (as IncomingMessage.authorLocale). */
  locale?(): Promise<string | undefined>;
}

/**
 * A press of a Button, in platform-neutral form. The channel has already acknowledged it
 * (Slack's 3 s ack) or will answer it when the handler ends (Telegram's answerCallbackQuery),
 * so a handler may take its time, but a private reply reads best within a few seconds.
 */
export interface PressedButton {
  /** The channel kind: "slack", "telegram". */
  channel: string;
  action: string;
  /** The button's id, as the client sent it back: never trusted. */
  id: string;
  /**
   * Unique per press: a redelivery of the same press (to this process or another) carries the
   * same id, so its handler can tell it from a second press. Absent where the platform names
   * none.
   */
  pressId?: string | undefined;
  person: Presser;
  /** The platform's own id of the chat or channel the message is in. */
  channelId: string;
  /** Scope of channel settings, as IncomingMessage.channelKey. */
  channelKey: string;
  /** The message the button is under, as the channel's announcer or surface changes it. */
  message: MessageRef;
  /**
   * Tells only the presser (Slack: an ephemeral message; Telegram: an alert on the press, so
   * only the first call of a press shows). Plain text: the channel escapes it. `brief`: a
   * confirmation that needs no reading twice (a thanks), shown where the platform can as a
   * notice that passes (Telegram's toast) rather than one to dismiss.
   */
  replyPrivately(text: string, options?: { brief?: boolean }): Promise<void>;
}

/** Runs a feature's work for one press. What it throws is logged by the channel. */
export type ButtonHandler = (pressed: PressedButton) => Promise<void>;

/** Where a channel hands every press: false when no handler knows its action. */
export interface ButtonPresses {
  handle(pressed: PressedButton): Promise<boolean>;
}

/** An endpoint a channel serves on the shared HTTP server (Slack events, Telegram webhook). */
export interface HttpRoute {
  method: "GET" | "POST";
  path: string;
  handler: (request: HttpRequest, response: ServerResponse) => void | Promise<void>;
}

/** What the operator checks of a started channel, in its log line (never a secret). */
export interface ChannelStarted {
  /** How it reaches the platform: "socket", "http", "webhook", "polling", "interactive"… */
  readonly mode: string;
  /** The bot's id or username on the platform. */
  readonly bot?: string | undefined;
  /** The Slack workspace. */
  readonly team?: string | undefined;
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
  /**
   * Connects (learns the bot's identity, opens the socket, starts polling, sets the webhook),
   * and resolves with what the operator checks of the connection, for the one line that says
   * the channel started. `signal` aborts when the process is asked to stop while it still
   * starts: give up then.
   */
  start(signal?: AbortSignal): Promise<ChannelStarted>;
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
  /**
   * Where its conversation happened: in a chat this bot carried, "outside" the chats it
   * serves (a website's chatbot), or undefined when that is not known (the store away, a card
   * of an earlier version).
   */
  origin?: LeadOrigin | "outside" | undefined;
  /** ISO 8601 with a UTC offset, as the backend sent it. */
  createdAt: string;
  name: string;
  phone: string;
  email: string;
  remark: string;
}

/** Where a lead's conversation happened (LeadAnnouncer.describeOrigin). */
export interface LeadOrigin {
  /** The platform's name as people know it: "Slack", "Telegram". */
  platform: string;
  /**
   * A thread in a channel, a group chat, one person's chat with the bot, or a customer's chat
   * with a company's own account that the bot answers for (Telegram Business).
   */
  place: "thread" | "group" | "private" | "business";
  /** The channel's or the group's name ("#support", "Team"): untrusted text. */
  where?: string | undefined;
  /** The person, in a private chat: their display name, untrusted text. */
  asker?: string | undefined;
  /** A link to the conversation, where the platform has one: https only. */
  link?: string | undefined;
}

/**
 * One labelled line of a lead announcement; an `email` value may become a mailto link, a
 * `place` with a `link` a link to it.
 */
export interface LeadAnnouncementField {
  label: string;
  /** The label with the language's colon, before a value on the same line ("Nom :" in French). */
  labelled: string;
  value: string;
  kind: "text" | "email" | "time" | "id" | "place";
  link?: string | undefined;
}

/** A lead as one lead channel is told of it: its words in that channel's language. */
export interface LeadAnnouncement {
  /** The lead, cleaned for showing. */
  lead: Lead;
  /** "New lead". */
  title: string;
  /** "New lead: Ada", for notifications and screen readers. */
  summary: string;
  fields: readonly LeadAnnouncementField[];
}

/** What a lead announcement shows besides the lead: who took it, and the buttons under it. */
export interface LeadCardState {
  /** A line of the bot's own under the fields ("Claimed by …"): plain text, escaped by the announcer. */
  status?: string;
  buttons?: readonly Button[];
}

/**
 * Posts one lead announcement into a lead channel; implemented by each platform adapter,
 * which renders it for its platform (Slack blocks, Telegram HTML) as untrusted text.
 */
export interface LeadAnnouncer {
  readonly platform: string;
  /**
   * The key of the channel's settings (as IncomingMessage.channelKey names it), whose
   * language the announcement speaks; undefined while the adapter cannot tell it yet.
   */
  channelKey(channelId: string): string | undefined;
  /**
   * Posts the announcement; resolves with where its message is (JSON, the same shape a press
   * on it gives as PressedButton.message), or undefined when it cannot be changed later.
   */
  announce(
    channelId: string,
    announcement: LeadAnnouncement,
    state?: LeadCardState,
  ): Promise<unknown>;
  /** Shows the lead in `state` on an announcement posted before (`message` as announce gave it). */
  show?(message: unknown, announcement: LeadAnnouncement, state: LeadCardState): Promise<void>;
  /**
   * Where a conversation of this platform is, from the IncomingMessage.origin a question of it
   * carried: undefined when it cannot tell. Never throws.
   */
  describeOrigin?(origin: unknown): Promise<LeadOrigin | undefined>;
  /**
   * The thread the replies under the announcement `message` reach the bot in, once it follows
   * them (Slack: the card's thread; Telegram: the card's reply chain): a place to talk in a
   * hand-over (src/handover/). Undefined where the platform has no such place.
   */
  threadUnder?(message: unknown): string | undefined;
  /** Starts (`on`) or stops taking every reply under the announcement `message` as a message. */
  follow?(message: unknown, on: boolean): Promise<void>;
  /**
   * Posts `text` (plain text, escaped here) under the announcement `message`, in the thread
   * threadUnder gave (`threadKey`), so that a reply to it goes on there.
   */
  replyUnder?(message: unknown, text: string, threadKey: string): Promise<void>;
}
