import { afterEach, describe, expect, it } from "vitest";
import { isCommandProblem, parseCommand } from "../../src/bridge/commands.ts";
import { translator } from "../../src/i18n/translator.ts";
import { type Harness, incoming, startHarness } from "../support/bridge-harness.ts";
import { MemorySurface } from "../support/memory-surface.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  harness = await startHarness(options);
  return harness;
}

const member = { isAdmin: async () => false };
const chatRequests = (h: Harness) => h.simulator.requests.filter((r) => r.route === "chat");

describe("parseCommand", () => {
  it("reads the commands and leaves questions alone", () => {
    expect(parseCommand("/help")).toEqual({ name: "help" });
    expect(parseCommand("  /NEW ")).toEqual({ name: "new" });
    expect(parseCommand("/language")).toEqual({ name: "language" });
    expect(parseCommand("/language zh-Hans")).toEqual({ name: "language", code: "zh-Hans" });
    expect(parseCommand("/leads")).toEqual({ name: "leads", action: "list", days: 7 });
    expect(parseCommand("/leads 3")).toEqual({ name: "leads", action: "list", days: 3 });
    expect(parseCommand("/leads subscribe")).toEqual({ name: "leads", action: "subscribe" });
    expect(parseCommand("what language do you speak?")).toBeUndefined();
    expect(parseCommand("/unknown thing")).toEqual({ name: "unknown", word: "/unknown" });
    // A path or a lone slash is not a command: that is a question.
    expect(parseCommand("/etc/hosts: what is it for?")).toBeUndefined();
    expect(parseCommand("/ divided by zero?")).toBeUndefined();
    // Without a slash only the bot's own words count: anything else is a question.
    expect(parseCommand("random 20 30", { bare: true })).toBeUndefined();
    expect(parseCommand("language fr", { bare: true })).toEqual({ name: "language", code: "fr" });
  });

  it("reads language codes in any letter case and by the codes people use", () => {
    const code = (text: string) => (parseCommand(`/language ${text}`) as { code?: string }).code;
    expect(code("FR")).toBe("fr");
    expect(code("AUTO")).toBe("auto");
    expect(code("ja")).toBe("jp");
    expect(code("ja-JP")).toBe("jp");
    expect(code("zh")).toBe("zh-Hans");
    expect(code("zh-hans")).toBe("zh-Hans");
    expect(code("zh-CN")).toBe("zh-Hans");
    expect(code("zh-SG")).toBe("zh-Hans");
    expect(code("zh-TW")).toBe("zh-Hant");
    expect(code("zh-HK")).toBe("zh-Hant");
    expect(code("zh_Hant_TW")).toBe("zh-Hant");
    expect(code("en-GB")).toBe("en");
    expect(code("pt-BR")).toBe("pt");
    expect(code("German")).toBe("de");
    expect(code("japanese")).toBe("jp");
    for (const unknown of ["xx", "english-please", "e", "zh-XX-YY-ZZ-WW-VV-UU-TT-SS"]) {
      expect(parseCommand(`/language ${unknown}`)).toMatchObject({
        problem: { key: "languageUnknown" },
      });
    }
  });

  it("says what it expects when the arguments are wrong", () => {
    const problem = (text: string) => {
      const parsed = parseCommand(text);
      return parsed && isCommandProblem(parsed) ? translator("en").text(parsed.problem) : undefined;
    };
    expect(parseCommand("/leads soon")).toMatchObject({ name: "leads" });
    expect(problem("/leads soon")).toContain("/leads <days>");
    expect(problem("/leads 0")).toContain("(1 to 90)");
    expect(problem("/language xx")).toContain(
      "auto, en, fr, es, ru, zh-Hans, zh-Hant, ar, de, jp, pt, hi, ko, it, uk",
    );
  });
});

describe("commands through the pipeline", () => {
  it("/language by an admin sets it, says so in it, and later questions carry it", async () => {
    const h = await start();
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("/language fr"), surface);
    expect(surface.notices).toEqual([
      { text: "Les réponses ici sont désormais en français (fr).", private: false },
    ]);

    await h.bridge.handle(incoming("/language"), surface);
    expect(surface.notices[1]?.text).toBe(
      "Les réponses ici sont en français (fr). Les administrateurs peuvent la changer avec /language <code>.",
    );
    await h.bridge.handle(incoming("bonjour"), surface);
    expect(chatRequests(h)[0]?.chat?.language).toBe("fr");
    expect(surface.messages[0]).toContain("Answering in French (fr)");
  });

  it("/language by a non-admin is refused and nothing is stored", async () => {
    const h = await start();
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("/language de", member), surface);
    expect(surface.notices).toEqual([
      { text: "Only an admin of this channel can change the answer language.", private: true },
    ]);
    await h.bridge.handle(incoming("/language"), surface);
    expect(surface.notices[1]?.text).toContain("the language of each question (auto), the default");
  });

  it("/language with an unknown code lists the valid ones and stores nothing", async () => {
    const h = await start();
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("/language klingon"), surface);
    expect(surface.notices[0]?.text).toBe(
      "unknown language code. Valid codes: auto, en, fr, es, ru, zh-Hans, zh-Hant, ar, de, jp, pt, hi, ko, it, uk",
    );
    await h.bridge.handle(incoming("hello"), surface);
    expect(chatRequests(h)[0]?.chat?.language).toBe("auto");
  });

  it("/language ja sets Japanese and says so by name and code", async () => {
    const h = await start();
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("/language ja"), surface);
    await h.bridge.handle(incoming("/language ZH-tw"), surface);
    expect(surface.notices.map((n) => n.text)).toEqual([
      "ここでの回答言語を日本語（jp）に変更しました。",
      "這裡的回答語言已改為繁體中文（zh-Hant）。",
    ]);
    await h.bridge.handle(incoming("hello"), surface);
    expect(chatRequests(h)[0]?.chat?.language).toBe("zh-Hant");
  });

  it("/language auto resets to the default", async () => {
    const h = await start();
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("/language es"), surface);
    await h.bridge.handle(incoming("/language auto"), surface);
    expect(surface.notices[1]?.text).toBe(
      "Answer language reset: answers here are in the language of each question (auto).",
    );
  });

  it("/new starts a fresh conversation in the thread", async () => {
    const h = await start();
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("one"), surface);
    await h.bridge.handle(incoming("two"), surface);
    await h.bridge.handle(incoming("/new"), surface);
    await h.bridge.handle(incoming("three"), surface);
    const uids = chatRequests(h).map((r) => r.chat?.conversationUid);
    expect(uids[0]).toBeUndefined();
    expect(uids[1]).toEqual(expect.any(String));
    expect(uids[2]).toBeUndefined();
    expect(surface.messages[2]).toContain("This is the first question in our conversation.");
  });

  it("an unknown command is answered as one, with the list, and never reaches the chatbot", async () => {
    const h = await start();
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("/bogus"), surface);
    await h.bridge.handle(incoming("/random 20 30"), surface);
    expect(chatRequests(h)).toEqual([]);
    expect(surface.messages).toEqual([]);
    const [bogus, random] = surface.notices;
    expect(bogus?.private).toBe(true);
    expect(bogus?.text).toMatch(/^Unknown command \/bogus\.\nAsk me anything, or use a command:\n/);
    expect(bogus?.text).toContain("/language <code>");
    expect(random?.text).toMatch(/^Unknown command \/random\./);
  });

  it("/help lists every command, privately", async () => {
    const h = await start();
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("/help"), surface);
    const [help] = surface.notices;
    expect(help?.private).toBe(true);
    for (const command of [
      "/help",
      "/new",
      "/language <code>",
      "/leads [days]",
      "/leads subscribe",
    ]) {
      expect(help?.text).toContain(command);
    }
  });
});

describe("guards in front of the paid backend", () => {
  const guards = {
    allowedChannels: [],
    allowedUsers: [],
    maxQuestionChars: 50,
    rateLimitQuestions: 2,
    rateLimitWindowSeconds: 60,
  };

  it("refuses the third question in a minute without calling the backend", async () => {
    const h = await start({ bridge: { guards } });
    const surface = new MemorySurface();
    for (const q of ["one", "two", "three"]) await h.bridge.handle(incoming(q), surface);
    expect(chatRequests(h)).toHaveLength(2);
    expect(surface.notices.at(-1)?.text).toMatch(
      /^Slow down: you may ask 2 questions in 60 s\. Try again in (29|30) s\.$/,
    );
  });

  it("refuses a question over the length limit with a clear message", async () => {
    const h = await start({ bridge: { guards } });
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("x".repeat(51)), surface);
    expect(chatRequests(h)).toHaveLength(0);
    expect(surface.notices[0]?.text).toBe(
      "Your question is 51 characters long; the limit is 50. Please shorten it.",
    );
  });

  it("answers only allowed channels and users", async () => {
    const h = await start({
      bridge: { guards: { ...guards, allowedChannels: ["channel-1"], allowedUsers: ["user-1"] } },
    });
    const surface = new MemorySurface();
    await h.bridge.handle(incoming("hi", { channelId: "channel-2" }), surface);
    await h.bridge.handle(incoming("hi", { authorId: "user-2" }), surface);
    await h.bridge.handle(incoming("hi"), surface);
    expect(chatRequests(h)).toHaveLength(1);
    expect(surface.notices.map((n) => n.text)).toEqual([
      "This bot is not enabled in this channel.",
      "Sorry, you are not on the list of people who may use this bot.",
    ]);
  });
});
