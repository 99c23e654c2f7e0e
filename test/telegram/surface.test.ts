import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { MAX_MESSAGE_LENGTH } from "../../adapters/telegram/limits.ts";
import { RateBudget } from "../../src/coordination/call-budget.ts";
import { openStore } from "../../src/store/open-store.ts";
import { startFakeTelegram } from "../support/fake-telegram.ts";
import { replySurfaceContract, type SurfaceUnderTest } from "../support/reply-surface-contract.ts";
import { groupSurface } from "./rig.ts";

const TEXT_METHODS = new Set(["sendMessage", "editMessageText", "sendMessageDraft"]);

/** A Telegram group, with its fakes; `close` stops them. */
async function open(): Promise<SurfaceUnderTest> {
  const fake = await startFakeTelegram();
  const group = fake.addChat({ id: -1002, type: "supergroup", title: "Team" });
  const dataDir = await mkdtemp(join(tmpdir(), "telegram-surface-"));
  const store = await openStore({ dataDir });
  const surface = groupSurface(fake, group.id, {
    budget: new RateBudget({ perMinute: 6_000, burst: 10 }),
    store,
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
  "a Telegram group",
  open,
  // HTML a second rendering would escape, and Markdown it would turn into tags.
  [
    "<b>bold</b> and **stars**",
    "<b>bold</b> and **stars**, <i>then</i>",
    "<code>x &lt; y</code> _done_",
  ],
);

it("tells the engine Telegram's longest message, so answers split where the platform would", async () => {
  const under = await open();
  try {
    expect(under.surface.limits.maxMessageLength).toBe(MAX_MESSAGE_LENGTH);
  } finally {
    await under.close();
  }
});
