import { describe, expect, it } from "vitest";
import { startSimulator } from "../../src/simulator/index.ts";
import { startFakeTelegram } from "../support/fake-telegram.ts";
import { trackedBot } from "../support/in-process-bot.ts";
import { cleanupAfterEach, telegramBotEnv } from "../support/process-test.ts";
import { until } from "../support/run-bot.ts";

const track = cleanupAfterEach();

const REFUSED = "Only an admin of this channel can change the answer language.";

/** A bot in the group "Team" (an administrator of it, or a member), and Bob, a member. */
async function inGroup(botStatus: "administrator" | "member", env: Record<string, string> = {}) {
  const telegram = track(await startFakeTelegram(), (f) => f.close());
  const simulator = track(await startSimulator({ chunkDelayMs: 0 }), (s) => s.close());
  const bob = telegram.user(2002, "Bob");
  const team = telegram.addChat(
    { id: -1007, type: "supergroup", title: "Team" },
    { [bob.id]: "member", [telegram.bot.id]: botStatus },
  );
  const bot = trackedBot(track, { ...telegramBotEnv(telegram, simulator), ...env });
  await bot.started;
  return { telegram, bob, team, bot };
}

describe("Telegram: a reply meant for one person in a group", () => {
  it.each<{ format: string; env: Record<string, string> }>([
    { format: "HTML messages", env: {} },
    { format: "rich messages", env: { TELEGRAM_RICH_MESSAGES: "on" } },
  ])(
    "goes to that person alone where the bot administers the group (an ephemeral message), with $format",
    async ({ env }) => {
      const { telegram, bob, team } = await inGroup("administrator", env);
      telegram.write({ chat: team.id, from: bob, text: "/language fr" });
      const alone = await until("Bob's refusal", () =>
        telegram.ephemerals.find((e) => e.text === REFUSED),
      );
      expect(alone).toMatchObject({ chatId: team.id, receiverUserId: bob.id });
      // Nothing of it in the group's history.
      telegram.write({ chat: team.id, from: bob, text: "/help" });
      await until("Bob's help, alone too", () =>
        telegram.ephemerals.find((e) => e.text.startsWith("Ask me anything")),
      );
      expect(telegram.botMessages(team.id).map((m) => m.text)).toEqual([]);
    },
  );

  it("is posted in the group, as before, where the bot is a member only", async () => {
    const { telegram, bob, team } = await inGroup("member");
    telegram.write({ chat: team.id, from: bob, text: "/language fr" });
    await until("Bob's refusal in the group", () =>
      telegram.botMessages(team.id).find((m) => m.text === REFUSED),
    );
    expect(telegram.ephemerals).toEqual([]);
  });

  it("answers an ephemeral command (one the menu marks is_ephemeral) to its sender alone, the bot an admin or not, and posts what everyone should see", async () => {
    const { telegram, bob, team } = await inGroup("member");
    const carol = telegram.user(2003, "Carol");
    telegram.setMember(team.id, carol.id, "administrator");
    // The menu marks the commands whose replies concern one person.
    const menu = await until("the command menu", () => telegram.commands().get("default:"));
    const marked = menu.filter((c) => (c as { is_ephemeral?: boolean }).is_ephemeral);
    expect(marked.map((c) => c.command)).toEqual(["help", "language"]);

    telegram.write({ chat: team.id, from: bob, text: "/language fr", ephemeral: true });
    const refusal = await until("Bob's refusal, to him alone", () =>
      telegram.ephemerals.find((e) => e.text === REFUSED),
    );
    expect(refusal.receiverUserId).toBe(bob.id);
    // An admin's change is the group's: posted, quoting nothing (nobody else saw the command).
    telegram.write({ chat: team.id, from: carol, text: "/language fr", ephemeral: true });
    const posted = await until("the change, for everyone", () =>
      telegram.botMessages(team.id).find((m) => m.text.includes("français")),
    );
    expect(posted.replyTo).toBeUndefined();
    expect(telegram.botMessages(team.id)).toHaveLength(1);
  });

  it("posts the reply to an ephemeral command past Telegram's 15 seconds, where the bot is a member only", async () => {
    const { telegram, bob, team } = await inGroup("member");
    telegram.write({
      chat: team.id,
      from: bob,
      text: "/language fr",
      ephemeral: true,
      ephemeralAgeSeconds: 20,
    });
    await until("Bob's refusal in the group", () =>
      telegram.botMessages(team.id).find((m) => m.text === REFUSED),
    );
    expect(telegram.ephemerals).toEqual([]);
    // Past the window the bot does not even try: Telegram would refuse the reply.
    const tried = telegram.calls.filter((c) => c.params.ephemeral_message_parameters);
    expect(tried).toEqual([]);
  });
});
