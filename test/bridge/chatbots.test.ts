import { afterEach, describe, expect, it } from "vitest";
import { isCommandProblem, parseCommand } from "../../src/bridge/commands.ts";
import { translator } from "../../src/i18n/translator.ts";
import { Conversations, readThreadContext } from "../../src/store/repositories.ts";
import { type Harness, incoming, startHarness } from "../support/bridge-harness.ts";
import { MemorySurface } from "../support/memory-surface.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const SUPPORT = { name: "support", botUid: "sim-support" };
const SALES = { name: "sales", botUid: "sim-sales" };

async function twoChatbots(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  harness = await startHarness({ chatbots: [SUPPORT, SALES], ...options });
  return harness;
}

const member = { isAdmin: async () => false };

/** Asks `text` in `thread`; returns the answer a person reads, or the notice they get. */
async function ask(h: Harness, text: string, thread = "thread-1", overrides = {}): Promise<string> {
  const surface = new MemorySurface();
  await h.bridge.handle(
    incoming(text, { threadKey: `test:channel-1:${thread}`, ...overrides }),
    surface,
  );
  return surface.messages.at(-1) ?? surface.notices.map((n) => n.text).join("\n");
}

/** Which simulated chatbot wrote an answer: it names its bot_uid. */
const answeredBy = (answer: string) => /simulated chatbot `([^`]+)`/.exec(answer)?.[1];

describe("parseCommand: the chatbot commands", () => {
  it("reads /chatbot, /chatbot use <name> and /leads (un)subscribe <name>", () => {
    expect(parseCommand("/chatbot")).toEqual({ name: "chatbot" });
    expect(parseCommand("/chatbot use Sales")).toEqual({ name: "chatbot", use: "sales" });
    // Slack's `/chatbot-use` with no name: the list.
    expect(parseCommand("/chatbot use")).toEqual({ name: "chatbot" });
    expect(parseCommand("/leads subscribe sales")).toEqual({
      name: "leads",
      action: "subscribe",
      chatbot: "sales",
    });
    expect(parseCommand("/leads unsubscribe sales")).toMatchObject({ chatbot: "sales" });
    const usage = parseCommand("/chatbot pick sales");
    expect(usage && isCommandProblem(usage) && translator("en").text(usage.problem)).toBe(
      "expected `/chatbot` or `/chatbot use <name>`",
    );
  });

  it("takes `@bot use sales` for a chatbot's name only: anything else stays a question", () => {
    const chatbots = ["support", "sales"];
    expect(parseCommand("use sales", { bare: true, chatbots })).toEqual({
      name: "chatbot",
      use: "sales",
    });
    expect(parseCommand("chatbot use sales", { bare: true, chatbots })).toEqual({
      name: "chatbot",
      use: "sales",
    });
    expect(parseCommand("chatbot", { bare: true, chatbots })).toEqual({ name: "chatbot" });
    for (const question of ["use python", "use the refund form?", "chatbot pricing?"]) {
      expect(parseCommand(question, { bare: true, chatbots })).toBeUndefined();
    }
    // Without a mention nothing is bare: "use sales" is asked.
    expect(parseCommand("use sales", { chatbots })).toBeUndefined();
  });
});

describe("several chatbots in one deployment", () => {
  it("answers with the default until an admin picks another; a conversation stays with its own", async () => {
    const h = await twoChatbots();
    expect(answeredBy(await ask(h, "hello"))).toBe("sim-support");
    expect(await ask(h, "/chatbot")).toBe(
      "Questions here go to support, the default. Chatbots: support, sales. Admins can change it with `/chatbot use <name>`.",
    );

    // A member may look, not choose.
    expect(await ask(h, "/chatbot use sales", "thread-1", member)).toBe(
      "Only an admin of this channel can choose its chatbot.",
    );
    expect(await ask(h, "/chatbot use nope")).toBe(
      "No chatbot is named nope. Chatbots: support, sales.",
    );
    expect(answeredBy(await ask(h, "still you?", "thread-2"))).toBe("sim-support");

    const surface = new MemorySurface();
    await h.bridge.handle(incoming("/chatbot use SALES"), surface);
    expect(surface.notices).toEqual([
      {
        text: "New conversations here now go to sales. A conversation under way stays with its chatbot; `/new` starts a new one.",
        private: false,
      },
    ]);
    expect(await ask(h, "/chatbot")).toBe(
      "Questions here go to sales. Chatbots: support, sales. Admins can change it with `/chatbot use <name>`.",
    );

    // The thread that began with support goes on with it, in the same conversation.
    const later = await ask(h, "and then?");
    expect(answeredBy(later)).toBe("sim-support");
    expect(later).toContain("This is question 2 in our conversation.");
    // A new thread, and the old one after /new, go to sales.
    expect(answeredBy(await ask(h, "hi there", "thread-3"))).toBe("sim-sales");
    await ask(h, "/new");
    const fresh = await ask(h, "and now?");
    expect(answeredBy(fresh)).toBe("sim-sales");
    expect(fresh).toContain("This is the first question in our conversation.");

    const paths = h.simulator.requests.filter((r) => r.route === "chat").map((r) => r.path);
    expect(paths).toEqual([
      "/api/v1/backend/chatbot/sim-support/chat",
      "/api/v1/backend/chatbot/sim-support/chat",
      "/api/v1/backend/chatbot/sim-support/chat",
      "/api/v1/backend/chatbot/sim-sales/chat",
      "/api/v1/backend/chatbot/sim-sales/chat",
    ]);
  });

  it("reads the channel's chatbot in the same one store read as the thread's conversation", async () => {
    const h = await twoChatbots();
    await ask(h, "/chatbot use sales");
    await ask(h, "hello");
    const context = await readThreadContext(h.store, "test:channel-1:thread-1", "test:channel-1");
    expect(context).toMatchObject({ chatbot: "sales", conversationBot: "sim-sales" });
    // A record of a version with one chatbot names none: it is the default's, and the next
    // answer writes whose it is.
    const record = { ...context, conversationBot: undefined };
    expect(Conversations.needsSaving(record, context.conversationUid ?? "", "sim-support")).toBe(
      true,
    );
  });

  it("lists /chatbot in /help only where there are several, and says whose answers /language is about", async () => {
    const h = await twoChatbots();
    const help = await ask(h, "/help");
    expect(help).toContain("/chatbot use <name>");
    expect(help).toContain("/leads subscribe <name>");
    expect(await ask(h, "/language")).toBe(
      [
        "Answers here are in the language of each question (auto), the default. Admins can change it with /language <code>.",
        "This channel's chatbot: support.",
      ].join("\n"),
    );
    await h.close();
    harness = await startHarness();
    const single = await ask(harness, "/help");
    expect(single).not.toContain("/chatbot");
    expect(await ask(harness, "/language")).not.toContain("chatbot");
  });

  it("names a chatbot the backend refuses in the answer's error, while the other answers", async () => {
    // The simulator serves support only: sales's bot_uid is unknown there (HTTP 404).
    const h = await twoChatbots({ simulator: { bots: [SUPPORT.botUid] } });
    await ask(h, "/chatbot use sales");
    expect(await ask(h, "hello")).toBe(
      "⚠️ sales: the chatbot was not found (HTTP 404): check the base URL and the bot id",
    );
    await ask(h, "/chatbot use support");
    // The simulator serving one bot does not name it.
    expect(await ask(h, "hello again", "thread-2")).toContain("This is the simulated chatbot.");
  });
});
