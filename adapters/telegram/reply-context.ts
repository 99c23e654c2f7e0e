import type { Message } from "grammy/types";
import type { Discussion } from "../../src/ports.ts";
import { type BotIdentity, nameOf, repliesToTopic, withoutMentions } from "./to-incoming.ts";

/**
 * The message a question replies to, as the chatbot is told of it (docs/chatbot.md, "What the chatbot
 * receives"): the part the person quoted when they quoted one, else the replied-to message's
 * text or caption, with its author's name. None for a reply to the bot's own message (the
 * chatbot wrote it), to a forum topic's first message (every message in a topic "replies" to
 * it), to a message of another chat (Telegram's external reply: not this chat's to share), or
 * in a private chat to anything but the asker's own message.
 */
export function repliedDiscussion(message: Message, me: BotIdentity): Discussion | undefined {
  // Telegram fills reply_to_message for a reply in the same chat and topic only.
  const replied = message.reply_to_message;
  if (!replied || repliesToTopic(message) || replied.from?.id === me.id) return undefined;
  if (message.chat.type === "private" && replied.from?.id !== message.from?.id) return undefined;
  const quoted = message.quote?.text;
  const text =
    quoted ??
    withoutMentions(
      replied.text ?? replied.caption ?? "",
      replied.entities ?? replied.caption_entities ?? [],
      me,
    );
  const author = nameOf(replied);
  if (!text.trim() || author === undefined) return undefined;
  return { kind: "reply", messages: [{ author, text }] };
}
