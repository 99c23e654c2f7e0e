import { afterEach, describe, expect, it } from "vitest";
import { ButtonHandlers } from "../../src/bridge/button-handlers.ts";
import { ChannelLanguages } from "../../src/i18n/channel-language.ts";
import { registerClaimButtons } from "../../src/leads/claim-buttons.ts";
import { LeadChannels } from "../../src/leads/lead-channels.ts";
import { CLAIM_ACTION, LeadClaimBook } from "../../src/leads/lead-claims.ts";
import { leadId } from "../../src/leads/lead-id.ts";
import { createLogger } from "../../src/log.ts";
import type { Lead, LeadAnnouncer, LeadCardState, PressedButton } from "../../src/ports.ts";
import { type Harness, startHarness } from "../support/bridge-harness.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const LEAD: Lead = {
  botUid: "bot",
  conversationUid: "conv-1",
  createdAt: "2026-11-24T10:00:00Z",
  name: "Ada",
  phone: "+1 555 0100",
  email: "ada@example.com",
  remark: "call back",
};
const CARD = { ts: "1700000000.000100" };

/** A press of "I'll take it" on the lead's one card, by `person`. */
function claimPress(id: string, person: string): PressedButton {
  return {
    channel: "test",
    action: CLAIM_ACTION,
    id,
    person: { id: person, name: `@${person}`, isAdmin: async () => false },
    channelId: "leads",
    channelKey: "test:leads",
    message: CARD,
    replyPrivately: async () => undefined,
  };
}

describe("lead cards", () => {
  it("show who holds the lead when a release and a claim elsewhere cross this press's edit", async () => {
    harness = await startHarness();
    const { store } = harness;
    const book = new LeadClaimBook(store);
    const id = leadId(LEAD);
    await book.announcing(id, LEAD, { platform: "test", channelId: "leads" });
    await book.posted(id, { platform: "test", channelId: "leads", message: CARD });
    const shown: LeadCardState[] = [];
    let crossed = false;
    const announcer: LeadAnnouncer = {
      platform: "test",
      channelKey: (channelId) => `test:${channelId}`,
      announce: async () => CARD,
      async show(_message, _lead, state) {
        shown.push(state);
        if (crossed) return;
        crossed = true;
        // Another process, while this edit is on its way: p1 lets go and p2 takes the lead.
        const holder = await book.holder(id);
        if (holder) await book.release(id, holder.record);
        await book.claim(id, {
          platform: "test",
          personId: "p2",
          name: "@p2",
          at: new Date().toISOString(),
        });
      },
    };
    const buttons = new ButtonHandlers();
    registerClaimButtons(buttons, {
      book,
      channels: new LeadChannels(store, [{ platform: "test", id: "leads" }]),
      announcers: [announcer],
      languages: new ChannelLanguages(store, "auto"),
      log: createLogger({ level: "silent", secrets: [] }),
    });

    expect(await buttons.handle(claimPress(id, "p1"))).toBe(true);

    expect(shown.at(-1)?.status).toContain("@p2");
    expect((await book.holder(id))?.claim.personId).toBe("p2");
  });
});
