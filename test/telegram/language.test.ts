import { afterEach, describe, expect, it } from "vitest";
import { ButtonHandlers } from "../../src/bridge/button-handlers.ts";
import { ChannelLanguages } from "../../src/i18n/channel-language.ts";
import { LeadChannels } from "../../src/leads/lead-channels.ts";
import { LeadPoller } from "../../src/leads/lead-poller.ts";
import { createLogger } from "../../src/log.ts";
import { announceOneLead } from "../support/lead-cards.ts";
import { ADMIN_COMMANDS, answered, type Rig, startRig, until } from "./rig.ts";

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const lastText = (r: Rig, chatId: number) => r.fake.botMessages(chatId).at(-1)?.text;

describe("Telegram: the bot speaks the chat's language", () => {
  it("after /language fr in a group: the stopped note, the claim button and a claim's edit of a lead announcement are French", async () => {
    const buttons = new ButtonHandlers();
    rig = await startRig({ simulator: { chunkDelayMs: 30, leads: 0 }, channel: { buttons } });
    const { fake, bob, alice, group, harness, channel } = rig;
    await answered(rig, fake.write({ chat: group.id, from: bob, text: "/language fr" }));

    const asked = fake.botMessages(group.id).length;
    fake.write({ chat: group.id, from: alice, text: "@ChatBridgeBot #huge=3000" });
    await until(() => fake.botMessages(group.id).length > asked);
    const answer = fake.botMessages(group.id).at(-1);
    if (!answer) throw new Error("no answer");
    // A reply to the answer belongs to its thread once the bot has noted the chain.
    const chain = `telegram:chain:${group.id}:${answer.message_id}`;
    for (let i = 0; i < 200 && (await harness.store.get(chain)) === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    fake.write({
      chat: group.id,
      from: alice,
      text: "/stop@ChatBridgeBot",
      replyTo: answer.message_id,
    });
    await until(() => fake.message(group.id, answer.message_id)?.text.includes("⏹") === true);
    const stopped = fake.message(group.id, answer.message_id)?.text ?? "";
    expect(stopped.replace(/[\u200B-\u200D\u2060]/g, "")).toMatch(
      /\n\n⏹ arrêtée par @alice_example$/,
    );

    await announceOneLead({
      buttons,
      store: harness.store,
      backend: harness.backend,
      simulator: harness.simulator,
      channel: { platform: "telegram", id: String(group.id) },
      announcer: channel.leadAnnouncer,
      lead: { name: "Ada", created_at: new Date() },
    });
    const card = fake.botMessages(group.id).at(-1);
    if (!card) throw new Error("no announcement");
    const labels = () => (card.replyMarkup?.inline_keyboard ?? []).flat().map((b) => b.text);
    expect(labels()).toEqual(["Je m’en occupe"]);
    const data = card.replyMarkup?.inline_keyboard[0]?.[0]?.callback_data ?? "";
    await answered(
      rig,
      fake.press({ chat: group.id, messageId: card.message_id, from: alice, data }),
    );
    expect(card.text.split("\n").at(-1)).toMatch(
      /^Pris en charge par \S+ le \d{1,2} \S+ \d{4}, \d\d:\d\d UTC$/,
    );
    expect(labels()).toEqual(["Libérer"]);
  });

  it("after /language fr in a group: /help, the cut note, an error and a lead announcement are French", async () => {
    rig = await startRig({ simulator: { leads: 0 } });
    const { fake, bob, alice, group, harness, channel } = rig;
    await answered(rig, fake.write({ chat: group.id, from: bob, text: "/language fr" }));
    expect(lastText(rig, group.id)).toBe("Les réponses ici sont désormais en français (fr).");

    await answered(rig, fake.write({ chat: group.id, from: alice, text: "/help" }));
    expect(lastText(rig, group.id)?.split("\n")[0]).toBe(
      "Posez-moi n’importe quelle question, ou utilisez une commande :",
    );

    await answered(rig, fake.write({ chat: group.id, from: alice, text: "@ChatBridgeBot #cut" }));
    expect(lastText(rig, group.id)).toMatch(/\n\n⚠️ réponse coupée : connexion perdue$/);

    await answered(
      rig,
      fake.write({ chat: group.id, from: alice, text: "@ChatBridgeBot #status=500" }),
    );
    expect(lastText(rig, group.id)).toBe(
      "⚠️ le service du chatbot a échoué (HTTP 500) ; réessayez plus tard",
    );

    const leads = new LeadPoller({
      backend: harness.backend,
      store: harness.store,
      channels: new LeadChannels(harness.store, [{ platform: "telegram", id: String(group.id) }]),
      announcers: [channel.leadAnnouncer],
      languages: new ChannelLanguages(harness.store, "auto"),
      log: createLogger({ level: "silent", secrets: [] }),
      intervalMs: 60_000,
    });
    await leads.pollOnce();
    harness.simulator.addLead({ name: "Ada", phone: "+33 1 23", created_at: new Date() });
    await leads.pollOnce();
    expect(lastText(rig, group.id)?.split("\n").slice(0, 3)).toEqual([
      "Nouveau prospect",
      "Nom : Ada",
      "Téléphone : +33 1 23",
    ]);
  });

  it("after /language fr in a forum topic, a question in another topic waiting for room is told its place in French", async () => {
    // One answer at a time: a question asked during another's waits for room, told so. The
    // first answer stalls half-way, holding the room until it is stopped.
    rig = await startRig({ bridge: { maxActive: 1, maxQueued: 10 } });
    const { fake, bob, alice, forum } = rig;
    const topic = fake.createTopic(forum.id, "Ventes", bob);
    const other = fake.createTopic(forum.id, "Achats", bob);
    await answered(rig, fake.write({ chat: forum.id, topic, from: bob, text: "/language fr" }));
    fake.write({ chat: forum.id, topic, from: alice, text: "@ChatBridgeBot un #stall" });
    const first = () => fake.botMessages(forum.id, topic).find((m) => m.replyMarkup);
    await until(() => first() !== undefined, 10_000, "the first answer, with its stop button");
    const second = fake.write({
      chat: forum.id,
      topic: other,
      from: alice,
      text: "@ChatBridgeBot deux",
    });
    await until(
      () =>
        fake
          .botMessages(forum.id, other)
          .some((m) =>
            m.history.includes(
              "⏳ beaucoup de questions en ce moment : la vôtre est la 1ᵉ dans la file",
            ),
          ),
      10_000,
      "the notice of its place in line",
    );
    const stalled = first();
    const [stop] = stalled?.replyMarkup?.inline_keyboard.flat() ?? [];
    fake.press({
      chat: forum.id,
      messageId: Number(stalled?.message_id),
      from: alice,
      data: String(stop?.callback_data),
    });
    await answered(rig, second);
  });

  it("speaks German to a person whose Telegram is in German, in a private chat", async () => {
    rig = await startRig();
    const { fake, dm } = rig;
    const alice = { ...rig.alice, language_code: "de" };
    await answered(rig, fake.write({ chat: dm.id, from: alice, text: "/help" }));
    expect(lastText(rig, dm.id)?.split("\n")[0]).toBe(
      "Fragen Sie mich, was Sie möchten, oder nutzen Sie einen Befehl:",
    );
    await answered(rig, fake.write({ chat: dm.id, from: alice, sticker: true }));
    expect(lastText(rig, dm.id)).toBe(
      "Ich kann nur Textnachrichten lesen: Bitte schreiben Sie Ihre Frage.",
    );
    await answered(rig, fake.write({ chat: dm.id, from: alice, text: "#status=500" }));
    expect(lastText(rig, dm.id)).toBe(
      "⚠️ der Chatbot-Dienst ist ausgefallen (HTTP 500); bitte versuchen Sie es später noch einmal",
    );
  });

  it("registers the command menu in every language Telegram tells apart, per scope", async () => {
    rig = await startRig();
    await rig.channel.settled();
    const calls = rig.fake.callsTo("setMyCommands");
    const registered = calls.map(
      (c) => `${(c.params.scope as { type: string }).type}:${c.params.language_code ?? ""}`,
    );
    const codes = ["", "fr", "es", "ru", "zh", "ar", "de", "ja", "pt", "hi", "ko", "it", "uk"];
    expect(new Set(registered)).toEqual(
      new Set(codes.flatMap((code) => [`default:${code}`, `all_chat_administrators:${code}`])),
    );
    expect(registered).toHaveLength(26);
    const menu = rig.fake.commands();
    expect(menu.get("default:fr")?.map((c) => c.description)).toEqual([
      "Afficher la liste des commandes",
      "Commencer une nouvelle conversation ici",
      "Afficher la langue des réponses (administrateurs : /language <code>)",
      "Arrêter la réponse en cours (dans un groupe : en réponse à celle-ci)",
    ]);
    expect(menu.get("all_chat_administrators:ja")?.map((c) => c.command)).toEqual(ADMIN_COMMANDS);
    expect(menu.get("default:")?.[0]?.description).toBe("List the commands");
  });
});
