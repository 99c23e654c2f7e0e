import { describe, expect, it } from "vitest";
import { ButtonHandlers } from "../../src/bridge/button-handlers.ts";
import { ChannelLanguages } from "../../src/i18n/channel-language.ts";
import { LeadChannels } from "../../src/leads/lead-channels.ts";
import { LeadPoller } from "../../src/leads/lead-poller.ts";
import { createLogger } from "../../src/log.ts";
import { viewMrkdwn } from "../support/fake-slack-view.ts";
import { startHeldBackend } from "../support/held-backend.ts";
import { cleanupAfterEach } from "../support/process-test.ts";
import {
  announceOneLeadInC1,
  blockActions,
  mention,
  message,
  type SlackHarness,
  slackHarnessPerTest,
} from "../support/slack-harness.ts";
import { waitFor } from "./wait.ts";

const RLM = "\u200F";

// Before the harness's: hooks after each test run last registered first, so what a harness
// talks to closes after it.
const track = cleanupAfterEach();
const start = slackHarnessPerTest({
  fake: {
    users: {
      U1: {},
      UADMIN: { isAdmin: true },
      UDE: { locale: "de-DE" },
      UJA: { locale: "ja-JP" },
      UAR: { locale: "ar" },
    },
  },
  slack: { nativeStreaming: false },
});

const lastIn = (harness: SlackHarness, ts: string) => harness.fake.thread("C1", ts).at(-1)?.text;

describe("Slack: the bot speaks the channel's language", () => {
  it("after /language fr: the stopped note, the claim button and a claim's edit of a lead announcement are French", async () => {
    const buttons = new ButtonHandlers();
    const harness = await start({ simulator: { chunkDelayMs: 30, leads: 0 }, slack: { buttons } });
    await harness.sendCommand("/language", "fr", { user: "UADMIN" });
    await harness.settle();

    const ts = harness.nextTs();
    void harness.sendEvent(mention("#huge=3000", { ts, user: "U1" }));
    await waitFor(() => harness.fake.thread("C1", ts).length > 0, "the answer streaming");
    await harness.sendEvent({
      ...mention("stop", { ts: harness.nextTs(), user: "U1", threadTs: ts }),
      user_profile: { display_name: "Ann" },
    });
    await harness.settle();
    expect(lastIn(harness, ts)).toMatch(/\n\n⏹ arrêtée par Ann$/);

    await announceOneLeadInC1(harness, buttons, { name: "Ada", created_at: new Date() });
    const card = [...harness.fake.messages.values()].find((m) =>
      (m.blocks as { type: string }[] | undefined)?.some((b) => b.type === "header"),
    );
    if (!card) throw new Error("no announcement");
    const [take] = harness.fake.buttonsOf(card);
    expect(take?.label).toBe("Je m’en occupe");
    await harness.sendAction(
      blockActions({
        actionId: take?.actionId ?? "",
        value: take?.value ?? "",
        user: "U1",
        username: "ann",
        messageTs: card.ts,
      }),
    );
    await harness.settle();
    const status = (card.blocks ?? []).flatMap((block) => {
      const { type, elements } = block as { type: string; elements?: { text: string }[] };
      return type === "context" ? (elements ?? []).map((e) => viewMrkdwn(e.text).visible) : [];
    });
    expect(status).toEqual([
      expect.stringMatching(/^Pris en charge par @ann le \d{1,2} \S+ \d{4}, \d\d:\d\d UTC$/),
    ]);
    expect(harness.fake.buttonsOf(card).map((b) => b.label)).toEqual(["Libérer"]);
  });

  it("after /language fr: /chatbot-help, the cut note, an error and a lead announcement are French", async () => {
    const harness = await start({ simulator: { leads: 0 } });
    await harness.sendCommand("/language", "fr", { user: "UADMIN" });
    await harness.settle();
    await harness.sendCommand("/chatbot-help", "", { user: "U1" });
    await harness.settle();
    expect(harness.fake.responses.map((r) => r.text.split("\n")[0])).toEqual([
      "Les réponses ici sont désormais en français (fr).",
      "Posez-moi n’importe quelle question, ou utilisez une commande :",
    ]);

    const cut = harness.nextTs();
    await harness.sendEvent(mention("#cut", { ts: cut }));
    const failed = harness.nextTs();
    await harness.sendEvent(mention("#status=500", { ts: failed }));
    await harness.settle();
    expect(lastIn(harness, cut)).toMatch(/\n\n⚠️ réponse coupée : connexion perdue$/);
    // The loading status under the thread, before the first words, too.
    expect(harness.fake.statuses.filter((st) => st.threadTs === cut)[0]?.status).toBe("réfléchit…");
    expect(lastIn(harness, failed)).toBe(
      "⚠️ le service du chatbot a échoué (HTTP 500) ; réessayez plus tard",
    );

    const { store, simulator, channel } = harness;
    const leads = new LeadPoller({
      backend: harness.backend,
      store,
      channels: new LeadChannels(store, [{ platform: "slack", id: "C1" }]),
      announcers: [channel.leadAnnouncer],
      languages: new ChannelLanguages(store, "auto"),
      log: createLogger({ level: "silent", secrets: [] }),
      intervalMs: 60_000,
    });
    await leads.pollOnce();
    simulator.addLead({ name: "Ada", created_at: new Date() });
    await leads.pollOnce();
    const post = harness.fake.calls.find(
      (c) =>
        c.method === "chat.postMessage" &&
        (c.args.blocks as { type: string }[] | undefined)?.[0]?.type === "header",
    )?.args as { text: string; blocks: { fields?: { text: string }[] }[] } | undefined;
    expect(post?.text).toBe("Nouveau prospect : Ada");
    expect(post?.blocks[1]?.fields?.map((f) => f.text.split("\n")[0])).toEqual([
      "*Nom*",
      "*Téléphone*",
      "*E-mail*",
      "*Remarque*",
      "*Date*",
      "*Conversation*",
    ]);
    expect(post?.blocks[1]?.fields?.[4]?.text).toMatch(
      /^\*Date\*\n\d{1,2} \S+ \d{4}, \d\d:\d\d UTC$/,
    );
  });

  it("after /language fr, a question waiting for room is told its place in French", async () => {
    // The first answer holds the one room until the notice is seen.
    const held = track(await startHeldBackend(), (b) => b.close());
    const harness = await start({ backend: held, answerQueue: { maxActive: 1, maxQueued: 10 } });
    await harness.sendCommand("/language", "fr", { user: "UADMIN" });
    await harness.settle();
    const thread = harness.nextTs();
    await harness.sendEvent(mention("un", { ts: thread }));
    // Its first text is on screen: the first answer holds the one room.
    await waitFor(() => harness.fake.thread("C1", thread).length > 0, "the first answer");
    const other = harness.nextTs();
    await harness.sendEvent(mention("deux", { ts: other }));
    await waitFor(
      () =>
        harness.fake
          .thread("C1", other)[0]
          ?.history.includes(
            "⏳ beaucoup de questions en ce moment : la vôtre est la 1ᵉ dans la file",
          ) ?? false,
      "the notice of its place in line",
      10_000,
    );
    held.releaseAll();
    await harness.settle();
  });

  it("with no language set, speaks each person's Slack language: replies and the assistant pane", async () => {
    const harness = await start({ fake: { view: "assistant" } });
    const ts = harness.nextTs();
    await harness.sendEvent(mention("#status=500", { ts, user: "UDE" }));
    await harness.settle();
    expect(lastIn(harness, ts)).toBe(
      "⚠️ der Chatbot-Dienst ist ausgefallen (HTTP 500); bitte versuchen Sie es später noch einmal",
    );

    const pane = harness.nextTs();
    await harness.sendEvent({
      type: "assistant_thread_started",
      assistant_thread: { user_id: "UJA", channel_id: "D1", thread_ts: pane, context: {} },
      event_ts: pane,
    });
    await harness.settle();
    expect(harness.fake.thread("D1", pane)[0]?.text).toBe(
      "こんにちは！何でも質問してください。ここではスレッドごとに別の会話になります。`/chatbot-help` でコマンドの一覧を表示できます。",
    );
    expect(harness.fake.prompts[0]?.prompts).toEqual([
      { title: "何ができますか？", message: "何ができますか？" },
      { title: "何から始めればいいですか？", message: "何から始めればいいですか？" },
      {
        title: "やさしく説明して",
        message: "あなたが詳しい分野を、簡単な文でいくつか説明してください。",
      },
    ]);
    // One users.info per person, its locale cached with the admin flag.
    expect(harness.fake.callsTo("users.info").map((c) => c.args.user)).toEqual(["UDE", "UJA"]);
  });

  it("greets an assistant pane in the language set in that DM, on an org-wide install too", async () => {
    const harness = await start();
    // The delivery's workspace is not the bot's own (an org-wide install): events and the
    // greeting must name the DM alike.
    await harness.sendEvent(
      message("/language fr", { ts: harness.nextTs(), channel: "D1", user: "UADMIN" }),
      {
        team: "T2",
      },
    );
    await harness.settle();
    const pane = harness.nextTs();
    await harness.sendEvent(
      {
        type: "assistant_thread_started",
        assistant_thread: { user_id: "UADMIN", channel_id: "D1", thread_ts: pane, context: {} },
        event_ts: pane,
      },
      { team: "T2" },
    );
    await harness.settle();
    expect(harness.fake.thread("D1", pane)[0]?.text).toMatch(/^Bonjour/);
  });

  it("writes Arabic right to left: each line between right-to-left marks, values isolated", async () => {
    const harness = await start();
    const ts = harness.nextTs();
    await harness.sendEvent(mention("#status=500", { ts, user: "UAR" }));
    await harness.sendEvent(mention("/bogus", { ts: harness.nextTs(), user: "UAR" }));
    await harness.settle();
    const error = lastIn(harness, ts) ?? "";
    expect(error).toBe(
      `${RLM}⚠️ تعطّلت خدمة روبوت الدردشة (\u2068HTTP 500\u2069)؛ يُرجى المحاولة مجددًا لاحقًا${RLM}`,
    );
    const help = harness.fake.ephemerals.at(-1)?.text ?? "";
    for (const line of help.split("\n")) {
      // No stray punctuation of the bot's own at a line's ends: the marks hold them in place.
      expect(line.startsWith(RLM) && line.endsWith(RLM), line).toBe(true);
      expect(line.replace(/\u2068[^\u2069]*\u2069/g, ""), line).not.toMatch(/[A-Za-z]/);
    }
  });
});
