import { afterEach, describe, expect, it } from "vitest";
import { LeadChannels } from "../../src/leads/lead-channels.ts";
import { createLeadsCommands } from "../../src/leads/leads-commands.ts";
import { type Harness, startHarness } from "../support/bridge-harness.ts";
import { answered, type Rig, startRig } from "./rig.ts";

let rig: Rig | undefined;
let harness: Harness | undefined;
afterEach(async () => {
  await rig?.close();
  await harness?.close();
  rig = undefined;
  harness = undefined;
});

// The rig's group without topics; it is this bot's configured lead chat.
const SALES_GROUP = -1001;

async function start(adminUsers: string[] = []): Promise<Rig> {
  harness = await startHarness({
    simulator: { chunkDelayMs: 0, leads: 0 },
    bridge: {
      leads: (backend, store) =>
        createLeadsCommands({
          backend,
          channels: new LeadChannels(store, [{ platform: "telegram", id: String(SALES_GROUP) }]),
        }),
    },
  });
  rig = await startRig({ harness, channel: { adminUsers } });
  return rig;
}

describe("/leads in Telegram", () => {
  it("lists leads in the lead chat, escaped, and refuses elsewhere without showing any", async () => {
    const { fake, bob, alice, group, forum } = await start();
    harness?.simulator.addLead({ name: "<b>Ann</b> & co", email: "ann@example.com" });

    await answered(rig as Rig, fake.write({ chat: group.id, from: alice, text: "/leads 3" }));
    const [list] = fake.botMessages(group.id);
    expect(list?.text).toMatch(
      /^1 lead in the last 3 days, newest first:\n• .* UTC: <b>Ann<\/b> & co · /,
    );
    expect(list?.entities).toEqual([]);

    await answered(
      rig as Rig,
      fake.write({ chat: forum.id, from: bob, text: "/leads@ChatBridgeBot" }),
    );
    const [refusal] = fake.botMessages(forum.id);
    expect(refusal?.text).toBe(
      "Leads are shown only in lead channels. One of the bot's admins can make this one a lead channel with /leads subscribe.",
    );
  });

  it("lets a bot admin (TELEGRAM_ADMIN_USERS) subscribe a chat, and refuses its administrator and its members", async () => {
    // Alice is listed: a bot admin, though only a member of the forum; Bob administers it.
    const { fake, bob, alice, forum } = await start(["1001"]);
    for (const from of [bob, alice]) {
      await answered(rig as Rig, fake.write({ chat: forum.id, from, text: "/leads subscribe" }));
    }
    expect(fake.botMessages(forum.id).map((m) => m.text)).toEqual([
      "Only the bot's admins can turn lead announcements on or off.",
      "This channel now gets every new lead.",
    ]);
    expect(alice.id).toBe(1001);
  });
});
