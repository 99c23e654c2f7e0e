import { describe, expect, it } from "vitest";
import { ButtonHandlers } from "../../src/bridge/button-handlers.ts";
import type { FakeMessage } from "../support/fake-slack.ts";
import { viewMrkdwn } from "../support/fake-slack-view.ts";
import {
  announceOneLeadInC1,
  blockActions,
  type SlackHarness,
  slackHarnessPerTest,
} from "../support/slack-harness.ts";

const startHarness = slackHarnessPerTest();

/** A Slack channel whose lead channel C1 got one announcement, with the claim buttons on. */
async function announced(
  logLevel: "info" | "warn" = "warn",
): Promise<{ h: SlackHarness; card: FakeMessage }> {
  const buttons = new ButtonHandlers();
  const h = await startHarness({
    logLevel,
    simulator: { leads: 0 },
    slack: { buttons },
    fake: { users: { U1: {}, U2: {}, UADMIN: { isAdmin: true } } },
  });
  await announceOneLeadInC1(h, buttons, {
    name: "Dana Buyer",
    phone: "+1 555 0100",
    email: "dana@example.com",
  });
  const [card] = [...h.fake.messages.values()];
  if (!card) throw new Error("no announcement");
  return { h, card };
}

/** What a person sees of the card's own lines (its context block) and its buttons. */
function shown(h: SlackHarness, card: FakeMessage) {
  const context = (card.blocks ?? []).flatMap((block) => {
    const { type, elements } = block as { type: string; elements?: { text: string }[] };
    return type === "context" ? (elements ?? []).map((e) => viewMrkdwn(e.text)) : [];
  });
  return {
    status: context.map((view) => view.visible),
    pings: context.flatMap((view) => view.pings),
    buttons: h.fake.buttonsOf(card).map((b) => b.label),
  };
}

const press = (h: SlackHarness, card: FakeMessage, user: string, username: string) => {
  const [button] = h.fake.buttonsOf(card);
  if (!button) throw new Error("no button on the card");
  return h.sendAction(
    blockActions({
      actionId: button.actionId,
      value: button.value,
      user,
      username,
      messageTs: card.ts,
    }),
  );
};

const privately = (h: SlackHarness) => h.fake.ephemerals.map((e) => [e.user, e.text]);

describe("claiming a lead in Slack", () => {
  it("gives the lead to the first presser, edits the card, tells a later presser privately, and lets the claimer release it", async () => {
    const { h, card } = await announced();
    expect(shown(h, card)).toEqual({ status: [], pings: [], buttons: ["I'll take it"] });

    expect((await press(h, card, "U1", "<!channel>ann")).status).toBe(200);
    await h.settle();
    const claimed = shown(h, card);
    expect(claimed.status).toEqual([
      expect.stringMatching(
        /^Claimed by @<!channel>ann at [A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d UTC$/,
      ),
    ]);
    expect(claimed.pings).toEqual([]);
    expect(claimed.buttons).toEqual(["Release"]);
    expect(card.updates).toBe(1);

    // Bob saw the card before it changed: his "I'll take it" arrives after Ann's.
    await h.sendAction(
      blockActions({
        actionId: "lead.claim:0",
        value: h.fake.buttonsOf(card)[0]?.value ?? "",
        user: "U2",
        username: "bob",
        messageTs: card.ts,
      }),
    );
    await h.settle();
    expect(privately(h)).toEqual([
      ["U2", expect.stringMatching(/^@&lt;!channel&gt;ann already took this lead, at .* UTC\.$/)],
    ]);
    // Bob cannot release Ann's lead.
    await press(h, card, "U2", "bob");
    await h.settle();
    expect(privately(h).at(-1)).toEqual([
      "U2",
      "Only @&lt;!channel&gt;ann, who took this lead, can release it.",
    ]);
    expect(card.updates).toBe(1);

    await press(h, card, "U1", "<!channel>ann");
    await h.settle();
    expect(shown(h, card)).toEqual({ status: [], pings: [], buttons: ["I'll take it"] });
    expect(card.updates).toBe(2);
    // Free again: Bob takes it.
    await press(h, card, "U2", "bob");
    await h.settle();
    expect(shown(h, card).status).toEqual([expect.stringMatching(/^Claimed by @bob at /)]);
  });

  it("lets an admin release a lead someone else took (the taker may be away), and logs who freed whose lead", async () => {
    const { h, card } = await announced("info");
    await press(h, card, "U1", "ann");
    await h.settle();
    expect(shown(h, card).buttons).toEqual(["Release"]);
    await press(h, card, "UADMIN", "boss");
    await h.settle();
    expect(shown(h, card)).toEqual({ status: [], pings: [], buttons: ["I'll take it"] });
    expect(privately(h)).toEqual([]);
    expect(h.logs.filter((line) => line.msg.includes("released"))).toEqual([
      expect.objectContaining({ releasedBy: "UADMIN", heldBy: "slack:U1", platform: "slack" }),
    ]);
    // People's names and the lead's fields stay out of the log.
    expect(JSON.stringify(h.logs)).not.toMatch(/Dana|555 0100|dana@|@ann|boss/);
  });

  it("tells a presser of Release privately when Slack cannot say whether they are an admin, and keeps the claim", async () => {
    const { h, card } = await announced();
    await press(h, card, "U1", "ann");
    await h.settle();
    h.fake.failNext("users.info", "fatal_error", 3);
    await press(h, card, "U2", "bob");
    await h.settle();
    expect(privately(h)).toEqual([
      ["U2", "⚠️ could not check whether you are a workspace admin (fatal_error)"],
    ]);
    expect(shown(h, card).status).toEqual([expect.stringMatching(/^Claimed by @ann at /)]);
    expect(card.updates).toBe(1);
  });

  it("refuses a press that names a lead but is not on its card (a forged or other message)", async () => {
    const { h, card } = await announced();
    const [button] = h.fake.buttonsOf(card);
    await h.sendAction(
      blockActions({
        actionId: "lead.claim:0",
        value: button?.value ?? "",
        user: "U1",
        messageTs: "1700000999.000001",
      }),
    );
    await h.sendAction(
      blockActions({
        actionId: "lead.claim:0",
        value: "../../etc",
        user: "U1",
        messageTs: card.ts,
      }),
    );
    await h.settle();
    expect(privately(h)).toEqual([
      ["U1", "This lead can no longer be claimed here."],
      ["U1", "This lead can no longer be claimed here."],
    ]);
    expect(card.updates).toBe(0);
    expect(shown(h, card).buttons).toEqual(["I'll take it"]);
  });
});
