import { afterEach, describe, expect, it } from "vitest";
import { ButtonHandlers } from "../../src/bridge/button-handlers.ts";
import type { LeadAnnouncer } from "../../src/ports.ts";
import type { StoredMessage, User } from "../support/fake-telegram.ts";
import { announceOneLead } from "../support/lead-cards.ts";
import { answered, type Rig, startRig } from "./rig.ts";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/**
 * The group is a lead channel with one announcement, claim buttons on; `announcer` posts it
 * (by default the channel's own).
 */
async function announced(
  announcer: (r: Rig) => LeadAnnouncer = (r) => r.channel.leadAnnouncer,
): Promise<{ r: Rig; card: StoredMessage }> {
  const buttons = new ButtonHandlers();
  const r = await startRig({ simulator: { leads: 0 }, channel: { buttons } });
  rig = r;
  const { store, backend, simulator } = r.harness;
  await announceOneLead({
    buttons,
    store,
    backend,
    simulator,
    channel: { platform: "telegram", id: String(r.group.id) },
    announcer: announcer(r),
    lead: { name: "Dana Buyer", phone: "+1 555 0100", email: "dana@example.com" },
  });
  const [card] = r.fake.botMessages(r.group.id);
  if (!card) throw new Error("no announcement");
  return { r, card };
}

const dataOf = (card: StoredMessage) =>
  card.replyMarkup?.inline_keyboard[0]?.[0]?.callback_data ?? "";

const labels = (card: StoredMessage) =>
  (card.replyMarkup?.inline_keyboard ?? []).flat().map((button) => button.text);

/** Presses the card's button as it shows now, or as it showed before (`data`). */
async function press(
  r: Rig,
  card: StoredMessage,
  from: User,
  data = dataOf(card),
): Promise<string> {
  const update = r.fake.press({ chat: r.group.id, messageId: card.message_id, from, data });
  await answered(r, update);
  return update.callback_query.id as string;
}

describe("claiming a lead in Telegram", () => {
  it("gives the lead to the first presser, edits the card, alerts a later presser, and lets the claimer release it", async () => {
    const { r, card } = await announced();
    expect(labels(card)).toEqual(["I'll take it"]);
    const eve = r.fake.user(1004, "<b>Eve</b> @channel_admin");
    r.fake.setMember(r.group.id, eve.id, "member");

    const claimData = dataOf(card);
    const first = await press(r, card, eve);
    expect(card.text.split("\n").at(-1)).toMatch(
      /^Claimed by <b>Eve<\/b> @\u2060channel_admin at [A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d UTC$/,
    );
    expect(card.entities.filter((e) => e.type === "mention" || e.type === "bold").length).toBe(
      card.entities.filter((e) => e.type === "bold").length,
    );
    expect(labels(card)).toEqual(["Release"]);
    // Every press is answered; the claimer's with nothing to show.
    expect(r.fake.callbackAnswers).toEqual([{ queryId: first }]);

    // Alice saw the card before it changed: her "I'll take it" comes after Eve's.
    const second = await press(r, card, r.alice, claimData);
    expect(r.fake.callbackAnswers.at(-1)).toEqual({
      queryId: second,
      text: expect.stringMatching(
        /^<b>Eve<\/b> @channel_admin already took this lead, at .* UTC\.$/,
      ),
      showAlert: true,
    });
    const edits = card.history.length;
    await press(r, card, r.alice);
    expect(r.fake.callbackAnswers.at(-1)?.text).toBe(
      "Only <b>Eve</b> @channel_admin, who took this lead, can release it.",
    );

    await press(r, card, eve);
    expect(card.text).not.toContain("Claimed by");
    expect(labels(card)).toEqual(["I'll take it"]);
    expect(card.history.length).toBe(edits + 1);

    await press(r, card, r.alice);
    expect(card.text.split("\n").at(-1)).toMatch(/^Claimed by @\u2060alice_example at /); // shown, but no ping
  });

  it("takes a claim pressed the moment the card shows, before the bot has recorded where the card is", async () => {
    let pressId: string | undefined;
    // Eve's press reaches the bot while its post of the card is still on its way back.
    const { r, card } = await announced((r) => {
      const eve = r.fake.user(1004, "Eve", "eve_sales");
      r.fake.setMember(r.group.id, eve.id, "member");
      const posted = r.channel.leadAnnouncer;
      return {
        platform: posted.platform,
        channelKey: (channelId) => posted.channelKey(channelId),
        show: (message, lead, state) => posted.show?.(message, lead, state) ?? Promise.resolve(),
        async announce(channelId, announcement, state) {
          const at = await posted.announce(channelId, announcement, state);
          const [shown] = r.fake.botMessages(r.group.id);
          if (!shown) throw new Error("no card shown");
          pressId = await press(r, shown, eve);
          return at;
        },
      };
    });

    // Answered with nothing to show (no "can no longer be claimed here"), and the card says so.
    expect(r.fake.callbackAnswers).toEqual([{ queryId: pressId }]);
    expect(card.text.split("\n").at(-1)).toMatch(/^Claimed by @\u2060eve_sales at /);
    expect(labels(card)).toEqual(["Release"]);
  });
});
