import { afterEach, describe, expect, it } from "vitest";
import { renderMarkdown } from "../../adapters/telegram/render.ts";
import { telegramRichRenderer } from "../../adapters/telegram/rich-render.ts";
import { hugeAnswer } from "../../src/simulator/answers.ts";
import { markupOf } from "../support/fake-telegram.ts";
import { answered, firstAnswer, type Rig, startRig, until } from "./rig.ts";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const NOT_MODIFIED =
  "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

describe("Telegram edit errors", () => {
  it("takes 'message is not modified' as success", async () => {
    rig = await startRig({ simulator: { chunkDelayMs: 3, chunkChars: [10, 20] } });
    const { fake, alice, group } = rig;
    fake.failNext({
      method: "editMessageText",
      chatId: group.id,
      errorCode: 400,
      description: NOT_MODIFIED,
    });
    const update = fake.write({
      chat: group.id,
      from: alice,
      text: "@ChatBridgeBot go #huge=2000",
    });
    await answered(rig, update);

    const edits = fake.callsTo("editMessageText", group.id);
    const failed = edits.filter((c) => !c.ok);
    expect(failed.map((c) => c.description)).toEqual([NOT_MODIFIED]);
    // Taken as success: the next edit moves on to newer text instead of retrying the same.
    const refused = edits.findIndex((c) => !c.ok);
    expect(markupOf(edits[refused + 1])).toBeDefined();
    expect(markupOf(edits[refused + 1])).not.toBe(markupOf(edits[refused]));
    const messages = fake.botMessages(group.id);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.text).toBe(hugeAnswer(2_000).trimEnd());
  });

  it("continues in a new message when a person deleted the one being edited", async () => {
    rig = await startRig();
    const { fake, alice, group } = rig;
    const question = "@ChatBridgeBot wait for it #pause=400";
    const update = fake.write({ chat: group.id, from: alice, text: question });
    await until(() => fake.botMessages(group.id).length === 1, 3_000, "the first half");
    const [first] = fake.botMessages(group.id);
    fake.deleteMessage(group.id, first?.message_id as number);
    await answered(rig, update);

    const failed = fake.callsTo("editMessageText", group.id).filter((c) => !c.ok);
    expect(failed.map((c) => c.description)).toEqual(["Bad Request: message to edit not found"]);
    const messages = fake.botMessages(group.id);
    expect(messages).toHaveLength(1);
    expect(messages[0]?.message_id).not.toBe(first?.message_id);
    expect(messages[0]?.raw).toBe(renderMarkdown(firstAnswer("wait for it #pause=400")));
    expect(messages[0]?.replyTo).toBe(update.message.message_id);
  });

  for (const { form, richMessages, refusal, render, parseMode } of [
    {
      form: "an HTML message",
      richMessages: false,
      refusal: `can't parse entities: Unsupported start tag "x" at byte offset 0`,
      render: renderMarkdown,
      parseMode: "HTML",
    },
    {
      form: "a rich message",
      richMessages: true,
      refusal: `can't parse rich message: Unsupported start tag "x" at byte offset 0`,
      render: telegramRichRenderer.render,
      parseMode: undefined,
    },
  ]) {
    it(`re-sends ${form} Telegram cannot parse as its plain text once, then formatted again`, async () => {
      rig = await startRig({
        simulator: { chunkDelayMs: 5, chunkChars: [3, 6] },
        channel: { richMessages },
      });
      const { fake, alice, group } = rig;
      fake.failNext({
        method: "editMessageText",
        chatId: group.id,
        errorCode: 400,
        description: `Bad Request: ${refusal}`,
      });
      const update = fake.write({ chat: group.id, from: alice, text: "@ChatBridgeBot format" });
      await answered(rig, update);

      const edits = fake.callsTo("editMessageText", group.id);
      const refused = edits.findIndex((c) => !c.ok);
      const retry = edits[refused + 1];
      expect(refused).toBeGreaterThanOrEqual(0);
      expect(retry?.ok).toBe(true);
      expect(retry?.params.parse_mode).toBeUndefined();
      // No bold, link, list or code left to misparse (a rich one: one paragraph of lines).
      expect(markupOf(retry)?.replace(/<\/?p>|<br\/>/g, "")).not.toMatch(/<[a-z]/);
      // Later edits are formatted again, so the final text keeps its formatting.
      const [message] = fake.botMessages(group.id);
      expect(message?.raw).toBe(render(firstAnswer("format")));
      expect(message?.parseMode).toBe(parseMode);
      expect(message?.entities.map((e) => e.type)).toEqual(
        expect.arrayContaining(["bold", "italic", "code", "text_link", "pre"]),
      );
      expect(rig.logs.join("")).toContain("sending it as plain text");
    });
  }

  for (const { form, richMessages, draft, send } of [
    { form: "a rich", richMessages: true, draft: "sendRichMessageDraft", send: "sendRichMessage" },
    { form: "an HTML", richMessages: false, draft: "sendMessageDraft", send: "sendMessage" },
  ]) {
    it(`honours a 429 on ${form} draft too, and still persists the final text once`, async () => {
      rig = await startRig({
        simulator: { chunkDelayMs: 3, chunkChars: [10, 20] },
        channel: { drafts: true, richMessages },
      });
      const { fake, alice, dm } = rig;
      fake.failNext({
        method: draft,
        chatId: dm.id,
        errorCode: 429,
        description: "Too Many Requests: retry after 1",
        retryAfter: 0.3,
      });
      await answered(rig, fake.write({ chat: dm.id, from: alice, text: "draft #huge=1500" }));
      expect(fake.floodErrors).toBe(1);
      expect(fake.violations).toBe(0);
      expect(fake.callsTo(send, dm.id).filter((c) => c.ok)).toHaveLength(1);
      expect(fake.callsTo("editMessageText", dm.id)).toHaveLength(0);
      expect(fake.botMessages(dm.id)[0]?.text).toBe(hugeAnswer(1_500).trimEnd());
    });
  }
});
