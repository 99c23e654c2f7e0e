import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ChatbotRefusal } from "../../src/backend/refusal.ts";
import { AuthenticationError, PermissionError } from "../../src/errors.ts";
import { createLogger } from "../../src/log.ts";

/** A refusal logging into `lines` (level and message). */
function refusalLogging(): { refusal: ChatbotRefusal; lines: [number, string][] } {
  const lines: [number, string][] = [];
  const log = createLogger({
    level: "info",
    secrets: [],
    pretty: false,
    destination: new Writable({
      write(chunk, _encoding, done) {
        const { level, msg } = JSON.parse(String(chunk)) as { level: number; msg: string };
        lines.push([level, msg]);
        done();
      },
    }),
  });
  return {
    refusal: new ChatbotRefusal({ name: "default", variable: "CHATBOT_BOT_UID" }, log),
    lines,
  };
}

describe("a chatbot's refusal, as the operator is told it", () => {
  it("is told once while chat is refused (403), however many lead polls succeed meanwhile", () => {
    const { refusal, lines } = refusalLogging();
    refusal.failed(new PermissionError("/chat"), "chat");
    refusal.succeeded("leads");
    refusal.failed(new PermissionError("/chat"), "chat");
    refusal.succeeded("leads");
    expect(lines.map(([, msg]) => msg)).toEqual([
      "the chatbot refused the chat operation (HTTP 403): streaming chat needs a paid subscription on the chatbot's account",
    ]);
    // Chat answering again ends it.
    refusal.succeeded("chat");
    expect(lines.at(-1)).toEqual([30, "the chatbot accepts the bot's calls again"]);
  });

  it("ends a refusal of every call (a rejected key) at any call's success", () => {
    const { refusal, lines } = refusalLogging();
    refusal.failed(new AuthenticationError("/leads"), "leads");
    refusal.succeeded("chat");
    expect(lines.map(([level]) => level)).toEqual([50, 30]);
  });
});
