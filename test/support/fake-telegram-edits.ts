/** What an edit changes of a message the fake keeps apart (a business or a guest message). */
export interface Editable {
  text: string;
  raw: string;
  /** Every text it showed, first to last. */
  history: string[];
  hasKeyboard: boolean;
}

/** Applies an edit's content, refused as Telegram refuses an edit that changes nothing. */
export function applyEdit(
  message: Editable,
  content: { text: string; raw: string },
  params: Record<string, unknown>,
  failure: (errorCode: number, description: string) => Error,
): void {
  if (content.raw === message.raw) throw failure(400, "Bad Request: message is not modified");
  message.text = content.text;
  message.raw = content.raw;
  message.history.push(content.text);
  message.hasKeyboard = params.reply_markup !== undefined;
}
