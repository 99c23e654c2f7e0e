import { afterEach, describe, expect, it } from "vitest";
import { viewMrkdwn } from "../support/fake-slack-view.ts";
import { mention, type SlackHarness, startSlackHarness } from "../support/slack-harness.ts";

let h: SlackHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(adminUsers: string[] = []): Promise<SlackHarness> {
  h = await startSlackHarness({ slack: { adminUsers, nativeStreaming: false } });
  return h;
}

const languageAsked = (harness: SlackHarness) =>
  harness.simulator.requests.filter((r) => r.route === "chat").map((r) => r.chat?.language);

describe("commands", () => {
  it("lets a workspace admin set the language with /language, and refuses anyone else", async () => {
    const harness = await start();
    const refused = await harness.sendCommand("/language", "fr", { user: "U1" });
    const allowed = await harness.sendCommand("/language", "fr", { user: "UADMIN" });
    await harness.settle();

    // Slash commands are acknowledged at once, with nothing to show; the reply follows.
    expect([refused.status, allowed.status]).toEqual([200, 200]);
    expect(refused.ms).toBeLessThan(3_000);
    expect(harness.fake.responses).toEqual([
      { type: "ephemeral", text: "Only an admin of this channel can change the answer language." },
      { type: "in_channel", text: "Les réponses ici sont désormais en français (fr)." },
    ]);
    expect(harness.fake.callsTo("users.info").map((c) => c.args.user)).toEqual(["U1", "UADMIN"]);

    await harness.sendEvent(mention("bonjour", { ts: harness.nextTs() }));
    await harness.settle();
    expect(languageAsked(harness)).toEqual(["fr"]);
  });

  it("takes the same words after a mention, replying privately to what only the asker needs", async () => {
    const harness = await start();
    const ts = harness.nextTs();
    await harness.sendEvent(mention("language fr", { ts, user: "U1" }));
    await harness.settle();
    expect(harness.fake.ephemerals).toEqual([
      {
        channel: "C1",
        user: "U1",
        threadTs: ts,
        text: "Only an admin of this channel can change the answer language.",
      },
    ]);

    const again = harness.nextTs();
    await harness.sendEvent(mention("language fr", { ts: again, user: "UADMIN" }));
    await harness.settle();
    await harness.sendEvent(mention("language", { ts: harness.nextTs(), user: "U1" }));
    await harness.settle();
    expect(harness.fake.thread("C1", again).map((m) => m.text)).toEqual([
      "Les réponses ici sont désormais en français (fr).",
    ]);
    expect(harness.fake.ephemerals.at(-1)?.text).toBe(
      "Les réponses ici sont en français (fr). Les administrateurs peuvent la changer avec /language &lt;code&gt;.",
    );
    // Commands never reach the chatbot.
    expect(languageAsked(harness)).toEqual([]);
  });

  it("counts SLACK_ADMIN_USERS as admins, and asks Slack once per person (admin flag and locale cached)", async () => {
    const harness = await start(["U7"]);
    // One at a time: each reply goes after an admin look-up, and look-ups finish in any order.
    for (const [code, user] of [
      ["de", "U7"],
      ["es", "UADMIN"],
      ["it", "UADMIN"],
    ] as const) {
      await harness.sendCommand("/language", code, { user });
      await harness.settle();
    }
    expect(harness.fake.responses.map((r) => r.text)).toEqual([
      "Antworten kommen hier ab jetzt auf Deutsch (de).",
      "A partir de ahora, las respuestas aquí están en español (es).",
      "D’ora in poi qui le risposte sono in italiano (it).",
    ]);
    // U7's look-up is for the language only: the first command met a channel with none set.
    expect(harness.fake.callsTo("users.info").map((c) => c.args.user)).toEqual(["U7", "UADMIN"]);
  });

  it("tells a person who writes a command it does not know after a mention so, privately", async () => {
    const harness = await start();
    const ts = harness.nextTs();
    await harness.sendEvent(mention("/bogus now", { ts, user: "U1" }));
    await harness.settle();
    expect(harness.fake.ephemerals.map((e) => e.text)).toEqual([
      expect.stringMatching(/^Unknown command \/bogus\.\nAsk me anything, or use a command:/),
    ]);
    expect(harness.fake.thread("C1", ts)).toEqual([]);
    expect(languageAsked(harness)).toEqual([]);
  });

  it("lists the commands with /chatbot-help and explains /chatbot-new outside a thread", async () => {
    const harness = await start();
    await harness.sendCommand("/chatbot-help", "");
    await harness.settle();
    await harness.sendCommand("/chatbot-new", "");
    await harness.settle();
    const [help, fresh] = harness.fake.responses;
    expect(help?.type).toBe("ephemeral");
    // As a person types each one in Slack: its slash commands, and what acts on a thread as a
    // message to the bot there (Slack refuses `/new` or `/stop`, no commands of this app, and
    // a slash command carries no thread).
    expect(help?.text).toMatch(/^Ask me anything, or use a command:\n\/chatbot-help /);
    expect(help?.text).toMatch(/^@chatbot new +start a fresh conversation in this thread/m);
    expect(help?.text).toMatch(/^@chatbot stop +stop the answer being written/m);
    expect(help?.text).toMatch(/^\/leads subscribe /m);
    expect(help?.text).not.toMatch(/^\/(help|new|stop)\b/m);
    expect(fresh?.text).toMatch(/^Each thread is its own conversation here/);
  });

  it("lists the commands after a mention in a thread as Slack takes them too", async () => {
    const harness = await start();
    const ts = harness.nextTs();
    await harness.sendEvent(mention("help", { ts, user: "U1" }));
    await harness.settle();
    const help = harness.fake.ephemerals.at(-1)?.text ?? "";
    expect(help).toMatch(/^@chatbot new +start a fresh conversation in this thread/m);
    expect(help).toMatch(/^@chatbot stop +stop the answer being written/m);
    expect(help).not.toMatch(/^\/(help|new|stop)\b/m);
  });

  it("spells the stop it expects as Slack takes it when /stop comes with words after it", async () => {
    const harness = await start();
    await harness.sendEvent(mention("/stop now please", { ts: harness.nextTs(), user: "U1" }));
    await harness.settle();
    const seen = viewMrkdwn(harness.fake.ephemerals.at(-1)?.text ?? "");
    expect(seen.read).toBe("expected @chatbot stop");
    expect(seen.code).toEqual(["@chatbot stop"]);
  });

  it("shows the commands in usage replies, help and notes as code, no backtick in sight", async () => {
    const harness = await start();
    await harness.sendCommand("/feedback", "many");
    await harness.settle();
    await harness.sendCommand("/chatbot-help", "");
    await harness.settle();
    await harness.sendCommand("/chatbot-new", "");
    await harness.settle();
    const [usage, help, fresh] = harness.fake.responses.map((r) => viewMrkdwn(r.text));
    expect(usage?.read).toBe("expected /feedback or /feedback <days> (1 to 90)");
    expect(usage?.code).toEqual(["/feedback", "/feedback <days>"]);
    expect(help?.code).toEqual(["auto", "/leads unsubscribe"]);
    expect(fresh?.code).toEqual(["new"]);
    for (const view of [usage, help, fresh]) expect(view?.read).not.toContain("`");
  });

  it("does not count an admin of another organisation (Slack Connect) as an admin here", async () => {
    h = await startSlackHarness({
      slack: { nativeStreaming: false },
      fake: {
        users: { U1: {}, UADMIN: { isAdmin: true }, UGUEST: { isAdmin: true, team: "T0OTHER" } },
      },
    });
    await h.sendCommand("/language", "de", { user: "UGUEST" });
    // Each reply goes after an admin look-up of its own: one at a time keeps their order.
    await h.settle();
    await h.sendCommand("/language", "fr", { user: "UADMIN" });
    await h.settle();
    expect(h.fake.responses.map((r) => r.text)).toEqual([
      "Only an admin of this channel can change the answer language.",
      "Les réponses ici sont désormais en français (fr).",
    ]);
  });
});
