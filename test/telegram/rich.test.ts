import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../../adapters/telegram/render.ts";
import { telegramRichRenderer } from "../../adapters/telegram/rich-render.ts";
import { hugeAnswer } from "../../src/simulator/answers.ts";
import type { FakeTelegram } from "../support/fake-telegram.ts";
import { type HeldBackend, startHeldBackend } from "../support/held-backend.ts";
import { cleanupAfterEach } from "../support/process-test.ts";
import { answered, firstAnswer, type Rig, type RigOptions, startRig, until } from "./rig.ts";

const track = cleanupAfterEach();

async function start(options: RigOptions = {}): Promise<Rig> {
  return track(await startRig(options), (rig) => rig.close());
}

/** A rig with TELEGRAM_RICH_MESSAGES=on. */
function startRich(options: RigOptions = {}): Promise<Rig> {
  return start({ ...options, channel: { richMessages: true, ...options.channel } });
}

const TABLE_ANSWER = [
  "Our plans:",
  "",
  "| Plan | Price | Seats |",
  "|:-----|------:|:-----:|",
  "| **Basic** | $5 | 1 |",
  "| Team | `$20` | 10 |",
  "",
  "Ask for a quote.",
].join("\n");

const PLANS = {
  header: ["Plan", "Price", "Seats"],
  rows: [
    ["Basic", "$5", "1"],
    ["Team", "$20", "10"],
  ],
  align: ["left", "right", "center"],
};

/** Without the word joiner that keeps an `@name` from pinging. */
const unjoined = (text: string | undefined) => text?.replace(/\u2060/g, "");

/** The calls that carried a rich message, or asked whether the server has rich messages. */
const richCalls = (fake: FakeTelegram) =>
  fake.calls.filter((c) => c.method.startsWith("sendRich") || c.params.rich_message !== undefined);

describe("Telegram answers by default (TELEGRAM_RICH_MESSAGES off)", () => {
  it("sends answers, command replies and notes as HTML messages on a server that has rich messages, a table as a monospaced grid", async () => {
    const rig = await start({ answer: TABLE_ANSWER });
    const { fake, alice, dm, group } = rig;
    await answered(rig, fake.write({ chat: dm.id, from: alice, text: "plans?" }));
    await answered(rig, fake.write({ chat: group.id, from: alice, text: "@ChatBridgeBot plans?" }));
    await answered(rig, fake.write({ chat: dm.id, from: alice, text: "/help" }));
    await answered(rig, fake.write({ chat: dm.id, from: alice, sticker: true }));

    for (const chat of [dm.id, group.id]) {
      const [answer] = fake.botMessages(chat);
      expect(answer?.parseMode).toBe("HTML");
      expect(answer?.rich).toBeUndefined();
      expect(answer?.raw).toBe(renderMarkdown(TABLE_ANSWER));
      expect(answer?.text).toContain("Plan  | Price | Seats\n------|-------|------\nBasic | $5 ");
      expect(answer?.entities.map((e) => e.type)).toContain("pre");
    }
    const [, help, note] = fake.botMessages(dm.id);
    expect(help?.text).toMatch(/^Ask me anything, or use a command:/);
    expect(note?.text).toMatch(/^I can only read text/);
    expect(fake.botMessages(dm.id).map((m) => m.parseMode)).toEqual(["HTML", "HTML", "HTML"]);
    expect(fake.callsTo("sendMessage").filter((c) => c.ok)).toHaveLength(4);
    // Not even the question at start whether the server has them.
    expect(richCalls(fake)).toEqual([]);
  });

  it("with TELEGRAM_DRAFTS=on, streams plain drafts with Telegram's stop button and sends the final text as an HTML message", async () => {
    const rig = await start({
      simulator: { chunkDelayMs: 4, chunkChars: [4, 12] },
      channel: { drafts: true },
    });
    const { fake, alice, dm } = rig;
    const question = "What can you do?";
    await answered(rig, fake.write({ chat: dm.id, from: alice, text: question }));

    const [frames] = [...fake.draftFrames(dm.id).values()];
    expect(frames?.length).toBeGreaterThan(2);
    expect(frames?.every((frame) => frame.rich === undefined && frame.canStop)).toBe(true);
    expect(fake.callsTo("sendMessageDraft", dm.id).every((c) => c.ok)).toBe(true);
    const [message] = fake.botMessages(dm.id);
    expect(message?.parseMode).toBe("HTML");
    expect(message?.raw).toBe(renderMarkdown(firstAnswer(question)));
    expect(fake.botMessages(dm.id)).toHaveLength(1);
    expect(richCalls(fake)).toEqual([]);
  });
});

describe("a 10,000-character answer in Telegram", () => {
  const rich = { channel: { richMessages: true } };
  for (const { how, when, options, count, limit } of [
    {
      how: "splits it at 4,096 characters",
      when: "by default, on a Bot API server that has rich messages",
      options: {},
      count: 3,
      limit: 4_096,
    },
    {
      how: "holds it in one rich message",
      when: "with TELEGRAM_RICH_MESSAGES=on",
      options: rich,
      count: 1,
      limit: 32_768,
    },
    {
      how: "splits it at 4,096 characters",
      when: "with TELEGRAM_RICH_MESSAGES=on on a Bot API server without rich messages",
      options: { ...rich, fake: { richAvailable: false } },
      count: 3,
      limit: 4_096,
    },
  ] satisfies { options: RigOptions; [key: string]: unknown }[]) {
    it(`${how} ${when}, each message grown by edits`, async () => {
      const rig = await start({
        ...options,
        simulator: { chunkDelayMs: 1, chunkChars: [200, 400] },
      });
      const { fake, alice, dm } = rig;
      await answered(rig, fake.write({ chat: dm.id, from: alice, text: "everything #huge=10000" }));

      const messages = fake.botMessages(dm.id);
      expect(messages).toHaveLength(count);
      const isRich = limit > 4_096;
      for (const message of messages) {
        expect(message.text.length).toBeLessThanOrEqual(limit);
        expect(message.rich !== undefined).toBe(isRich);
        expect(message.parseMode).toBe(isRich ? undefined : "HTML");
      }
      expect(messages.map((m) => m.text).join("\n\n")).toBe(hugeAnswer(10_000).trimEnd());
      const edits = fake.callsTo("editMessageText", dm.id);
      expect(edits.length).toBeGreaterThan(0);
      expect(edits.every((c) => (c.params.rich_message !== undefined) === isRich)).toBe(true);
      expect(fake.floodErrors).toBe(0);
    });
  }
});

describe("Telegram rich messages (TELEGRAM_RICH_MESSAGES=on)", () => {
  it("shows a table answer as a table, in a private chat and in a group, exactly as rendered", async () => {
    const rig = await startRich({ answer: TABLE_ANSWER });
    const { fake, alice, dm, group } = rig;
    await answered(rig, fake.write({ chat: dm.id, from: alice, text: "plans?" }));
    await answered(rig, fake.write({ chat: group.id, from: alice, text: "@ChatBridgeBot plans?" }));

    for (const chat of [dm.id, group.id]) {
      const messages = fake.botMessages(chat);
      expect(messages).toHaveLength(1);
      const [message] = messages;
      expect(message?.rich?.tables).toEqual([PLANS]);
      expect(message?.raw).toBe(telegramRichRenderer.render(TABLE_ANSWER));
      expect(message?.text.startsWith("Our plans:\n\n")).toBe(true);
      expect(message?.text.endsWith("\n\nAsk for a quote.")).toBe(true);
    }
    expect(fake.callsTo("sendRichMessage").filter((c) => c.ok)).toHaveLength(2);
    expect(fake.callsTo("sendMessage")).toHaveLength(0);
    // Every rich call leaves the chatbot's @names, commands and numbers as text.
    const richCalls = fake.calls.filter((c) => c.ok && c.params.rich_message !== undefined);
    expect(
      richCalls.every(
        (c) => (c.params.rich_message as { skip_entity_detection?: boolean }).skip_entity_detection,
      ),
    ).toBe(true);
  });

  it("answers as before on a Bot API server without rich messages, saying why once", async () => {
    const rig = await startRich({ fake: { richAvailable: false }, answer: TABLE_ANSWER });
    const { fake, alice, dm } = rig;
    await answered(rig, fake.write({ chat: dm.id, from: alice, text: "plans?" }));
    await answered(rig, fake.write({ chat: dm.id, from: alice, text: "again?" }));

    const messages = fake.botMessages(dm.id);
    expect(messages).toHaveLength(2);
    for (const message of messages) {
      // An HTML message, its table a monospaced grid.
      expect(message.parseMode).toBe("HTML");
      expect(message.raw).toBe(renderMarkdown(TABLE_ANSWER));
      expect(message.entities.map((e) => e.type)).toContain("pre");
    }
    // Asked once, at start; no rich call after.
    expect(fake.callsTo("sendRichMessageDraft")).toHaveLength(1);
    expect(fake.callsTo("sendRichMessage")).toHaveLength(0);
    const said = rig.logs.filter((line) => line.includes("has no rich messages"));
    expect(said).toHaveLength(1);
  });

  it("lays out an Arabic answer right to left, an English one left to right", async () => {
    const arabic = "**الخطط**\n\n| الخطة | السعر |\n| --- | --- |\n| أساسية | 5 $ |";
    const rig = await startRich({ answer: arabic });
    const { fake, alice, dm } = rig;
    await answered(rig, fake.write({ chat: dm.id, from: alice, text: "الخطط؟" }));
    expect(fake.botMessages(dm.id)[0]?.richMessage?.is_rtl).toBe(true);
    expect(fake.botMessages(dm.id)[0]?.rich?.tables[0]?.header).toEqual(["الخطة", "السعر"]);

    const english = await startRich({ answer: TABLE_ANSWER });
    await answered(
      english,
      english.fake.write({
        chat: english.group.id,
        from: english.alice,
        text: "@ChatBridgeBot plans?",
      }),
    );
    expect(english.fake.botMessages(english.group.id)[0]?.richMessage?.is_rtl).toBeUndefined();
  });

  it("keeps a chatbot's mentions, disguised links, tg:// links and markup inert", async () => {
    const answer = [
      "Hi @alice_example, see [https://bank.example](https://evil.example/login).",
      "[tap me](tg://user?id=1) ![👍](tg://emoji?id=5368324170671202286) and",
      '<a href="tg://resolve?domain=x">raw</a> <tg-emoji emoji-id="1">👍</tg-emoji> /start',
      "",
      "| who | note |",
      "| --- | ---- |",
      "| @bob_example | [site](javascript:alert(1)) |",
    ].join("\n");
    const rig = await startRich({ answer });
    const { fake, alice, group } = rig;
    await answered(rig, fake.write({ chat: group.id, from: alice, text: "@ChatBridgeBot hi" }));
    const [message] = fake.botMessages(group.id);
    const types = message?.entities.map((e) => e.type) ?? [];
    for (const live of ["mention", "text_mention", "custom_emoji", "bot_command"]) {
      expect(types).not.toContain(live);
    }
    const links = message?.entities.filter((e) => e.type === "text_link") ?? [];
    expect(links.map((e) => e.url)).toEqual(["https://evil.example/login"]);
    // The disguised label shows its real target beside it.
    expect(message?.text).toContain("https://bank.example (https://evil.example/login)");
    expect(message?.raw).not.toMatch(/<a href="(?!https?:)/);
    expect(message?.raw).not.toContain("<tg-emoji");
    expect(unjoined(message?.text)).toContain(
      '<a href="tg://resolve?domain=x">raw</a> <tg-emoji emoji-id="1">👍</tg-emoji> /start',
    );
    expect(unjoined(message?.rich?.tables[0]?.rows[0]?.[0])).toBe("@bob_example");
  });
});

describe("Telegram rich drafts (TELEGRAM_RICH_MESSAGES=on, TELEGRAM_DRAFTS=on)", () => {
  let held: HeldBackend | undefined;

  it("streams a rich draft with Telegram's stop button, whose press stops the answer", async () => {
    held = track(await startHeldBackend(), (backend) => {
      backend.releaseAll();
      return backend.close();
    });
    const rig = await startRich({ backend: held, channel: { drafts: true } });
    const { fake, alice, dm } = rig;
    fake.write({ chat: dm.id, from: alice, text: "weather" });
    const stoppable = () =>
      [...fake.draftFrames(dm.id)].find(([, frames]) => frames.some((f) => f.canStop && f.rich));
    await until(() => stoppable() !== undefined, 5_000, "a rich draft with a stop button");
    const [draftId] = stoppable() ?? [0];

    const press = fake.stopGeneration(dm.id, draftId);
    await answered(rig, press);
    await until(() => fake.botMessages(dm.id).length > 0, 5_000, "the message");
    expect(held.dropped).toEqual(["weather"]);
    const [sent] = fake.botMessages(dm.id);
    expect(unjoined(sent?.text)).toBe("Answer to weather\n\n⏹ stopped by @alice_example");
    expect(sent?.rich).toBeDefined();
    expect(sent?.replyMarkup?.inline_keyboard.flat().map((b) => b.text)).toEqual(["👍", "👎"]);
    expect(fake.botMessages(dm.id)).toHaveLength(1);
  });
});
