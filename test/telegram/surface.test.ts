import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { MAX_MESSAGE_LENGTH, MAX_RICH_TEXT_LENGTH } from "../../adapters/telegram/limits.ts";
import {
  htmlFormat,
  type MessageFormat,
  richFormat,
} from "../../adapters/telegram/message-format.ts";
import { RateBudget } from "../../src/coordination/call-budget.ts";
import { openStore } from "../../src/store/open-store.ts";
import { startFakeTelegram } from "../support/fake-telegram.ts";
import { replySurfaceContract, type SurfaceUnderTest } from "../support/reply-surface-contract.ts";
import { groupSurface, type Rig, startRig } from "./rig.ts";

/** The calls that put an answer's text on screen, in either form. */
const TEXT_METHODS = new Set([
  "sendMessage",
  "sendRichMessage",
  "editMessageText",
  "sendMessageDraft",
  "sendRichMessageDraft",
]);

/** A Telegram group answered in `format`, with its fakes; `close` stops them. */
async function open(format: MessageFormat): Promise<SurfaceUnderTest> {
  const fake = await startFakeTelegram();
  const group = fake.addChat({ id: -1002, type: "supergroup", title: "Team" });
  const dataDir = await mkdtemp(join(tmpdir(), "telegram-surface-"));
  const store = await openStore({ dataDir });
  const surface = groupSurface(fake, group.id, {
    budget: new RateBudget({ perMinute: 6_000, burst: 10 }),
    store,
    format,
  });
  return {
    surface,
    textCalls: () =>
      fake.calls.filter((c) => c.ok && TEXT_METHODS.has(c.method) && c.params.chat_id === group.id)
        .length,
    messages: () => fake.botMessages(group.id).map((m) => m.raw),
    close: async () => {
      await fake.close();
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

replySurfaceContract(
  "a Telegram group with rich messages (TELEGRAM_RICH_MESSAGES=on)",
  () => open(richFormat),
  // Rich HTML a second rendering would escape, and Markdown it would turn into tags.
  [
    "<p><b>bold</b> and **stars**</p>",
    "<p><b>bold</b> and **stars**, <i>then</i></p>",
    "<p><code>x &lt; y</code> _done_</p>",
  ],
);

replySurfaceContract(
  "a Telegram group with HTML messages",
  () => open(htmlFormat),
  // HTML a second rendering would escape, and Markdown it would turn into tags.
  [
    "<b>bold</b> and **stars**",
    "<b>bold</b> and **stars**, <i>then</i>",
    "<code>x &lt; y</code> _done_",
  ],
);

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

for (const { setting, server, richMessages, richAvailable, longest } of [
  {
    setting: "by default",
    server: "with rich messages",
    richMessages: false,
    richAvailable: true,
    longest: MAX_MESSAGE_LENGTH,
  },
  {
    setting: "with TELEGRAM_RICH_MESSAGES=on",
    server: "with rich messages",
    richMessages: true,
    richAvailable: true,
    longest: MAX_RICH_TEXT_LENGTH,
  },
  {
    setting: "with TELEGRAM_RICH_MESSAGES=on",
    server: "without rich messages",
    richMessages: true,
    richAvailable: false,
    longest: MAX_MESSAGE_LENGTH,
  },
]) {
  it(`tells the engine the longest message ${setting} on a Bot API server ${server}, so answers split where the platform would`, async () => {
    rig = await startRig({ fake: { richAvailable }, channel: { richMessages } });
    const place = {
      chatId: rig.group.id,
      isPrivate: false,
      threadKey: "t",
      chained: false,
    };
    const surface = rig.channel.surfaceFor?.(place);
    expect(surface?.limits.maxMessageLength).toBe(longest);
  });
}
