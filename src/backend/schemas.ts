import { z } from "zod";
import { ApiError, ProtocolError } from "../errors.ts";
import type { ChatAnswer, LeadsPage, StreamHeader } from "./types.ts";

/**
 * The JSON envelope of every response. The spec names the text field `msg` for both
 * operations but `message` in its general description, so either (or neither) is accepted.
 */
export const envelopeSchema = z.object({
  code: z.number().int(),
  data: z.unknown().optional(),
  msg: z.string().nullish().catch(undefined),
  message: z.string().nullish().catch(undefined),
});

export type Envelope = z.infer<typeof envelopeSchema>;

// Optional fields default when missing, null or of the wrong type: they only decorate an
// answer, and refusing a whole answer over one of them would serve nobody.
const textOrEmpty = z
  .string()
  .nullish()
  .catch(undefined)
  .transform((v) => v ?? "");
const flagOrFalse = z
  .boolean()
  .nullish()
  .catch(undefined)
  .transform((v) => v ?? false);
// Whether the user-supplied lead fields can be empty or absent is not shown in the spec; a
// phone sent as a JSON number is still a phone.
const userText = z
  .union([z.string(), z.number()])
  .nullish()
  .catch(undefined)
  .transform((v) => (v === undefined || v === null ? "" : String(v)));
const conversationUid = z.string().min(1, { error: "must be a non-empty string" });
// A stream header without a usable conversation_uid still opens an answer worth showing:
// the uid is then absent, and the thread keeps the conversation it had.
const conversationUidIfAny = conversationUid.optional().catch(undefined);

export const leadSchema = z
  .object({
    bot_uid: z.string(),
    conversation_uid: z.string(),
    created_at: z.string(),
    name: userText,
    phone: userText,
    email: userText,
    remark: userText,
  })
  .transform((l) => ({
    botUid: l.bot_uid,
    conversationUid: l.conversation_uid,
    createdAt: l.created_at,
    name: l.name,
    phone: l.phone,
    email: l.email,
    remark: l.remark,
  }));

export const leadsPageSchema = z
  .object({
    leads: z
      .array(leadSchema)
      .nullish()
      .transform((v) => v ?? []),
    page: z.number().int(),
    page_size: z.number().int(),
    total: z.number().int(),
  })
  .transform(
    (p): LeadsPage => ({ leads: p.leads, page: p.page, pageSize: p.page_size, total: p.total }),
  );

export const chatAnswerSchema = z
  .object({
    answer: z.string(),
    conversation_uid: conversationUid,
    question: textOrEmpty,
    is_qa_mode: flagOrFalse,
    system_message: textOrEmpty,
  })
  .transform(
    (a): ChatAnswer => ({
      answer: a.answer,
      conversationUid: a.conversation_uid,
      question: a.question,
      isQaMode: a.is_qa_mode,
      systemMessage: a.system_message,
    }),
  );

export const streamHeaderSchema = z
  .object({
    conversation_uid: conversationUidIfAny,
    question: textOrEmpty,
    is_qa_mode: flagOrFalse,
    system_message: textOrEmpty,
    related_docs: z
      .array(z.unknown())
      .nullish()
      .catch(undefined)
      .transform((v) => v ?? []),
  })
  .transform(
    (h): StreamHeader => ({
      conversationUid: h.conversation_uid,
      question: h.question,
      isQaMode: h.is_qa_mode,
      systemMessage: h.system_message,
      relatedDocs: h.related_docs,
    }),
  );

/** The envelope's text, whichever name the server used for it. */
export function envelopeText(envelope: Envelope): string | undefined {
  return envelope.msg || envelope.message || undefined;
}

/** Parses JSON text; ProtocolError when it is not JSON. */
export function parseJson(text: string, path: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // The SyntaxError quotes the body; the detail names the part instead.
    throw new ProtocolError(path, `${what} is not JSON`);
  }
}

/** Validates `value` against `schema`; ProtocolError naming each bad field otherwise. */
export function decodeWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  path: string,
  what: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ProtocolError(path, `${what}: ${describeIssues(result.error)}`);
}

/** Returns the envelope's `data`; ApiError when `code` is not 0. */
export function unwrapEnvelope(value: unknown, path: string): unknown {
  const envelope = decodeWith(envelopeSchema, value, path, "envelope");
  if (envelope.code !== 0) throw new ApiError(path, envelope.code, envelopeText(envelope));
  return envelope.data;
}

/** True when `value` looks like an envelope rather than a payload. */
export function isEnvelope(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { code?: unknown }).code === "number" &&
    !("conversation_uid" in value)
  );
}

/**
 * Reads the JSON part of a streamed answer. The spec calls it "a JSON string holding the
 * stream header object", which reads either as an object or as a string that encodes one;
 * both are accepted, and so is a header wrapped in an envelope.
 */
export function decodeStreamHeader(text: string, path: string): StreamHeader {
  let value = parseJson(text.trim(), path, "stream header");
  for (let depth = 0; depth < 3; depth++) {
    if (typeof value === "string") value = parseJson(value.trim(), path, "stream header");
    else if (isEnvelope(value)) value = unwrapEnvelope(value, path);
    else break;
  }
  return decodeWith(streamHeaderSchema, value, path, "stream header");
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join(".") || "(root)"} ${issue.message}`)
    .join("; ");
}
