import { afterEach, describe, expect, it } from "vitest";
import { LeadChannels } from "../../src/leads/lead-channels.ts";
import { LeadClaimBook } from "../../src/leads/lead-claims.ts";
import { leadPollers } from "../../src/leads/lead-poller.ts";
import { createLeadsCommands } from "../../src/leads/leads-commands.ts";
import { createLogger } from "../../src/log.ts";
import { type Harness, startHarness } from "../support/bridge-harness.ts";
import { answered, type Rig, startRig } from "./rig.ts";

const rigs: Rig[] = [];
let harness: Harness | undefined;
afterEach(async () => {
  for (const rig of rigs.splice(0)) await rig.close();
  await harness?.close();
  harness = undefined;
});

const SUPPORT = { name: "support", botUid: "sim-support" };
const SALES = { name: "sales", botUid: "sim-sales" };
const silent = createLogger({ level: "silent", secrets: [] });

/** Two chatbots behind one Telegram bot; Bob (1002) is one of the bot's admins. */
async function start(shared?: Harness): Promise<Rig> {
  harness ??=
    shared ??
    (await startHarness({
      chatbots: [SUPPORT, SALES],
      simulator: { leads: 0 },
      bridge: {
        leads: (chatbots, store) =>
          createLeadsCommands({
            backend: chatbots,
            channels: new LeadChannels(store, [], { log: silent, chatbots: chatbots.all }),
            claims: new LeadClaimBook(store),
          }),
      },
    }));
  const rig = await startRig({ harness, channel: { adminUsers: ["1002"] } });
  rigs.push(rig);
  return rig;
}

/** The deployment's lead poll, as main.ts runs it: one poller per chatbot. */
function pollers(rig: Rig) {
  const { store, chatbots } = rig.harness;
  return leadPollers(chatbots, {
    store,
    channels: new LeadChannels(store, [], { log: silent, chatbots: chatbots.all }),
    announcers: [rig.channel.leadAnnouncer],
    claims: new LeadClaimBook(store),
    log: silent,
    intervalMs: 60_000,
  });
}

const pollAll = async (rig: Rig) => {
  for (const poller of pollers(rig)) await poller.pollOnce();
};

const texts = (rig: Rig, chat: number) => rig.fake.botMessages(chat).map((m) => m.text);
const answeredBy = (text: string | undefined) =>
  /simulated chatbot ([\w-]+)\./.exec(text ?? "")?.[1];

describe("Telegram with several chatbots", () => {
  it("lets a chat's admin pick its chatbot with /chatbot use, and lists /chatbot in the menu in every language", async () => {
    const rig = await start();
    const { fake, alice, bob, group, dm } = rig;
    await answered(rig, fake.write({ chat: group.id, from: alice, text: "/chatbot use sales" }));
    await answered(
      rig,
      fake.write({ chat: group.id, from: bob, text: "/chatbot@ChatBridgeBot use sales" }),
    );
    await answered(rig, fake.write({ chat: group.id, from: alice, text: "/chatbot" }));
    expect(texts(rig, group.id)).toEqual([
      "Only an admin of this channel can choose its chatbot.",
      "New conversations here now go to sales. A conversation under way stays with its chatbot; /new starts a new one.",
      "Questions here go to sales. Chatbots: support, sales. Admins can change it with /chatbot use <name>.",
    ]);
    await answered(rig, fake.write({ chat: group.id, from: alice, text: "@ChatBridgeBot hello" }));
    await answered(rig, fake.write({ chat: dm.id, from: alice, text: "hello" }));
    expect(answeredBy(texts(rig, group.id).at(-1))).toBe("sim-sales");
    expect(answeredBy(texts(rig, dm.id).at(-1))).toBe("sim-support");

    await rig.channel.settled();
    const menus = [...fake.commands().entries()];
    expect(menus).toHaveLength(26);
    for (const [scope, commands] of menus) {
      expect(
        commands.map((c) => c.command),
        scope,
      ).toContain("chatbot");
    }
    const described = (scope: string) =>
      fake
        .commands()
        .get(scope)
        ?.find((c) => c.command === "chatbot")?.description;
    expect(described("default:")).toBe(
      "Show the chatbot of this chat (admins: /chatbot use <name>)",
    );
    expect(described("default:de")).toBe(
      "Den Chatbot dieses Chats anzeigen (Admins: /chatbot use <name>)",
    );
    expect(described("all_chat_administrators:ja")).toBe(
      "このチャットのチャットボットを表示（管理者：/chatbot use <name>）",
    );
  });

  it("announces each chatbot's leads once, in the chats subscribed to it, across a restart", async () => {
    const rig = await start();
    const { fake, bob, alice, group, forum } = rig;
    await answered(rig, fake.write({ chat: group.id, from: bob, text: "/leads subscribe sales" }));
    await answered(rig, fake.write({ chat: forum.id, from: bob, text: "/leads subscribe" }));
    await answered(rig, fake.write({ chat: forum.id, from: bob, text: "/leads subscribe nope" }));
    expect(texts(rig, group.id)).toEqual(["This channel now gets the new leads of sales."]);
    expect(texts(rig, forum.id)).toEqual([
      "This channel now gets the new leads of support.",
      "No chatbot is named nope. Chatbots: support, sales.",
    ]);
    await pollAll(rig);

    const { simulator } = rig.harness;
    simulator.addLead({ bot_uid: "sim-sales", name: "Sally Buyer" });
    simulator.addLead({ bot_uid: "sim-support", name: "Sam Helped" });
    await pollAll(rig);
    await pollAll(rig);
    const cards = (chat: number) => texts(rig, chat).filter((t) => t.startsWith("New lead"));
    expect(cards(group.id)).toEqual([expect.stringContaining("Name: Sally Buyer")]);
    expect(cards(group.id)[0]).toContain("\nChatbot: sales");
    expect(cards(forum.id)).toEqual([expect.stringContaining("Name: Sam Helped")]);
    expect(cards(forum.id)[0]).toContain("\nChatbot: support");

    // `/leads` lists the chatbot the chat follows, by name.
    await answered(rig, fake.write({ chat: group.id, from: alice, text: "/leads" }));
    const listed = texts(rig, group.id).at(-1) ?? "";
    expect(listed).toMatch(
      /^Leads of sales:\n1 lead in the last 7 days, newest first:\n• .*Sally Buyer/,
    );
    expect(listed).not.toContain("Sam");

    // Restarted on the same store: nothing again, only what is new.
    await rig.close();
    rigs.splice(rigs.indexOf(rig), 1);
    const again = await start(rig.harness);
    simulator.addLead({ bot_uid: "sim-sales", name: "Second Sale" });
    await pollAll(again);
    const announced = (chat: number) => texts(again, chat).filter((t) => t.startsWith("New lead"));
    expect(announced(group.id)).toEqual([expect.stringContaining("Name: Second Sale")]);
    expect(announced(forum.id)).toEqual([]);
  });

  it("says in /feedback whose answers were rated", async () => {
    const rig = await start();
    const { fake, bob, group } = rig;
    const vote = async (text: string) => {
      await answered(rig, fake.write({ chat: group.id, from: bob, text }));
      const [answer] = fake.botMessages(group.id).slice(-1);
      const [up] =
        fake.message(group.id, answer?.message_id ?? 0)?.replyMarkup?.inline_keyboard.flat() ?? [];
      await answered(
        rig,
        fake.press({
          chat: group.id,
          messageId: answer?.message_id ?? 0,
          from: bob,
          data: String(up?.callback_data),
        }),
      );
    };
    await vote("@ChatBridgeBot hello");
    await answered(rig, fake.write({ chat: group.id, from: bob, text: "/chatbot use sales" }));
    await vote("@ChatBridgeBot hello again");
    await answered(rig, fake.write({ chat: group.id, from: bob, text: "/feedback" }));
    expect(texts(rig, group.id).at(-1)).toBe(
      [
        "Votes on answers in this channel in the last 7 days: 👍 2 · 👎 0 (100% 👍)",
        "support: 👍 1 · 👎 0",
        "sales: 👍 1 · 👎 0",
      ].join("\n"),
    );
  });
});
