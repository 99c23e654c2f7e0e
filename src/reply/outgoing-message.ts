import { inSession, ParseSession } from "../markdown/parse-session.ts";
import type { MessageRef, MessageSource, Renderer, SendRequest, StreamRenderer } from "../ports.ts";

/**
 * One message of an answer as the reply engine keeps it: what it should show (its source, set
 * by the layout), what the platform shows now, and how it changes there. Only the engine
 * holds this; the surface is handed ready text, one call at a time.
 */
export interface OutgoingMessage {
  /** Where it is on the platform; undefined until it was posted. */
  ref?: MessageRef;
  /** What ReplySurface.persistRef saved of `ref`, kept until the ref changes. */
  saved?: unknown;
  /**
   * replace: posted, then changed by edits of its whole text. append: a native stream, grown
   * by appends. Decided when it is first sent (see modeOf).
   */
  mode: "replace" | "append";
  /** A native stream not stopped yet: it is stopped before edits replace its text. */
  live: boolean;
  /** When its native stream started (performance.now()), for the platform's stream age. */
  startedAt: number;
  /** Never a native stream: a note, or a message whose stream the platform refused. */
  noStream: boolean;
  /** append: the stream's own renderer (it keeps which openers it showed as text). */
  stream?: StreamRenderer;
  /** What it should show; set by the layout. */
  source?: MessageSource;
  /** Its text can no longer change: the answer went on in a next message. */
  frozen: boolean;
  /** The text the platform shows now (all that was appended, for a stream). */
  shown?: string;
  /** When it was last shown (performance.now()), for messages that lapse unchanged. */
  shownAt?: number;
  /** The platform was told this text is final (a draft sent for good, a stream stopped). */
  finalized: boolean;
  /** The last text rendered for it and what from: rendered once however often it is asked. */
  rendered?: Rendered;
  /** Its recent parses, so that its growing text is parsed from its last block on. */
  parses?: ParseSession;
}

interface Rendered extends Rendering {
  text: string;
}

/** The next call one message needs, with the text it leaves the message showing. */
export interface Plan {
  message: OutgoingMessage;
  request: SendRequest;
  /** The message's whole text once the call is made. */
  text: string;
  final: boolean;
}

export function newMessage(fields: Partial<OutgoingMessage> = {}): OutgoingMessage {
  return {
    mode: "replace",
    live: false,
    startedAt: 0,
    noStream: false,
    frozen: false,
    finalized: false,
    ...fields,
  };
}

/**
 * How the message goes to the platform: as it went so far once posted; a new one streams
 * natively where the surface can, unless it is complete at its first showing (one post shows
 * it) or a note.
 */
export function modeOf(
  message: OutgoingMessage,
  final: boolean,
  canStream: boolean,
): OutgoingMessage["mode"] {
  if (message.ref !== undefined) return message.mode;
  const streams = canStream && !final && !message.noStream && message.source?.note === undefined;
  return streams ? "append" : "replace";
}

/** What a message's text is rendered from, and how. */
export interface Rendering {
  mode: OutgoingMessage["mode"];
  source: MessageSource;
  final: boolean;
}

/**
 * The platform text of `source` in `message`: a stream's safe Markdown, or the rendered
 * Markdown (held back at an unsettled end until final) followed by the note.
 */
export function textOf(renderer: Renderer, message: OutgoingMessage, rendering: Rendering): string {
  const memo = message.rendered;
  const { mode, source, final } = rendering;
  if (
    memo !== undefined &&
    memo.source.markdown === source.markdown &&
    memo.source.note === source.note &&
    memo.final === final &&
    memo.mode === mode
  ) {
    return memo.text;
  }
  message.parses ??= new ParseSession();
  const text = inSession(message.parses, () => renderSource(renderer, message, rendering));
  message.rendered = { ...rendering, text };
  return text;
}

/** As textOf, remembering nothing: for the candidate heads a split tries. */
export function renderSource(
  renderer: Renderer,
  message: OutgoingMessage,
  { mode, source, final }: Rendering,
): string {
  if (mode === "append" && renderer.stream) {
    message.stream ??= renderer.stream();
    return message.stream.text(source, final);
  }
  const { markdown, note } = source;
  const interim = final ? undefined : renderer.interim;
  const body = markdown.trim() ? (interim ? interim(markdown) : renderer.render(markdown)) : "";
  const ending = note === undefined ? "" : renderer.note(note);
  if (!body.trim()) return ending;
  return ending ? `${body}\n\n${ending}` : body;
}

/**
 * The call that brings `message` to `text`, or undefined when it shows that already. A
 * stream's text must extend what it showed (see canAppend); a stream whose text is to be
 * replaced is stopped first.
 */
export function planFor(
  message: OutgoingMessage,
  mode: OutgoingMessage["mode"],
  text: string,
  final: boolean,
): Plan | undefined {
  if (message.finalized) return undefined;
  const { ref, shown } = message;
  // A platform refuses an empty message: whitespace waits for text, or for the end.
  if (!text.trim()) return undefined;
  if (ref === undefined) {
    const request: SendRequest =
      mode === "append" ? { call: "stream", text } : { call: "post", text, final };
    return { message, request, text, final };
  }
  if (mode === "append") {
    const sent = shown ?? "";
    if (text === sent && !final) return undefined;
    const delta = text.slice(sent.length);
    const request: SendRequest = { call: final ? "end" : "append", ref, text: delta };
    return { message, request, text, final };
  }
  if (message.live) return { message, request: { call: "stop", ref }, text: "", final: false };
  if (text === shown && !final) return undefined;
  return { message, request: { call: "edit", ref, text, final }, text, final };
}

/** Whether a stream can show `text` by appending: it extends what the stream showed. */
export function canAppend(message: OutgoingMessage, text: string): boolean {
  return message.live && text.startsWith(message.shown ?? "");
}

/** The message goes on by edits of its whole text (its stream, if live, is stopped first). */
export function toReplace(message: OutgoingMessage): void {
  message.mode = "replace";
  message.noStream = true;
  message.shown = undefined;
}

/** The platform took the call: the message shows the plan's text now. */
export function markSent(plan: Plan, ref: MessageRef): void {
  const { message, request, text, final } = plan;
  message.ref = ref;
  switch (request.call) {
    case "stream":
      Object.assign(message, { mode: "append", live: true, startedAt: performance.now() });
      break;
    case "end":
    case "stop":
      message.live = false;
      break;
    case "append":
      break;
    default:
      message.mode = "replace";
  }
  // A stopped stream's text is replaced next, whatever it showed.
  message.shown = request.call === "stop" ? undefined : text;
  message.shownAt = performance.now();
  message.finalized = final;
}

/** A person deleted the message: the answer shows its text anew, in a new message. */
export function markGone(message: OutgoingMessage): void {
  Object.assign(message, { ref: undefined, saved: undefined, shown: undefined });
  Object.assign(message, { finalized: false, live: false, mode: "replace" });
}
