import type { en } from "./catalog/en.ts";

/** The name of one of the bot's own texts. */
export type MessageKey = keyof typeof en;

/** One language's catalog: every key English has, no other (tsc checks each language). */
export type Messages = Readonly<Record<MessageKey, string>>;

/**
 * A value put into a text: words and codes (isolated in right-to-left text), counts, dates,
 * a duration, written out in the text's language ("5 minutes", "5 минут"), and another text
 * of the catalog (the reason in "answer cut off: …"), said in the same language.
 */
export type MessageValue = string | number | Date | { durationMs: number } | UserText;

export type MessageValues = Readonly<Record<string, MessageValue>>;

/** A text named before its language is known (a typed error's message for a person). */
export interface UserText {
  key: MessageKey;
  values?: MessageValues;
}
