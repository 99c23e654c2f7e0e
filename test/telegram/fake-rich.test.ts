import { Bot, GrammyError } from "grammy";
import { afterEach, describe, expect, it } from "vitest";
import {
  type Chat,
  type FakeTelegram,
  type FakeTelegramOptions,
  startFakeTelegram,
} from "../support/fake-telegram.ts";

/**
 * The fake Bot API's rich messages (Bot API 10.1), drafts' stop button and button styles,
 * driven through grammY as the bot drives them: what a test of the bot can rely on.
 */

let fake: FakeTelegram | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

interface Setup {
  fake: FakeTelegram;
  api: Bot["api"];
  dm: Chat;
  group: Chat;
  forum: Chat;
}

async function setup(options: FakeTelegramOptions = {}): Promise<Setup> {
  fake = await startFakeTelegram(options);
  const api = new Bot(fake.token, { client: { apiRoot: fake.url } }).api;
  const dm = fake.addChat({ id: 42, type: "private", first_name: "Alice" });
  const group = fake.addChat({ id: -100, type: "group", title: "Team" });
  const forum = fake.addChat({ id: -1002, type: "supergroup", title: "Forum", is_forum: true });
  return { fake, api, dm, group, forum };
}

/** The Bot API's refusal of `call`, as grammY reports it. */
async function refusal(call: Promise<unknown>): Promise<{ code: number; description: string }> {
  const error = await call.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!(error instanceof GrammyError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return { code: error.error_code, description: error.description };
}

const parseRefusal = (detail: string) => ({
  code: 400,
  description: `Bad Request: can't parse rich message: ${detail}`,
});

describe("fake Telegram: rich messages", () => {
  it("keeps a table as a table, with headings, and a plain reading of both", async () => {
    const { fake, api, group } = await setup();
    const sent = await api.sendRichMessage(group.id, {
      html:
        '<h2>Plans</h2><table><tr><th>Plan</th><th align="right">Price</th></tr>' +
        '<tr><td>Basic</td><td align="right">$5</td></tr>' +
        "<tr><td><b>Pro</b></td><td>$9</td></tr></table>",
    });

    const message = fake.message(group.id, sent.message_id);
    expect(message?.rich?.tables).toEqual([
      {
        header: ["Plan", "Price"],
        rows: [
          ["Basic", "$5"],
          ["Pro", "$9"],
        ],
        align: [undefined, "right"],
      },
    ]);
    expect(message?.rich?.headings).toEqual([{ level: 2, text: "Plans" }]);
    expect(message?.rich?.blocks).toBe(5);
    expect(message?.text).toBe("Plans\n\nPlan | Price\nBasic | $5\nPro | $9");
    expect(message?.entities).toEqual([{ type: "bold", offset: 31, length: 3 }]);
    expect(message?.raw).toContain("<table>");
    // The Message Telegram returns carries the blocks, not a text.
    expect(sent.rich_message.blocks.map((block) => block.type)).toEqual(["heading", "table"]);
    expect((sent as { text?: string }).text).toBeUndefined();
  });

  it("reads lists, quotes and code as a person does", async () => {
    const { fake, api, dm } = await setup();
    const html =
      "<p>Steps  to\n take:</p>" +
      "<ul><li>first <code>npm i</code></li><li>second<ul><li>nested</li></ul></li></ul>" +
      '<ol start="3"><li>three</li><li>four</li></ol>' +
      "<blockquote>Quoted<br>line<cite>Ada</cite></blockquote>" +
      '<pre><code class="language-ts">const a = 1;\n  a++;</code></pre>';
    const sent = await api.sendRichMessage(dm.id, { html });

    const message = fake.message(dm.id, sent.message_id);
    expect(message?.text).toBe(
      [
        "Steps to take:",
        "",
        "• first npm i",
        "• second",
        "  • nested",
        "",
        "3. three",
        "4. four",
        "",
        "Quoted\nline\n— Ada",
        "",
        "const a = 1;\n  a++;",
      ].join("\n"),
    );
    const text = message?.text ?? "";
    const of = (type: string) => {
      const entity = message?.entities.find((e) => e.type === type);
      return entity && text.slice(entity.offset, entity.offset + entity.length);
    };
    expect(of("code")).toBe("npm i");
    expect(of("blockquote")).toBe("Quoted\nline\n— Ada");
    expect(of("pre")).toBe("const a = 1;\n  a++;");
    expect(message?.entities.find((e) => e.type === "pre")?.language).toBe("ts");
  });

  it("posts in a topic, as a reply, and under the chat's flood limit like sendMessage", async () => {
    const { fake, api, forum, group } = await setup({
      limits: { chat: { perMinute: 60, burst: 2 } },
    });
    const topic = fake.createTopic(forum.id, "Help", fake.user(7, "Bo"));
    const asked = fake.write({ chat: forum.id, from: fake.user(7, "Bo"), text: "q", topic });
    const sent = await api.sendRichMessage(
      forum.id,
      { html: "<p>answer</p>" },
      {
        message_thread_id: topic,
        reply_parameters: { message_id: asked.message.message_id as number },
      },
    );
    expect(fake.message(forum.id, sent.message_id)).toMatchObject({
      threadId: topic,
      replyTo: asked.message.message_id,
    });
    expect(
      await refusal(
        api.sendRichMessage(
          group.id,
          { html: "<p>x</p>" },
          {
            reply_parameters: { message_id: 999 },
          },
        ),
      ),
    ).toEqual({ code: 400, description: "Bad Request: message to be replied not found" });

    await api.sendRichMessage(group.id, { html: "<p>one</p>" });
    await api.sendRichMessage(group.id, { html: "<p>two</p>" });
    expect((await refusal(api.sendRichMessage(group.id, { html: "<p>three</p>" }))).code).toBe(429);
    expect(fake.floodErrors).toBe(1);
  });

  it("holds 32,768 characters in one message and refuses one more", async () => {
    const { fake, api, dm } = await setup();
    const long = `${"word ".repeat(6_553)}abc`; // 32,768 characters
    expect(long.length).toBe(32_768);
    const sent = await api.sendRichMessage(dm.id, { html: `<p>${long}</p>` });
    expect(fake.message(dm.id, sent.message_id)?.text).toBe(long);

    expect(await refusal(api.sendRichMessage(dm.id, { html: `<p>${long}d</p>` }))).toEqual({
      code: 400,
      description: "Bad Request: message is too long",
    });
  });

  it("refuses more than 500 blocks, counting table rows", async () => {
    const { api, dm } = await setup();
    const table = (rows: number) => `<table>${"<tr><td>cell</td></tr>".repeat(rows)}</table>`;
    await expect(api.sendRichMessage(dm.id, { html: table(499) })).resolves.toBeDefined();
    expect(await refusal(api.sendRichMessage(dm.id, { html: table(500) }))).toEqual(
      parseRefusal("too many blocks: at most 500"),
    );
  });

  it("refuses more than 16 levels of nesting", async () => {
    const { fake, api, dm } = await setup();
    const quotes = (levels: number) =>
      `${"<blockquote>".repeat(levels)}deep${"</blockquote>".repeat(levels)}`;
    const sent = await api.sendRichMessage(dm.id, { html: quotes(16) });
    expect(fake.message(dm.id, sent.message_id)?.rich?.depth).toBe(16);
    expect(await refusal(api.sendRichMessage(dm.id, { html: quotes(17) }))).toEqual(
      parseRefusal(
        "too deep nesting at byte offset 192: at most 16 levels of formatting and blocks",
      ),
    );
  });

  it("refuses a table of more than 20 columns, spans included", async () => {
    const { api, dm } = await setup();
    const row = (cells: string) => `<table><tr>${cells}</tr></table>`;
    await expect(
      api.sendRichMessage(dm.id, { html: row("<td>c</td>".repeat(20)) }),
    ).resolves.toBeDefined();
    const refusedAt = parseRefusal("too many table columns at byte offset 7: at most 20");
    expect(
      await refusal(api.sendRichMessage(dm.id, { html: row("<td>c</td>".repeat(21)) })),
    ).toEqual(refusedAt);
    expect(
      await refusal(
        api.sendRichMessage(dm.id, {
          html: row(`${"<td>c</td>".repeat(19)}<td colspan="2">wide</td>`),
        }),
      ),
    ).toEqual(refusedAt);
  });

  it.each([
    [
      "<table><thead><tr><th>a</th></tr></thead></table>",
      'Unsupported start tag "thead" at byte offset 7',
    ],
    ['<p class="x">a</p>', 'Unsupported attribute "class" in tag "p" at byte offset 0'],
    ["<p>a &copy; b</p>", "Unsupported HTML entity at byte offset 5"],
    ["<p><b>a</p></b>", 'Unmatched end tag at byte offset 7, expected "</b>", found "</p>"'],
    ["<p>open", 'Can\'t find end tag corresponding to start tag "p"'],
    ["a > b", 'Unexpected ">" at byte offset 2'],
    [
      "<table><tr><td><ul><li>x</li></ul></td></tr></table>",
      'Table cells can contain only inline formatting, found "ul" at byte offset 15',
    ],
    [
      '<p>see <img src="https://example.com/a.png"/></p>',
      'Media can be specified only as a separate block, found "img" at byte offset 7',
    ],
    [
      '<img src="tg://photo?id=1"/>',
      "Media blocks support only HTTP and HTTPS URLs at byte offset 0",
    ],
    ["<li>loose</li>", 'Tag "li" can\'t be inside the message at byte offset 0'],
    [
      '<a href="javascript:alert(1)">x</a>',
      'Unsupported URL "javascript:alert(1)" at byte offset 0',
    ],
    [
      "<tg-thinking>Thinking…</tg-thinking>",
      'Tag "tg-thinking" can be used only in sendRichMessageDraft at byte offset 0',
    ],
  ])("refuses %s as Telegram does", async (html, detail) => {
    const { api, dm } = await setup();
    expect(await refusal(api.sendRichMessage(dm.id, { html }))).toEqual(parseRefusal(detail));
  });

  it("says which rich_message fields it does not model, and wants exactly one", async () => {
    const { api, dm } = await setup();
    expect(await refusal(api.sendRichMessage(dm.id, { markdown: "| a |" }))).toEqual({
      code: 501,
      description:
        "Not Implemented: the fake Bot API reads only rich_message.html, not rich_message.markdown",
    });
    expect(await refusal(api.sendRichMessage(dm.id, { html: "<p>a</p>", markdown: "a" }))).toEqual({
      code: 400,
      description:
        "Bad Request: exactly one of html, markdown and blocks must be specified in the rich message",
    });
    expect(await refusal(api.sendRichMessage(dm.id, { html: " \n " }))).toEqual({
      code: 400,
      description: "Bad Request: rich message is empty",
    });
  });

  it("detects mentions, links and commands unless told not to", async () => {
    const { fake, api, dm } = await setup();
    const html =
      "<p>ask @admin via https://evil.example.com/x. or /start, not <code>@quiet</code></p>";
    const detected = await api.sendRichMessage(dm.id, { html });
    const message = fake.message(dm.id, detected.message_id);
    const text = message?.text ?? "";
    const found = (message?.entities ?? [])
      .filter((e) => e.type !== "code")
      .map((e) => [e.type, text.slice(e.offset, e.offset + e.length)]);
    expect(found).toEqual([
      ["mention", "@admin"],
      ["url", "https://evil.example.com/x"],
      ["bot_command", "/start"],
    ]);

    const skipped = await api.sendRichMessage(dm.id, { html, skip_entity_detection: true });
    expect(fake.message(dm.id, skipped.message_id)?.entities.map((e) => e.type)).toEqual(["code"]);
  });
});

describe("fake Telegram: editMessageText with rich_message", () => {
  it("turns a text message rich and back, and refuses an edit that changes nothing", async () => {
    const { fake, api, group } = await setup();
    const sent = await api.sendMessage(group.id, "growing");
    const edit = (fields: Record<string, unknown>) =>
      api.raw.editMessageText({ chat_id: group.id, message_id: sent.message_id, ...fields });

    await edit({ rich_message: { html: "<table><tr><td>a</td><td>b</td></tr></table>" } });
    const message = fake.message(group.id, sent.message_id);
    expect(message?.rich?.tables[0]?.rows).toEqual([["a", "b"]]);
    expect(message?.text).toBe("a | b");

    expect(
      await refusal(
        edit({ rich_message: { html: "<table><tr><td>a</td><td>b</td></tr></table>" } }),
      ),
    ).toEqual({
      code: 400,
      description:
        "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
    });
    // The same reading as a classic text is a change: the table goes.
    await edit({ text: "a | b" });
    expect(message?.rich).toBeUndefined();
    expect(message?.history).toEqual(["growing", "a | b", "a | b"]);

    expect(await refusal(edit({ text: "x", rich_message: { html: "<p>x</p>" } }))).toEqual({
      code: 400,
      description: "Bad Request: exactly one of text and rich_message must be specified",
    });
  });
});

describe("fake Telegram: an older Bot API server", () => {
  it("answers 404 for the rich methods and ignores rich_message in an edit", async () => {
    const { fake, api, dm } = await setup({ richAvailable: false });
    const notFound = { code: 404, description: "Not Found" };
    expect(await refusal(api.sendRichMessage(dm.id, { html: "<p>a</p>" }))).toEqual(notFound);
    expect(await refusal(api.sendRichMessageDraft(dm.id, 1, { html: "<p>a</p>" }))).toEqual(
      notFound,
    );
    const sent = await api.sendMessage(dm.id, "classic");
    expect(
      await refusal(
        api.raw.editMessageText({
          chat_id: dm.id,
          message_id: sent.message_id,
          rich_message: { html: "<p>rich</p>" },
        }),
      ),
    ).toEqual({ code: 400, description: "Bad Request: message text is empty" });

    fake.richAvailable = true;
    await expect(api.sendRichMessage(dm.id, { html: "<p>a</p>" })).resolves.toBeDefined();
  });
});

describe("fake Telegram: drafts and their stop button", () => {
  it("shows rich drafts in private chats only, and keeps whether each showed a stop button", async () => {
    const { fake, api, dm, group } = await setup();
    expect(await refusal(api.sendRichMessageDraft(group.id, 1, { html: "<p>a</p>" }))).toEqual({
      code: 400,
      description: "Bad Request: TEXTDRAFT_PEER_INVALID",
    });
    expect(await refusal(api.sendRichMessageDraft(dm.id, 0, { html: "<p>a</p>" }))).toEqual({
      code: 400,
      description: "Bad Request: draft_id must be non-zero",
    });

    await api.sendRichMessageDraft(dm.id, 7, { html: "<tg-thinking>Thinking…</tg-thinking>" });
    await api.sendRichMessageDraft(
      dm.id,
      7,
      { html: "<table><tr><td>a</td></tr></table>" },
      { can_stop: true, keep_on_stop: true },
    );
    await api.sendMessageDraft(dm.id, 8, "classic", { can_stop: true });

    expect(fake.drafts(dm.id)).toEqual(
      new Map([
        [7, ["Thinking…", "a"]],
        [8, ["classic"]],
      ]),
    );
    const frames = fake.draftFrames(dm.id).get(7) ?? [];
    expect(frames.map((frame) => [frame.canStop, frame.keepOnStop])).toEqual([
      [false, false],
      [true, true],
    ]);
    expect(frames[1]?.rich?.tables[0]?.rows).toEqual([["a"]]);
    expect(fake.draftFrames(dm.id).get(8)?.[0]?.canStop).toBe(true);
  });

  it("delivers a press of the stop button to a bot that asked for it", async () => {
    const { fake, api, dm } = await setup();
    await api.sendRichMessageDraft(dm.id, 5, { html: "<p>half an answer</p>" }, { can_stop: true });
    await api.getUpdates({ allowed_updates: ["message", "stopped_message_generation"] });
    expect(fake.delivers("stopped_message_generation")).toBe(true);

    const update = fake.stopGeneration(dm.id, 5);
    const updates = await api.getUpdates({ timeout: 0 });
    expect(updates).toEqual([update]);
    expect(updates[0]?.stopped_message_generation).toEqual({
      chat: { id: dm.id, type: "private", first_name: "Alice" },
      draft_id: 5,
    });
    expect(() => fake.stopGeneration(dm.id, 5)).toThrow(/stopped already/);
  });

  it("drops the press for a bot that did not ask for it", async () => {
    const { fake, api, dm } = await setup();
    await api.getUpdates({ allowed_updates: ["message", "callback_query"] });
    expect(fake.delivers("stopped_message_generation")).toBe(false);
    await api.sendMessageDraft(dm.id, 3, "half", { can_stop: true });
    fake.stopGeneration(dm.id, 3);
    expect(await api.getUpdates({ timeout: 0 })).toEqual([]);
  });

  it("has no stop button to press where Telegram shows none", async () => {
    const { fake, api, dm } = await setup();
    expect(() => fake.stopGeneration(dm.id, 1)).toThrow(/never shown/);
    await api.sendRichMessageDraft(dm.id, 1, { html: "<p>a</p>" });
    expect(() => fake.stopGeneration(dm.id, 1)).toThrow(/without can_stop/);
    await api.sendRichMessageDraft(dm.id, 1, { html: "<p>ab</p>" }, { can_stop: true });
    // The final message replaces the draft, and its button with it.
    await api.sendRichMessage(dm.id, { html: "<p>abc</p>" });
    expect(() => fake.stopGeneration(dm.id, 1)).toThrow(/bot has sent a message/);
  });
});

describe("fake Telegram: button styles", () => {
  it("keeps a documented style and refuses any other", async () => {
    const { fake, api, group } = await setup();
    const stop = { text: "⏹ Stop", callback_data: "stop", style: "danger" as const };
    const sent = await api.sendRichMessage(
      group.id,
      { html: "<p>answer</p>" },
      { reply_markup: { inline_keyboard: [[stop]] } },
    );
    expect(fake.message(group.id, sent.message_id)?.replyMarkup).toEqual({
      inline_keyboard: [[stop]],
    });

    const refused = await refusal(
      api.sendMessage(group.id, "answer", {
        reply_markup: {
          inline_keyboard: [
            [{ text: "⏹ Stop", callback_data: "stop", style: "warning" as "danger" }],
          ],
        },
      }),
    );
    expect(refused).toEqual({
      code: 400,
      description:
        'Bad Request: can\'t parse inline keyboard button: Field "style" must be one of "danger", "success" or "primary"',
    });
  });
});
